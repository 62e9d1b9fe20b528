"""Storage: the SQLite schema, its numbered migrations and one function per query.

Every function takes a ``sqlite_utils.Database``; nothing here knows about Flask. A play is an
append-only event log; the table state is derived from it by the game rules, and the ``results``
table holds the final scores of finished plays for the history and statistics.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from companion.games.common import FINAL_EVENT, RulesError

# Join codes avoid letters and digits that look alike when read off a phone (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8
BUSY_TIMEOUT_SECONDS = 10


class StaleVersion(RulesError):
    """An edit based on a view of the play that another phone has changed since."""


class NotFound(LookupError):
    """A row that does not exist (or not in the group asked about)."""


@dataclass(frozen=True)
class Group:
    id: int
    name: str
    token: str
    join_code: str
    created_at: str


@dataclass(frozen=True)
class Player:
    id: int
    group_id: int
    name: str
    colour: str


@dataclass(frozen=True)
class SeatRow:
    seat: int
    player_id: int
    name: str
    colour: str


@dataclass(frozen=True)
class Play:
    id: int
    group_id: int
    game: str
    options: Mapping[str, Any]
    status: str  # "active" or "finished"
    started_at: str
    ended_at: str | None
    version: int
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: Mapping[str, Any]
    created_at: str


@dataclass(frozen=True)
class ResultRow:
    player_id: int
    name: str
    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class FinishedPlay:
    play: Play
    results: tuple[ResultRow, ...]


def now() -> str:
    """The current time as an ISO 8601 string in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# --- connection and migrations -------------------------------------------------------------------

def connect(path: str | Path) -> Database:
    """Open the database with the settings every connection needs."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
    db = Database(conn)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")
    return db


def _m001_initial(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE groups (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            token TEXT NOT NULL UNIQUE,
            join_code TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            colour TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX players_group_name ON players(group_id, name COLLATE NOCASE);
        CREATE TABLE plays (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
            counted INTEGER NOT NULL DEFAULT 1,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            version INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX plays_group_status_ended ON plays(group_id, status, ended_at);
        CREATE INDEX plays_group_game_ended ON plays(group_id, game, ended_at);
        CREATE TABLE seats (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            colour TEXT NOT NULL,
            PRIMARY KEY (play_id, seat),
            UNIQUE (play_id, player_id)
        );
        CREATE INDEX seats_player ON seats(player_id);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (play_id, seq)
        );
        CREATE TABLE results (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES players(id),
            total INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            breakdown TEXT NOT NULL,
            PRIMARY KEY (play_id, player_id)
        );
        CREATE INDEX results_player ON results(player_id, play_id);
        CREATE TABLE join_failures (
            id INTEGER PRIMARY KEY,
            client TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX join_failures_client_at ON join_failures(client, at);
        """
    )


MIGRATIONS: tuple[Callable[[Database], None], ...] = (_m001_initial,)


