"""A whole group as one archive, for the backup and its import."""

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from companion.store import groups
from companion.store.custom_games import add_version, insert_game
from companion.store.errors import StoreError, grouped
from companion.store.plays import insert_seats
from companion.store.sharing import GroupSettings, group_settings, write_settings
from companion.store.transactions import execute_write, now, write_in_steps, write_transaction


@dataclass(frozen=True)
class ArchivedPlayer:
    name: str
    colour: str
    created_at: str
    uid: str | None = None  # the player's stable id (StableIds); None: the store gives a new one
    retired: bool = False


@dataclass(frozen=True)
class ArchivedSeat:
    player: int  # index into GroupArchive.players
    colour: str


@dataclass(frozen=True)
class ArchivedEvent:
    seq: int
    kind: str
    payload: Mapping[str, Any]
    created_at: str


@dataclass(frozen=True)
class ArchivedResult:
    player: int  # index into GroupArchive.players
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class ArchivedPlay:
    game: str
    options: Mapping[str, Any]
    status: str
    counted: bool
    started_at: str
    ended_at: str | None
    version: int
    seats: tuple[ArchivedSeat, ...]  # in seat order
    events: tuple[ArchivedEvent, ...]  # in order
    results: tuple[ArchivedResult, ...]  # in seat order; empty while the play is going on
    uid: str | None = None  # the play's stable id (StableIds); None: the store gives a new one
    first_ended_at: str | None = None  # a play finished again keeps the date it was first finished on
    # a reopened play's final tally as entered, and the play's version when it was reopened
    reopened_tally: Mapping[str, Any] | None = None
    reopened_at_version: int | None = None


@dataclass(frozen=True)
class ArchivedGame:
    """A group's own game with every version of its score sheet, keyed by the ids the group had: its
    plays name the game ``custom-<key>`` and the sheet version in their options (``"sheet": <key>``)."""

    key: int
    name: str
    bgg_id: int | None
    versions: tuple[tuple[int, Mapping[str, Any]], ...]  # (key, sheet), oldest first


@dataclass(frozen=True)
class GroupArchive:
    """Everything a group holds, with players referred to by their place in ``players``."""

    name: str
    players: tuple[ArchivedPlayer, ...]
    plays: tuple[ArchivedPlay, ...]
    games: tuple[ArchivedGame, ...] = ()
    settings: GroupSettings = field(default_factory=GroupSettings)


# a play of a group's own game names it by id (companion.games.custom.slug_for); ids change on import
_OWN_GAME_PREFIX = "custom-"
_SHEET_OPTION = "sheet"


def _archived_games(db: Database, group_id: int) -> tuple[ArchivedGame, ...]:
    versions = grouped(db.execute(
        "SELECT v.game_id, v.id, v.sheet FROM group_game_versions v JOIN group_games g ON g.id = v.game_id "
        "WHERE g.group_id = ? ORDER BY v.id", [group_id]),
        lambda version_id, sheet: (version_id, json.loads(sheet)))
    return tuple(ArchivedGame(game_id, name, bgg_id, tuple(versions.get(game_id, ())))
                 for game_id, name, bgg_id in db.execute(
                     "SELECT id, name, bgg_id FROM group_games WHERE group_id = ? ORDER BY id", [group_id]))


def _restore_games(db: Database, group_id: int, games: tuple[ArchivedGame, ...]) -> dict[str, Any]:
    """Insert the group's own games; the new slug and sheet ids, keyed by the archived ones."""
    slugs: dict[str, str] = {}
    sheets: dict[int, int] = {}
    for game in games:
        game_id = insert_game(db, group_id, game.name, game.bgg_id)
        slugs[f"{_OWN_GAME_PREFIX}{game.key}"] = f"{_OWN_GAME_PREFIX}{game_id}"
        for key, sheet in game.versions:
            sheets[key] = add_version(db, game_id, sheet)
    return {"slugs": slugs, "sheets": sheets}


