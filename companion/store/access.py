"""The one gate: whether the phone holding these membership tokens may see a group or a play.

Every page of a group or play, and the read cache in front of them, asks ``reach``; its one query also
brings the membership, the group, the play with its seats, and the version stamps the read cache keys its
answers by: the group's grows with every change its page shows (triggers of ``m014_group_versions``), the
play's with each of its entries and each other change its page shows (``m021_play_page_versions``). A
group in the trash, a play in it or any play of a group in it shows no page; only their restore
(``restoring``) reaches them, a play's through a group outside the trash.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from sqlite_utils import Database

from companion.store.errors import marks
from companion.store.groups import Group, Membership
from companion.store.plays import Play, SeatRow, _play_of

Restoring = Literal["group", "play"] | None

_MEMBER = "m.id, m.token, m.group_id, m.name, m.joined_at, m.last_seen, m.player_id"
_GROUP = ("g.id, g.name, g.token, g.join_code, g.created_at, "
          "(SELECT time_zone FROM group_settings WHERE group_id = g.id), g.deleted_at IS NOT NULL, g.version")
_PLAY = ("p.id, p.group_id, p.game, p.options, p.status, p.started_at, p.ended_at, p.version, "
         "p.deleted_at IS NOT NULL, (SELECT json_group_array(json_array(s.seat, s.player_id, pl.name, "
         "s.colour)) FROM seats s JOIN players pl ON pl.id = s.player_id WHERE s.play_id = p.id)")
_MEMBERS = "JOIN memberships m ON m.group_id = g.id AND m.token IN ({marks})"
_OF_PLAY = (f"SELECT {_MEMBER}, {_GROUP}, {_PLAY} FROM plays p JOIN groups g ON g.id = p.group_id "
            f"{_MEMBERS} WHERE p.id = ? AND (? IS NULL OR p.group_id = ?) LIMIT 1")
_OF_GROUP = f"SELECT {_MEMBER}, {_GROUP} FROM groups g {_MEMBERS} WHERE g.id = ? LIMIT 1"
_M, _G = 7, 8  # columns of the membership, of the group


@dataclass(frozen=True)
class Reach:
    """What one phone may see at one address: its membership, the group, the play (if one is asked)."""

    row: tuple

    @cached_property
    def membership(self) -> Membership:
        return Membership(*self.row[:_M])

    @cached_property
    def group(self) -> Group:
        return Group(*self.row[_M:_M + 5])

    @cached_property
    def play(self) -> Play | None:
        if self.play_version is None:
            return None
        columns = self.row[_M + _G:]
        seats = sorted((SeatRow(*seat) for seat in json.loads(columns[-1])), key=lambda seat: seat.seat)
        return _play_of(columns[:8], tuple(seats))

    @property
    def time_zone(self) -> str | None:
        """The time zone the group set (None: none), for the times its pages write."""
        return self.row[_M + 5]

    @property
    def last_seen(self) -> str:
        return self.row[5]

    @property
    def group_version(self) -> int:
        return self.row[_M + _G - 1]

    @property
    def play_version(self) -> int | None:
        return self.row[_M + _G + 7] if len(self.row) > _M + _G else None

    @property
    def play_status(self) -> str | None:
        return self.row[_M + _G + 4] if len(self.row) > _M + _G else None


def _reached_row(db: Database, tokens: Sequence[str], group_id: int | None,
                 play_id: int | None) -> tuple | None:
    if not tokens or (group_id is None and play_id is None):
        return None
    sql, params = (_OF_GROUP, [group_id]) if play_id is None else (_OF_PLAY, [play_id, group_id, group_id])
    return db.conn.execute(sql.format(marks=marks(tokens)), [*tokens, *params]).fetchone()


def _trashed(row: tuple, play_id: int | None) -> Restoring:
    if row[_M + _G - 2]:
        return "group"
    return "play" if play_id is not None and row[_M + _G + 8] else None


def reach(db: Database, tokens: Sequence[str], group_id: int | None = None, play_id: int | None = None,
          restoring: Restoring = None) -> Reach | None:
    """What these tokens reach of the group and/or play (with both, the play must be the group's); None
    when they reach nothing (answer 404)."""
    row = _reached_row(db, tokens, group_id, play_id)
    trashed = row and _trashed(row, play_id)
    if row is None or (trashed and (trashed != restoring or (trashed == "group" and play_id is not None))):
        return None
    return Reach(row)


@dataclass(frozen=True)
class Trashed:
    """What lies in the trash ("group" or "play"), its group, and the membership of the phone asking."""

    what: Restoring
    group_id: int
    membership_id: int


def in_trash(db: Database, tokens: Sequence[str], group_id: int | None = None,
             play_id: int | None = None) -> Trashed | None:
    """What these tokens would reach when it lies in the trash, else None: its members may learn that it
    is there, that it can be restored, and that what they sent before was stored."""
    row = _reached_row(db, tokens, group_id, play_id)
    trashed = row and _trashed(row, play_id)
    return Trashed(trashed, row[_M], row[0]) if trashed else None