def migrate(db: Database) -> list[int]:
    """Apply the migrations not yet applied, in order; returns their numbers. Safe to run twice."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)"
    )
    done = {row[0] for row in db.execute("SELECT number FROM migrations").fetchall()}
    applied = []
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number in done:
            continue
        with write_transaction(db):
            migration(db)
            db.execute("INSERT INTO migrations VALUES (?, ?, ?)",
                       [number, migration.__name__.lstrip("_"), now()])
        applied.append(number)
    return applied


def schema_version(db: Database) -> int:
    """The number of the last migration applied (0 for a new database)."""
    if not db["migrations"].exists():
        return 0
    return db.execute("SELECT COALESCE(MAX(number), 0) FROM migrations").fetchone()[0]


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that takes the write lock at once, so that read-check-write is race free."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


# --- groups and players --------------------------------------------------------------------------

def _new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def create_group(db: Database, name: str) -> Group:
    """Create a group with a fresh invite token and join code."""
    with write_transaction(db):
        while True:  # a clash of join codes is astronomically rare; draw again if it happens
            code = _new_join_code()
            if not db.execute("SELECT 1 FROM groups WHERE join_code = ?", [code]).fetchone():
                break
        cursor = db.execute(
            "INSERT INTO groups (name, token, join_code, created_at) VALUES (?, ?, ?, ?)",
            [name, secrets.token_urlsafe(24), code, now()],
        )
        group_id = cursor.lastrowid
    return get_group(db, group_id)


def _group(row: sqlite3.Row | tuple | None) -> Group:
    if row is None:
        raise NotFound("group")
    return Group(*row)


_GROUP_COLUMNS = "id, name, token, join_code, created_at"


def get_group(db: Database, group_id: int) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id = ?", [group_id]).fetchone())


def group_by_token(db: Database, token: str) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE token = ?", [token]).fetchone())


def group_by_join_code(db: Database, code: str) -> Group:
    return _group(
        db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE join_code = ?", [code]).fetchone()
    )


def groups_by_ids(db: Database, group_ids: Sequence[int]) -> list[Group]:
    """The groups that still exist among ``group_ids``, by name."""
    if not group_ids:
        return []
    marks = ",".join("?" * len(group_ids))
    rows = db.execute(
        f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id IN ({marks}) ORDER BY name COLLATE NOCASE, id",
        list(group_ids),
    ).fetchall()
    return [Group(*row) for row in rows]


def rename_group(db: Database, group_id: int, name: str) -> None:
    with write_transaction(db):
        db.execute("UPDATE groups SET name = ? WHERE id = ?", [name, group_id])


def delete_group(db: Database, group_id: int) -> None:
    """Delete a group with its players, plays, events and results."""
    with write_transaction(db):
        # results and seats point at players too, so remove the plays first
        db.execute("DELETE FROM plays WHERE group_id = ?", [group_id])
        db.execute("DELETE FROM groups WHERE id = ?", [group_id])


def list_players(db: Database, group_id: int) -> list[Player]:
    rows = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE group_id = ? ORDER BY name COLLATE NOCASE",
        [group_id],
    ).fetchall()
    return [Player(*row) for row in rows]


def get_player(db: Database, group_id: int, player_id: int) -> Player:
    row = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE id = ? AND group_id = ?",
        [player_id, group_id],
    ).fetchone()
    if row is None:
        raise NotFound("player")
    return Player(*row)


class DuplicateName(RulesError):
    """A player name the group already has."""


def _check_free_name(db: Database, group_id: int, name: str, except_id: int | None = None) -> None:
    row = db.execute(
        "SELECT id FROM players WHERE group_id = ? AND name = ? COLLATE NOCASE AND id IS NOT ?",
        [group_id, name, except_id],
    ).fetchone()
    if row:
        raise DuplicateName(f"The group already has a player called {name}.", "name")


def add_player(db: Database, group_id: int, name: str, colour: str) -> int:
    """Add a player to a group; a name the group already has (ignoring case) is refused."""
    with write_transaction(db):
        _check_free_name(db, group_id, name)
        cursor = db.execute(
            "INSERT INTO players (group_id, name, colour, created_at) VALUES (?, ?, ?, ?)",
            [group_id, name, colour, now()],
        )
        return cursor.lastrowid


def update_player(db: Database, group_id: int, player_id: int, name: str, colour: str) -> None:
    with write_transaction(db):
        _check_free_name(db, group_id, name, except_id=player_id)
        db.execute("UPDATE players SET name = ?, colour = ? WHERE id = ? AND group_id = ?",
                   [name, colour, player_id, group_id])


# --- plays and their event logs -------------------------------------------------------------------

def start_play(
    db: Database,
    group_id: int,
    game: str,
    seats: Sequence[tuple[int, str]],
    options: Mapping[str, Any] | None = None,
) -> int:
    """Start a play with ``seats`` as (player id, colour) in turn order; returns the play id."""
    with write_transaction(db):
        for player_id, _ in seats:
            if not db.execute("SELECT 1 FROM players WHERE id = ? AND group_id = ?",
                              [player_id, group_id]).fetchone():
                raise NotFound("player")
        cursor = db.execute(
            "INSERT INTO plays (group_id, game, options, started_at) VALUES (?, ?, ?, ?)",
            [group_id, game, json.dumps(dict(options or {})), now()],
        )
        play_id = cursor.lastrowid
        db.conn.executemany(
            "INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
            [(play_id, seat, player_id, colour) for seat, (player_id, colour) in enumerate(seats)],
        )
    return play_id


def _seats(db: Database, play_id: int) -> tuple[SeatRow, ...]:
    rows = db.execute(
        "SELECT s.seat, s.player_id, p.name, s.colour FROM seats s JOIN players p ON p.id = s.player_id "
        "WHERE s.play_id = ? ORDER BY s.seat",
        [play_id],
    ).fetchall()
    return tuple(SeatRow(*row) for row in rows)


_PLAY_COLUMNS = "id, group_id, game, options, status, started_at, ended_at, version"


def _play(db: Database, row: tuple | None) -> Play:
    if row is None:
        raise NotFound("play")
    play_id, group_id, game, options, status, started_at, ended_at, version = row
    return Play(play_id, group_id, game, json.loads(options), status, started_at, ended_at, version,
                _seats(db, play_id))


def get_play(db: Database, play_id: int) -> Play:
    return _play(db, db.execute(f"SELECT {_PLAY_COLUMNS} FROM plays WHERE id = ?", [play_id]).fetchone())


def list_plays(db: Database, group_id: int, status: str, limit: int = 20) -> list[Play]:
    """Plays of a group with this status, most recent first."""
    rows = db.execute(
        f"SELECT {_PLAY_COLUMNS} FROM plays WHERE group_id = ? AND status = ? "
        "ORDER BY COALESCE(ended_at, started_at) DESC, id DESC LIMIT ?",
        [group_id, status, limit],
    ).fetchall()
    return [_play(db, row) for row in rows]


def delete_play(db: Database, play_id: int) -> None:
    with write_transaction(db):
        db.execute("DELETE FROM plays WHERE id = ?", [play_id])


def list_events(db: Database, play_id: int, after_seq: int = 0) -> list[Event]:
    """The play's events after ``after_seq``, in order."""
    rows = db.execute(
        "SELECT seq, kind, payload, created_at FROM events WHERE play_id = ? AND seq > ? ORDER BY seq",
        [play_id, after_seq],
    ).fetchall()
    return [Event(seq, kind, json.loads(payload), created_at) for seq, kind, payload, created_at in rows]