def _renamed(play: ArchivedPlay, renames: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The play's game slug and options with its own game's new ids."""
    options = dict(play.options)
    if play.game in renames["slugs"] and options.get(_SHEET_OPTION) in renames["sheets"]:
        options[_SHEET_OPTION] = renames["sheets"][options[_SHEET_OPTION]]
    return renames["slugs"].get(play.game, play.game), options


def dump_group(db: Database, group_id: int) -> GroupArchive:
    """The whole group: players, plays with options, seats, events, results and counted flags."""
    group = groups.get_group(db, group_id)
    players = db.execute("SELECT id, name, colour, created_at, uid, retired FROM players WHERE group_id = ? "
                         "ORDER BY id", [group_id]).fetchall()
    index = {row[0]: n for n, row in enumerate(players)}
    seats = grouped(db.execute(
        "SELECT s.play_id, s.player_id, s.colour FROM seats s JOIN plays p ON p.id = s.play_id "
        "WHERE p.group_id = ? ORDER BY s.play_id, s.seat", [group_id]),
        lambda player_id, colour: ArchivedSeat(index[player_id], colour))
    events = grouped(db.execute(
        "SELECT e.play_id, e.seq, e.kind, e.payload, e.created_at FROM events e JOIN plays p "
        "ON p.id = e.play_id WHERE p.group_id = ? ORDER BY e.play_id, e.seq", [group_id]),
        lambda seq, kind, payload, created_at: ArchivedEvent(seq, kind, json.loads(payload), created_at))
    results = grouped(db.execute(
        "SELECT r.play_id, r.player_id, r.total, r.rank, r.breakdown FROM results r JOIN seats s "
        "ON s.play_id = r.play_id AND s.player_id = r.player_id JOIN plays p ON p.id = r.play_id "
        "WHERE p.group_id = ? ORDER BY r.play_id, s.seat", [group_id]),
        lambda player_id, total, rank, breakdown: ArchivedResult(index[player_id], total, rank,
                                                                 json.loads(breakdown)))
    plays = tuple(
        ArchivedPlay(game, json.loads(options), status, bool(counted), started_at, ended_at, version,
                     tuple(seats.get(play_id, ())), tuple(events.get(play_id, ())),
                     tuple(results.get(play_id, ())), uid, first_ended_at,
                     None if reopened is None else json.loads(reopened), reopened_at_version)
        for (play_id, game, options, status, counted, started_at, ended_at, version, uid, first_ended_at,
             reopened, reopened_at_version) in db.execute(
            "SELECT id, game, options, status, counted, started_at, ended_at, version, uid, first_ended_at, "
            "reopened_tally, reopened_at_version FROM plays WHERE group_id = ? AND deleted_at IS NULL "
            "ORDER BY id", [group_id]).fetchall())
    return GroupArchive(group.name, tuple(ArchivedPlayer(*row[1:5], bool(row[5])) for row in players), plays,
                        _archived_games(db, group_id), group_settings(db, group_id))


def restore_group(db: Database, archive: GroupArchive) -> groups.Group:
    """Create a new group holding exactly what the checked ``archive`` holds (``exchange.backup``): all of
    it or, on a StoreError (two players that are one, a clash the database finds), nothing. Written in
    short transactions so that other groups' writes never wait long: the group is made in the trash
    (nothing finds it), its plays added in steps, then it leaves the trash. A failed import removes what
    it wrote, in steps too; one cut off by the process dying is left to the trash's purge."""
    group_id = _restore(db, archive, lambda: groups.insert_group(db, archive.name, deleted_at=now()))
    return groups.get_group(db, group_id)


def restore_group_on_phone(db: Database, archive: GroupArchive,
                           request_id: str | None = None) -> groups.Membership:
    """``restore_group``, with the membership of the phone that imports it made in the first transaction,
    which notes the phone's request id: ``RepeatedCreation`` for an id sent before, so that a backup sent
    twice (a second tap while it uploads, a resend after a lost answer) is imported once."""
    group_id = _restore(db, archive, lambda: groups.insert_group_on_phone(
        db, archive.name, request_id, deleted_at=now()).group_id)
    [membership] = groups.list_memberships(db, group_id)  # no other phone has the new group's invite yet
    return membership


def _restore(db: Database, archive: GroupArchive, insert_group: Callable[[], int]) -> int:
    """The id of the group ``insert_group`` makes (in the trash) in the first transaction, filled with
    ``archive`` (see ``restore_group``)."""
    groups.check_distinct_names([p.name for p in archive.players])
    group_id = None
    try:
        with write_transaction(db):
            group_id = insert_group()
            player_ids = [groups.insert_player(db, group_id, player.name, player.colour,
                                               created_at=player.created_at, uid=player.uid,
                                               retired=player.retired)
                          for player in archive.players]
            renames = _restore_games(db, group_id, archive.games)
            write_settings(db, group_id, archive.settings)
        write_in_steps(db, archive.plays, lambda play: _restore_play(db, group_id, play, player_ids, renames))
        execute_write(db, "UPDATE groups SET deleted_at = NULL WHERE id = ?", [group_id])
    except BaseException as error:
        if group_id is not None:
            groups.delete_group(db, group_id)
        if isinstance(error, sqlite3.IntegrityError):
            raise StoreError("The backup does not fit together (%(error)s); nothing was imported.",
                             error=str(error)) from None
        raise
    return group_id


def _restore_play(db: Database, group_id: int, play: ArchivedPlay, player_ids: Sequence[int],
                  renames: Mapping) -> None:
    game, options = _renamed(play, renames)
    reopened = None if play.reopened_tally is None else json.dumps(dict(play.reopened_tally))
    # plain SQL: sqlite-utils' insert reads the table's columns on each call, five times as long for a
    # play, and a large backup restores tens of thousands of them while other groups wait to write
    play_id = db.execute(
        "INSERT INTO plays (group_id, game, options, status, counted, started_at, ended_at, version, uid, "
        "first_ended_at, reopened_tally, reopened_at_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [group_id, game, json.dumps(options), play.status, int(play.counted), play.started_at, play.ended_at,
         play.version, play.uid, play.first_ended_at, reopened, play.reopened_at_version],
    ).lastrowid
    insert_seats(db, play_id, [(player_ids[s.player], s.colour) for s in play.seats])
    db.conn.executemany(
        "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
        [(play_id, e.seq, e.kind, json.dumps(dict(e.payload)), e.created_at) for e in play.events])
    db.conn.executemany(
        "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
        [(play_id, player_ids[r.player], r.total, r.rank, json.dumps(dict(r.breakdown)))
         for r in play.results])
