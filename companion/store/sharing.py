"""What the exports need beyond the history: a group's settings and the stable ids of players and plays."""

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from sqlite_utils import Database

from companion.store.errors import StaleVersion, found
from companion.store.transactions import write_transaction


@dataclass(frozen=True)
class GroupSettings:
    """How a group's plays are shown and sent elsewhere."""

    time_zone: str | None = None  # an IANA zone ("Europe/Berlin"); None: the server's
    location: str = ""  # where the group plays, for BG Stats and BoardGameGeek
    bgg_ids: Mapping[str, int] = field(default_factory=dict)  # game slug → BoardGameGeek id the group set


@dataclass(frozen=True)
class StableIds:
    """The ids a play and its players keep through backup and restore (BG Stats' sourcePlayId …)."""

    play: str
    players: Mapping[int, str]  # player id → its stable id


def group_settings(db: Database, group_id: int) -> GroupSettings:
    """The group's settings; the defaults for a group that never changed them."""
    row = db.execute("SELECT time_zone, location, bgg_ids FROM group_settings WHERE group_id = ?",
                     [group_id]).fetchone()
    return GroupSettings(row[0], row[1], json.loads(row[2])) if row else GroupSettings()


def save_group_settings(db: Database, group_id: int, settings: GroupSettings,
                        shown: GroupSettings | None = None) -> None:
    """Store the settings; StaleVersion if they are no longer the ones ``shown`` on the page that changes
    them (another phone saved others since); None: a page that did not say."""
    with write_transaction(db):
        if shown is not None and group_settings(db, group_id) != shown:
            raise StaleVersion("Another phone changed these settings since you opened the page, so nothing "
                               "was saved. Check them and save again.")
        write_settings(db, group_id, settings)


def write_settings(db: Database, group_id: int, settings: GroupSettings) -> None:
    """Store the settings inside a write transaction the caller holds."""
    bgg_ids = json.dumps(dict(settings.bgg_ids), sort_keys=True)
    db["group_settings"].upsert({**asdict(settings), "group_id": group_id, "bgg_ids": bgg_ids}, pk="group_id")


def stable_ids(db: Database, play_id: int) -> StableIds:
    """The stable ids of a play and of the players seated in it."""
    play = found(db.execute("SELECT uid FROM plays WHERE id = ?", [play_id]).fetchone(), "play")
    players = db.execute("SELECT p.id, p.uid FROM seats s JOIN players p ON p.id = s.player_id "
                         "WHERE s.play_id = ?", [play_id]).fetchall()
    return StableIds(play[0], dict(players))