def _current_version(db: Database, play_id: int) -> tuple[int, str]:
    row = db.execute("SELECT version, status FROM plays WHERE id = ?", [play_id]).fetchone()
    if row is None:
        raise NotFound("play")
    return row


def _check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise StaleVersion(
            "Another phone changed this play since you opened it. Here is the current state: "
            "check it and try again."
        )


EventCheck = Callable[[list[Event]], None]


def append_event(
    db: Database,
    play_id: int,
    kind: str,
    payload: Mapping[str, Any],
    check: EventCheck | None = None,
    expected_version: int | None = None,
) -> int:
    """Append an event to an active play; returns the play's new version.

    ``check`` sees the events already stored (with the write lock held) and raises RulesError if the
    new event does not fit them, so two phones entering at once cannot both pass a stale check.
    ``expected_version`` refuses the event if the play changed since the phone looked at it.
    """
    with write_transaction(db):
        version, status = _current_version(db, play_id)
        _check_version(version, expected_version)
        if status != "active":
            raise RulesError("This play is finished. Undo the final tally to change it.")
        if check is not None:
            check(list_events(db, play_id))
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE play_id = ?", [play_id]).fetchone()
        db.execute(
            "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [play_id, last[0] + 1, kind, json.dumps(dict(payload)), now()],
        )
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return version + 1


def undo_last_event(db: Database, play_id: int, expected_version: int | None = None) -> Event | None:
    """Remove the play's last event and return it (None if there was none).

    Undoing the final tally reopens the play and drops its results.
    """
    with write_transaction(db):
        version, _ = _current_version(db, play_id)
        _check_version(version, expected_version)
        row = db.execute(
            "SELECT seq, kind, payload, created_at FROM events WHERE play_id = ? ORDER BY seq DESC LIMIT 1",
            [play_id],
        ).fetchone()
        if row is None:
            return None
        event = Event(row[0], row[1], json.loads(row[2]), row[3])
        db.execute("DELETE FROM events WHERE play_id = ? AND seq = ?", [play_id, event.seq])
        if event.kind == FINAL_EVENT:
            db.execute("DELETE FROM results WHERE play_id = ?", [play_id])
            db.execute("UPDATE plays SET status = 'active', ended_at = NULL WHERE id = ?", [play_id])
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return event


@dataclass(frozen=True)
class ResultInput:
    """One seat's final score as the rules computed it."""

    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


def finish_play(
    db: Database,
    play_id: int,
    payload: Mapping[str, Any],
    results: Sequence[ResultInput],
    expected_version: int | None = None,
) -> None:
    """Record the final tally as the play's last event, store the results and close the play."""
    with write_transaction(db):
        version, status = _current_version(db, play_id)
        _check_version(version, expected_version)
        if status != "active":
            raise RulesError("This play is already finished.")
        seat_players = dict(db.execute("SELECT seat, player_id FROM seats WHERE play_id = ?", [play_id]))
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE play_id = ?", [play_id]).fetchone()
        stamp = now()
        db.execute(
            "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [play_id, last[0] + 1, FINAL_EVENT, json.dumps(dict(payload)), stamp],
        )
        db.conn.executemany(
            "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
            [(play_id, seat_players[r.seat], r.total, r.rank, json.dumps(dict(r.breakdown)))
             for r in results],
        )
        db.execute(
            "UPDATE plays SET status = 'finished', ended_at = ?, version = version + 1 WHERE id = ?",
            [stamp, play_id],
        )


def play_results(db: Database, play_id: int) -> tuple[ResultRow, ...]:
    """The final scores of a finished play, by rank then seat."""
    rows = db.execute(
        "SELECT r.player_id, p.name, s.seat, r.total, r.rank, r.breakdown FROM results r "
        "JOIN players p ON p.id = r.player_id "
        "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id "
        "WHERE r.play_id = ? ORDER BY r.rank, s.seat",
        [play_id],
    ).fetchall()
    return tuple(ResultRow(pid, name, seat, total, rank, json.loads(bd))
                 for pid, name, seat, total, rank, bd in rows)


def recent_finished(db: Database, group_id: int, limit: int = 10) -> list[FinishedPlay]:
    """The group's most recently finished plays with their results."""
    return [FinishedPlay(play, play_results(db, play.id))
            for play in list_plays(db, group_id, "finished", limit)]


# --- join-code rate limit ------------------------------------------------------------------------

def record_join_failure(db: Database, client: str, at: float) -> None:
    with write_transaction(db):
        db.execute("INSERT INTO join_failures (client, at) VALUES (?, ?)", [client, at])
        # keep the table small: a day of history is more than any limit looks at
        db.execute("DELETE FROM join_failures WHERE at < ?", [at - 86400])


def count_join_failures(db: Database, client: str, since: float) -> int:
    return db.execute("SELECT COUNT(*) FROM join_failures WHERE client = ? AND at >= ?",
                      [client, since]).fetchone()[0]
