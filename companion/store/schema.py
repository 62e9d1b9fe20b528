"""The schema, its numbered migrations, connections and write transactions."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

from sqlite_utils import Database

from companion.messages import Refused

BUSY_TIMEOUT_SECONDS = 10
# A connection in a writers' queue copies the write-ahead log into the database file after this many
# of its process's commits (about what SQLite's default of 1,000 pages comes to for entries)
CHECKPOINT_EVERY = 200
# The write-ahead log is restarted once it holds this many pages (``_checkpoint_if_due``), and its file
# then shrinks to their size (of SQLite's default page, 4 KB): 16 MB
LOG_RESTART_PAGES = 4096
LOG_SIZE_LIMIT = LOG_RESTART_PAGES * 4096
LOG_RESTART_WAIT_SECONDS = 0.05  # how long the restart waits for the readers of the log

class StoreError(Refused):
    """A change the stored data does not allow (a finished play, a clash); its message is for a person."""


class StaleVersion(StoreError):
    """An edit based on a view of the play that another phone has changed since."""


class NotFound(LookupError):
    """A row that does not exist (or not in the group asked about)."""

def now() -> str:
    """The current time as an ISO 8601 string in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# --- connection and migrations -------------------------------------------------------------------

@contextlib.contextmanager
def owner_only_files() -> Iterator[None]:
    """Files created inside are readable and writable by their owner only (umask 077).

    The umask is set before the files exist rather than their mode changed after: there is no moment
    in which another user of the machine could open them.
    """
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def connect(path: str | Path) -> Database:
    """Open the database with the settings every connection needs.

    The first connection creates the file, readable by its owner only; SQLite gives the ``-wal`` and
    ``-shm`` files it creates later the database file's permissions.

    The connection is in autocommit mode (no implicit transactions): a read is its own short
    transaction, so a connection kept open for many requests never holds on to an old snapshot, and
    writes group their statements explicitly with ``write_transaction``.
    """
    with owner_only_files() if not os.path.exists(path) else contextlib.nullcontext():
        conn = _open(path, BUSY_TIMEOUT_SECONDS)
        # no sqlite-utils plugins, no recursive triggers (the statistics triggers never recurse)
        db = Database(conn, recursive_triggers=False, execute_plugins=False)
        db.execute("PRAGMA schema_version").fetchone()  # makes SQLite create the file now
    queue = _writers[db] = WriterQueue.of(path)
    if queue is not None:
        # SQLite's own checkpoint would run inside the commit, so inside the writers' turn and with
        # every other writer waiting on it; ``write_transaction`` runs it after the turn instead
        db.execute("PRAGMA wal_autocheckpoint = 0")
    return db


def _open(path: str | Path, busy_timeout: float) -> sqlite3.Connection:
    """A connection in autocommit mode with the settings every connection needs; ``busy_timeout`` is
    SQLite's (seconds)."""
    conn = sqlite3.connect(str(path), timeout=busy_timeout, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    # with WAL, a commit is safe from a crash of the app or of the process without waiting for the
    # disk; only a power loss or a crash of the machine can lose the last commits before the next
    # checkpoint (docs/deploy.md says so)
    conn.execute("PRAGMA synchronous = NORMAL")
    # the log is restarted after a checkpoint (``_checkpoint_if_due``); then its file shrinks to this
    conn.execute(f"PRAGMA journal_size_limit = {LOG_SIZE_LIMIT}")
    return conn


def connect_read_only(path: str | Path) -> Database:
    """Open an existing database for reading only; sqlite3.Error if it is missing or unreadable."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    return Database(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False),
                    execute_plugins=False)


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


# Upserts into the statistics' running sums (row_points, rivalries): add to a row that exists.
_ADD_POINTS = "ON CONFLICT (group_id, game, player_id, row) DO UPDATE SET points = points + excluded.points"
_ADD_PAIRS = ("ON CONFLICT (group_id, game, player_id, opponent_id) DO UPDATE SET "
              "ahead = ahead + excluded.ahead, together = together + excluded.together")


def _m002_statistics(db: Database) -> None:
    """Indexes, copies and running sums that turn the group statistics into plain index scans.

    - Each result row carries a copy of its play's group, game, counted flag and end time, so a
      player's results come out of one index in time order (streaks need neither sort nor join).
    - ``row_points`` keeps each player's sum per breakdown row and game over the counted plays, so the
      average breakdown needs no JSON parsing when the page is shown.
    - ``rivalries`` keeps, per game, how often each player finished ahead of each other player and how
      often they played together: the self-join on results, done once per play as it is stored.
    Triggers keep all three right on every write: finishing, correcting, undoing, counting, deleting
    and importing. A result row's triggers see its play's other results (row triggers run per row).
    """
    for statement in (
        "ALTER TABLE results ADD COLUMN group_id INTEGER",
        "ALTER TABLE results ADD COLUMN game TEXT",
        "ALTER TABLE results ADD COLUMN counted INTEGER",
        "ALTER TABLE results ADD COLUMN ended_at TEXT",
        "UPDATE results SET (group_id, game, counted, ended_at) = "
        "(SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = results.play_id)",
        "CREATE INDEX results_by_game "
        "ON results(group_id, counted, game, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX results_by_player "
        "ON results(group_id, counted, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX plays_statistics ON plays(group_id, status, counted, game, ended_at)",
        """CREATE TABLE row_points (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            row TEXT NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, player_id, row)
        )""",
        """CREATE TABLE rivalries (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            opponent_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            ahead INTEGER NOT NULL,  -- plays in which player_id finished ahead of opponent_id
            together INTEGER NOT NULL,  -- plays they both took part in
            PRIMARY KEY (group_id, game, player_id, opponent_id)
        )""",
        "INSERT INTO row_points (group_id, game, player_id, row, points) "
        "SELECT r.group_id, r.game, r.player_id, j.key, SUM(j.value) "
        "FROM results r, json_each(r.breakdown) j WHERE r.counted = 1 "
        "GROUP BY r.group_id, r.game, r.player_id, j.key",
        "INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together) "
        "SELECT a.group_id, a.game, a.player_id, b.player_id, SUM(a.rank < b.rank), COUNT(*) "
        "FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id "
        "WHERE a.counted = 1 GROUP BY a.group_id, a.game, a.player_id, b.player_id",
        f"""CREATE TRIGGER results_statistics_insert AFTER INSERT ON results
        BEGIN
            UPDATE results SET (group_id, game, counted, ended_at) =
                (SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = NEW.play_id)
            WHERE play_id = NEW.play_id AND player_id = NEW.player_id;
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT p.group_id, p.game, NEW.player_id, j.key, j.value
            FROM plays p, json_each(NEW.breakdown) j WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT p.group_id, p.game, pair.player_id, pair.opponent_id, pair.ahead, 1
            FROM plays p, (
                SELECT NEW.player_id AS player_id, o.player_id AS opponent_id, NEW.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
                UNION ALL
                SELECT o.player_id, NEW.player_id, o.rank < NEW.rank
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
            ) AS pair
            WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_PAIRS};
        END""",
        # the copies on OLD, not the play: deleting a play removes its results after the play row
        f"""CREATE TRIGGER results_statistics_delete AFTER DELETE ON results WHEN OLD.counted = 1
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, OLD.player_id, j.key, -j.value FROM json_each(OLD.breakdown) j
            WHERE true
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, pair.player_id, pair.opponent_id, -pair.ahead, -1
            FROM (
                SELECT OLD.player_id AS player_id, o.player_id AS opponent_id, OLD.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = OLD.play_id
                UNION ALL
                SELECT o.player_id, OLD.player_id, o.rank < OLD.rank
                FROM results o WHERE o.play_id = OLD.play_id
            ) AS pair
            WHERE true
            {_ADD_PAIRS};
        END""",
        f"""CREATE TRIGGER plays_statistics_update AFTER UPDATE OF group_id, game, counted, ended_at ON plays
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, r.player_id, j.key, -j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = OLD.id AND OLD.counted = 1
            {_ADD_POINTS};
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT NEW.group_id, NEW.game, r.player_id, j.key, j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = NEW.id AND NEW.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, a.player_id, b.player_id, -(a.rank < b.rank), -1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = OLD.id AND OLD.counted = 1
            {_ADD_PAIRS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT NEW.group_id, NEW.game, a.player_id, b.player_id, a.rank < b.rank, 1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = NEW.id AND NEW.counted = 1
            {_ADD_PAIRS};
            UPDATE results SET group_id = NEW.group_id, game = NEW.game, counted = NEW.counted,
                               ended_at = NEW.ended_at
            WHERE play_id = NEW.id;
        END""",
    ):
        db.execute(statement)


def _m003_reopened_tally(db: Database) -> None:
    """What a reopened play's undone final tally held, so that finishing it again starts from there.

    ``reopened_tally`` is the undone final event's payload (JSON), ``reopened_at_version`` the play's
    version right after the undo (a later version means the play changed since), and
    ``first_ended_at`` the end time the play keeps when it is finished again.
    """
    for column in ("reopened_tally TEXT", "reopened_at_version INTEGER", "first_ended_at TEXT"):
        db.execute(f"ALTER TABLE plays ADD COLUMN {column}")


def _m004_retired_players(db: Database) -> None:
    """A retired player is left out of new plays and kept in the history."""
    db.execute("ALTER TABLE players ADD COLUMN retired INTEGER NOT NULL DEFAULT 0")


def _m005_group_games(db: Database) -> None:
    """Any other game a group plays: its definition, and each version of its score sheet.

    A play of such a game has the slug ``custom-<group game id>`` and keeps the id of the sheet
    version it was scored with in its options, so editing the sheet never changes old plays.
    """
    db.executescript(
        """
        CREATE TABLE group_games (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            bgg_id INTEGER,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX group_games_name ON group_games(group_id, name COLLATE NOCASE);
        CREATE TABLE group_game_versions (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES group_games(id) ON DELETE CASCADE,
            sheet TEXT NOT NULL,  -- JSON, read by companion.games.custom.parse_sheet
            created_at TEXT NOT NULL
        );
        CREATE INDEX group_game_versions_game ON group_game_versions(game_id, id);
        """
    )


def _rebuild_with_autoincrement(db: Database, table: str) -> None:
    """Rebuild ``table`` so that its ``id`` is AUTOINCREMENT: an id once used is never handed out again.

    SQLite's plain rowid ids reuse the largest id after it is deleted, so a new group could take the id
    of a deleted one. This follows SQLite's twelve-step recipe: the table is built anew from its own
    stored definition (columns added by later migrations included), its rows copied with their ids,
    and its indexes and triggers (and other tables' triggers that name it) put back as they were.
    Runs with foreign keys off (see ``migrate``), so that dropping the old table cascades nowhere.
    """
    definition = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                            [table]).fetchone()[0]
    new_definition, count = re.subn(r"\bid INTEGER PRIMARY KEY\b(?! AUTOINCREMENT)",
                                    "id INTEGER PRIMARY KEY AUTOINCREMENT", definition, count=1)
    if count != 1:
        raise RuntimeError(f"{table} has no plain integer id to rebuild")
    new_definition = re.sub(rf"^CREATE TABLE \"?{table}\"?", f"CREATE TABLE new_{table}", new_definition)
    dependants = db.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> ? AND "
        "(tbl_name = ? OR (type = 'trigger' AND sql LIKE ?))",
        [table, table, f"%{table}%"],
    ).fetchall()
    triggers = [(name, sql) for kind, name, sql in dependants
                if kind == "trigger" and re.search(rf"\b{table}\b", sql)]
    indexes = [sql for kind, _name, sql in dependants if kind == "index"]
    for name, _sql in triggers:
        db.execute(f'DROP TRIGGER "{name}"')
    columns = ", ".join(f'"{column}"' for _cid, column, *_rest in db.execute(f'PRAGMA table_info("{table}")'))
    db.execute(new_definition)
    db.execute(f'INSERT INTO "new_{table}" ({columns}) SELECT {columns} FROM "{table}"')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE "new_{table}" RENAME TO "{table}"')
    for sql in indexes:
        db.execute(sql)
    for _name, sql in triggers:
        db.execute(sql)


def _m006_private_groups(db: Database) -> None:
    """Group and play ids that are never reused, memberships on the server, and a trash.

    - ``groups`` and ``plays`` become AUTOINCREMENT: a phone that kept a deleted group's id can never
      find a later group under it.
    - ``memberships``: a phone's place in a group. The phone's signed cookie carries only the random
      tokens of its memberships; a membership is checked against the group it was made for.
    - ``deleted_at`` on groups and plays: deleting moves them to a trash for 30 days. A play in the
      trash counts in no statistics: the statistics triggers treat it like a play left out of them.
    """
    _rebuild_with_autoincrement(db, "groups")
    _rebuild_with_autoincrement(db, "plays")
    for statement in (
        "ALTER TABLE groups ADD COLUMN deleted_at TEXT",
        "ALTER TABLE plays ADD COLUMN deleted_at TEXT",
        "CREATE INDEX groups_deleted ON groups(deleted_at) WHERE deleted_at IS NOT NULL",
        "CREATE INDEX plays_deleted ON plays(group_id, deleted_at) WHERE deleted_at IS NOT NULL",
        """CREATE TABLE memberships (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            token TEXT NOT NULL UNIQUE,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL DEFAULT '',
            joined_at TEXT NOT NULL,
            last_seen TEXT NOT NULL
        )""",
        "CREATE INDEX memberships_group ON memberships(group_id)",
        # the join-code limit also counts every address's wrong codes together
        "CREATE INDEX join_failures_at ON join_failures(at)",
    ):
        db.execute(statement)
    _count_only_plays_outside_the_trash(db)


def _count_only_plays_outside_the_trash(db: Database) -> None:
    """Make the statistics triggers of ``_m002_statistics`` treat a play in the trash as not counted.

    The triggers are the same text with "counted" read as "counted and not in the trash", and the
    play's trigger also fires when ``deleted_at`` changes. ``results.counted`` (the copy the
    statistics read) follows.
    """
    rewrites = (
        ("p.counted = 1", "p.counted = 1 AND p.deleted_at IS NULL"),
        ("OLD.counted = 1", "OLD.counted = 1 AND OLD.deleted_at IS NULL"),
        ("NEW.counted = 1", "NEW.counted = 1 AND NEW.deleted_at IS NULL"),
        ("SELECT group_id, game, counted, ended_at FROM plays",
         "SELECT group_id, game, counted AND deleted_at IS NULL, ended_at FROM plays"),
        ("counted = NEW.counted", "counted = NEW.counted AND NEW.deleted_at IS NULL"),
        ("AFTER UPDATE OF group_id, game, counted, ended_at ON plays",
         "AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays"),
    )
    for name in ("results_statistics_insert", "plays_statistics_update"):
        sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                         [name]).fetchone()[0]
        for old, new in rewrites:
            sql = sql.replace(old, new)
        db.execute(f"DROP TRIGGER {name}")
        db.execute(sql)
    db.execute("UPDATE results SET counted = (SELECT counted AND deleted_at IS NULL FROM plays "
               "WHERE plays.id = results.play_id)")


_RANDOM_UID = "lower(hex(randomblob(16)))"


def _m007_group_settings_and_stable_ids(db: Database) -> None:
    """A group's settings for its exports, and an id per player and play that a backup keeps.

    ``group_settings`` holds the time zone the exports show times in (NULL: the server's), where the
    group plays, and BoardGameGeek ids the group set for games the companion has none for (JSON).
    ``uid`` is a random id that outlives backup and restore, so an app that got a play before (BG
    Stats) matches it when it is sent again instead of keeping it twice; a trigger gives every new row one.
    """
    for statement in (
        """CREATE TABLE group_settings (
            group_id INTEGER PRIMARY KEY REFERENCES groups(id) ON DELETE CASCADE,
            time_zone TEXT,
            location TEXT NOT NULL DEFAULT '',
            bgg_ids TEXT NOT NULL DEFAULT '{}'
        )""",
        "ALTER TABLE players ADD COLUMN uid TEXT",
        "ALTER TABLE plays ADD COLUMN uid TEXT",
        f"UPDATE players SET uid = {_RANDOM_UID}",
        f"UPDATE plays SET uid = {_RANDOM_UID}",
        f"""CREATE TRIGGER players_uid AFTER INSERT ON players WHEN NEW.uid IS NULL
        BEGIN
            UPDATE players SET uid = {_RANDOM_UID} WHERE id = NEW.id;
        END""",
        f"""CREATE TRIGGER plays_uid AFTER INSERT ON plays WHEN NEW.uid IS NULL
        BEGIN
            UPDATE plays SET uid = {_RANDOM_UID} WHERE id = NEW.id;
        END""",
    ):
        db.execute(statement)


def _m008_ratings(db: Database) -> None:
    """Skill ratings per player per game and overall, kept per rated play, and where they went stale.

    ``ratings`` holds each player's rating after each counted play (scope: the game's slug, or '' for
    every game). Triggers note in ``ratings_stale`` the earliest play a change touched (finishing,
    correcting, reopening, deleting, counting, importing); the ratings are computed again from there
    the next time they are shown.
    """
    db.executescript(
        """
        CREATE TABLE ratings (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            scope TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            ended_at TEXT NOT NULL,
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            change REAL NOT NULL,  -- of mu - 3 sigma, by this play
            plays INTEGER NOT NULL,  -- rated plays of this player in this scope so far
            PRIMARY KEY (group_id, scope, player_id, ended_at, play_id)
        );
        CREATE INDEX ratings_by_play ON ratings(group_id, scope, ended_at, play_id);
        CREATE INDEX ratings_of_play ON ratings(play_id);
        CREATE TABLE ratings_stale (
            group_id INTEGER PRIMARY KEY REFERENCES groups(id) ON DELETE CASCADE,
            since TEXT NOT NULL
        );
        CREATE TRIGGER results_ratings_insert AFTER INSERT ON results
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT p.group_id, p.ended_at FROM plays p WHERE p.id = NEW.play_id AND p.ended_at IS NOT NULL
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        CREATE TRIGGER results_ratings_delete AFTER DELETE ON results WHEN OLD.ended_at IS NOT NULL
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT OLD.group_id, OLD.ended_at WHERE EXISTS (SELECT 1 FROM groups WHERE id = OLD.group_id)
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        CREATE TRIGGER plays_ratings_update AFTER UPDATE OF counted, ended_at ON plays
        WHEN COALESCE(OLD.ended_at, NEW.ended_at) IS NOT NULL
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT NEW.group_id,
                   MIN(COALESCE(OLD.ended_at, NEW.ended_at), COALESCE(NEW.ended_at, OLD.ended_at))
            WHERE true
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        """
    )


def _in_utc(stamp: str) -> str:
    """A stored moment as the companion writes it (UTC, ``+00:00``); a stamp without offset counts as UTC."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return stamp
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).isoformat()


def _m009_times_in_utc(db: Database) -> None:
    """Every stored time in UTC with its offset, as the companion writes them.

    Backups imported before the import checked times could bring stamps without an offset (which the
    statistics cannot compare with the others) or with another offset (which sort wrongly as text).
    Changing a play's end runs the statistics trigger, which moves its results' copy along.
    """
    for table, column in (("plays", "started_at"), ("plays", "ended_at"), ("plays", "first_ended_at"),
                          ("events", "created_at"), ("players", "created_at")):
        rows = db.execute(f"SELECT id, {column} FROM {table} "
                          f"WHERE {column} IS NOT NULL AND {column} NOT LIKE '%+00:00'").fetchall()
        for row_id, stamp in rows:
            if _in_utc(stamp) != stamp:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", [_in_utc(stamp), row_id])


def _m010_request_ids(db: Database) -> None:
    """The request ids of phones' writes, so that a write sent twice (an offline resend) is stored once."""
    for statement in (
        """CREATE TABLE seen_requests (
            request_id TEXT PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            play_id INTEGER REFERENCES plays(id) ON DELETE CASCADE,
            at TEXT NOT NULL
        )""",
        "CREATE INDEX seen_requests_at ON seen_requests(at)",
        "CREATE INDEX seen_requests_play ON seen_requests(play_id)",
        "CREATE INDEX seen_requests_group ON seen_requests(group_id)",
    ):
        db.execute(statement)


def _m011_event_versions(db: Database) -> None:
    """Each event keeps the play version it brought, so a table folded up to an event can be trusted
    as long as that event is still in the log (an undone and re-entered event has a new version)."""
    db.execute("ALTER TABLE events ADD COLUMN version INTEGER NOT NULL DEFAULT 0")


# A month's sums of each player's scores in one game (the scores-over-time chart): add to a row that exists.
_ADD_MONTH = ("ON CONFLICT (group_id, game, player_id, month) DO UPDATE SET "
              "results = results + excluded.results, points = points + excluded.points")
# A player's record must be brought up to date before it is read (see store.history): ``pending``
# counts results added since (when they all came after the record's last play it just goes on from
# there), ``stale`` = 2 asks for a recount from that player's results.
_MARK_RECORD = ("ON CONFLICT (group_id, game, player_id) DO UPDATE SET "
                "pending = pending + excluded.pending, stale = MAX(stale, excluded.stale)")


def _m012_kept_statistics(db: Database) -> None:
    """Records kept per player and game, counts per game and sums per game and month.

    So that the statistics page reads a few rows per player and game instead of every result:
    - ``player_records``: per group, game (a slug; '' for all games together) and player the counted
      plays, wins, points, best, worst, streaks and the last play they continue from. The triggers only
      mark a record as behind; the statistics bring marked records up to date before reading them,
      going on from the last play when only later results were added, else recounting that one record.
    - ``game_records``: per group and game the finished plays, the counted ones and the latest end.
    A play in the trash counts as left out, as in ``_count_only_plays_outside_the_trash``.
    - ``monthly_scores``: per group, game, player and month (YYYY-MM) the counted results and points.
    """
    for statement in (
        """CREATE TABLE player_records (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,  -- a game's slug, or '' for all games together
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            plays INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            points INTEGER NOT NULL DEFAULT 0,
            best INTEGER,
            worst INTEGER,
            current_streak INTEGER NOT NULL DEFAULT 0,
            longest_streak INTEGER NOT NULL DEFAULT 0,
            last_ended_at TEXT NOT NULL DEFAULT '',  -- the latest counted play: its end and id
            last_play_id INTEGER NOT NULL DEFAULT 0,
            pending INTEGER NOT NULL DEFAULT 0,
            stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (group_id, game, player_id)
        )""",
        "CREATE INDEX player_records_stale ON player_records(group_id) WHERE stale > 0",
        """CREATE TABLE game_records (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            finished INTEGER NOT NULL,  -- counted or not (outside the trash)
            plays INTEGER NOT NULL,  -- counted
            latest TEXT,  -- when a counted play of it was last finished
            PRIMARY KEY (group_id, game)
        )""",
        """CREATE TABLE monthly_scores (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            month TEXT NOT NULL,
            results INTEGER NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, player_id, month)
        )""",
        # fill them from what is stored; the records are counted when the statistics are first shown
        "INSERT INTO player_records (group_id, game, player_id, stale) "
        "SELECT DISTINCT group_id, game, player_id, 2 FROM results WHERE counted = 1 "
        "UNION SELECT DISTINCT group_id, '', player_id, 2 FROM results WHERE counted = 1",
        "INSERT INTO game_records (group_id, game, finished, plays, latest) "
        "SELECT group_id, game, SUM(status = 'finished' AND deleted_at IS NULL), "
        "SUM(status = 'finished' AND counted = 1 AND deleted_at IS NULL), "
        "MAX(CASE WHEN status = 'finished' AND counted = 1 AND deleted_at IS NULL THEN ended_at END) "
        "FROM plays GROUP BY group_id, game",
        "INSERT INTO monthly_scores (group_id, game, player_id, month, results, points) "
        "SELECT group_id, game, player_id, substr(ended_at, 1, 7), COUNT(*), SUM(total) FROM results "
        "WHERE counted = 1 AND ended_at IS NOT NULL "
        "GROUP BY group_id, game, player_id, substr(ended_at, 1, 7)",
        # results: a new one marks its player's records; its month counts once its play has ended
        f"""CREATE TRIGGER results_records_insert AFTER INSERT ON results
        BEGIN
            INSERT INTO player_records (group_id, game, player_id, pending, stale)
            SELECT p.group_id, scope.game, NEW.player_id, 1, 1
            FROM plays p, (SELECT p2.game AS game FROM plays p2 WHERE p2.id = NEW.play_id UNION ALL SELECT '')
                 AS scope
            WHERE p.id = NEW.play_id AND p.counted = 1 AND p.deleted_at IS NULL
            {_MARK_RECORD};
            INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT p.group_id, p.game, NEW.player_id, substr(p.ended_at, 1, 7), 1, NEW.total
            FROM plays p WHERE p.id = NEW.play_id AND p.counted = 1 AND p.deleted_at IS NULL
                               AND p.ended_at IS NOT NULL
            {_ADD_MONTH};
        END""",
        # (the copies on OLD, not the play: deleting a play removes its results after the play row)
        f"""CREATE TRIGGER results_records_delete AFTER DELETE ON results WHEN OLD.counted = 1
        BEGIN
            UPDATE player_records SET stale = 2
            WHERE group_id = OLD.group_id AND game IN (OLD.game, '') AND player_id = OLD.player_id;
            INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT OLD.group_id, OLD.game, OLD.player_id, substr(OLD.ended_at, 1, 7), -1, -OLD.total
            WHERE OLD.ended_at IS NOT NULL
            {_ADD_MONTH};
        END""",
        # a play counted or left out (or put in the trash or back), moved, or given another end:
        # recount its players' records
        f"""CREATE TRIGGER plays_records_update
        AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays
        WHEN OLD.counted IS NOT NEW.counted OR OLD.game IS NOT NEW.game OR OLD.group_id IS NOT NEW.group_id
             OR (OLD.ended_at IS NOT NULL AND OLD.ended_at IS NOT NEW.ended_at)
             OR OLD.deleted_at IS NOT NEW.deleted_at
        BEGIN
            UPDATE player_records SET stale = 2
            WHERE group_id = OLD.group_id AND game IN (OLD.game, '')
              AND player_id IN (SELECT player_id FROM results WHERE play_id = OLD.id);
            INSERT INTO player_records (group_id, game, player_id, stale)
            SELECT NEW.group_id, scope.game, r.player_id, 2
            FROM results r, (SELECT NEW.game AS game UNION ALL SELECT '') AS scope
            WHERE r.play_id = NEW.id AND NEW.counted = 1 AND NEW.deleted_at IS NULL
            {_MARK_RECORD};
        END""",
        f"""CREATE TRIGGER plays_months_update
        AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays
        BEGIN
            {_month_sums("OLD", -1)}
            {_month_sums("NEW", 1)}
        END""",
    ):
        db.execute(statement)
    # a play's part in its game's counts: finished, finished and counted
    for event, row, sign in (("INSERT", "NEW", 1), ("DELETE", "OLD", -1)):
        db.execute(f"""CREATE TRIGGER plays_game_records_{event.lower()} AFTER {event} ON plays
        BEGIN
            {_game_count(row, sign)}
        END""")
    db.execute(f"""CREATE TRIGGER plays_game_records_update
        AFTER UPDATE OF group_id, game, status, counted, ended_at, deleted_at ON plays
        BEGIN
            {_game_count("OLD", -1)}
            {_game_count("NEW", 1)}
        END""")


def _month_sums(row: str, sign: int) -> str:
    """A trigger statement adding (sign 1) or taking away (-1) the play ``row``'s results in its month."""
    return f"""INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT {row}.group_id, {row}.game, r.player_id, substr({row}.ended_at, 1, 7),
                   {sign}, {sign} * r.total
            FROM results r WHERE r.play_id = {row}.id AND {row}.counted = 1 AND {row}.deleted_at IS NULL
                                 AND {row}.ended_at IS NOT NULL
            {_ADD_MONTH};"""


def _game_count(row: str, sign: int) -> str:
    """Trigger statements adding (sign 1) or taking away (-1) the play ``row`` in its game's counts."""
    return f"""INSERT INTO game_records (group_id, game, finished, plays)
            SELECT {row}.group_id, {row}.game,
                   {sign} * ({row}.status = 'finished' AND {row}.deleted_at IS NULL),
                   {sign} * ({row}.status = 'finished' AND {row}.counted = 1 AND {row}.deleted_at IS NULL)
            WHERE {row}.status = 'finished'
            ON CONFLICT (group_id, game) DO UPDATE SET finished = finished + excluded.finished,
                                                       plays = plays + excluded.plays;
            UPDATE game_records SET latest = (
                SELECT MAX(ended_at) FROM plays WHERE group_id = {row}.group_id AND status = 'finished'
                AND counted = 1 AND game = {row}.game AND deleted_at IS NULL)
            WHERE group_id = {row}.group_id AND game = {row}.game;"""


def _m013_results_by_end(db: Database) -> None:
    """An index on the results' end time within a group, so statistics over a period read only its plays."""
    db.execute("CREATE INDEX results_by_end ON results(group_id, counted, ended_at)")


# What a group's page shows, per table: how a row names its group, and the columns that show.
_GROUP_PAGE_ROWS = (
    ("players", "{row}.group_id", "name, colour, retired"),
    ("plays", "{row}.group_id", "game, status, started_at, ended_at, deleted_at"),
    ("seats", "(SELECT group_id FROM plays WHERE id = {row}.play_id)", "seat, player_id, colour"),
    ("results", "(SELECT group_id FROM plays WHERE id = {row}.play_id)", "player_id, total, rank"),
    ("group_games", "{row}.group_id", "name"),
    ("memberships", "{row}.group_id", "name, last_seen"),
)


def _m014_group_versions(db: Database) -> None:
    """A version per group that grows with every change its page shows, so the page is kept per version.

    Triggers raise it on every write of what the page shows: the group's name, invite and trash
    state, its players, its plays' state, seats and results (not their entries: the page shows no
    running scores), its own games and its phones. No write path can forget it.
    """
    db.execute("ALTER TABLE groups ADD COLUMN version INTEGER NOT NULL DEFAULT 0")
    db.execute("""CREATE TRIGGER groups_version AFTER UPDATE OF name, token, join_code, deleted_at ON groups
        BEGIN UPDATE groups SET version = version + 1 WHERE id = NEW.id; END""")
    for table, group_of, columns in _GROUP_PAGE_ROWS:
        for name, event, row in (("insert", "INSERT", "NEW"), ("delete", "DELETE", "OLD"),
                                 ("update", f"UPDATE OF {columns}", "NEW")):
            db.execute(f"""CREATE TRIGGER {table}_group_version_{name} AFTER {event} ON {table}
                BEGIN UPDATE groups SET version = version + 1 WHERE id = {group_of.format(row=row)}; END""")


def _m015_entries_in_one_statement(db: Database) -> None:
    """An entry can be stored in one statement (``write_one_statement``): the insert of its event
    brings the play to the event's version, and notes the request id it came with, if any
    (``events.request_id``), so that the same id sent again is refused and stores nothing.

    Events stored without a version (a backup's, an imported result's: 0) leave the play's version
    as their writer sets it.
    """
    db.execute("ALTER TABLE events ADD COLUMN request_id TEXT")
    db.execute("""CREATE TRIGGER events_play_version AFTER INSERT ON events WHEN NEW.version > 0
        BEGIN UPDATE plays SET version = NEW.version WHERE id = NEW.play_id; END""")
    db.execute("""CREATE TRIGGER events_request_id AFTER INSERT ON events WHEN NEW.request_id IS NOT NULL
        BEGIN
            INSERT INTO seen_requests (request_id, group_id, play_id, at)
            SELECT NEW.request_id, group_id, NEW.play_id, NEW.created_at FROM plays WHERE id = NEW.play_id;
        END""")


# --- whose phone it is -----------------------------------------------------------------------------

def _m016_phone_player(db: Database) -> None:
    """A phone can say whose phone it is: ``memberships.player_id`` (NULL, the default: a shared phone).

    Its role and ledger buttons then enter that player's settlers and points whatever the turn. A
    player deleted from the group leaves the phone shared again.
    """
    db.execute("ALTER TABLE memberships ADD COLUMN player_id INTEGER "
               "REFERENCES players(id) ON DELETE SET NULL")


MIGRATIONS: tuple[Callable[[Database], None], ...] = (
    _m001_initial, _m002_statistics, _m003_reopened_tally, _m004_retired_players,
    _m005_group_games, _m006_private_groups, _m007_group_settings_and_stable_ids, _m008_ratings,
    _m009_times_in_utc, _m010_request_ids, _m011_event_versions, _m012_kept_statistics,
    _m013_results_by_end, _m014_group_versions, _m015_entries_in_one_statement,
    _m016_phone_player,
)


class MigrationError(RuntimeError):
    """A migration that would leave rows pointing at rows that do not exist."""


def migrate(db: Database) -> list[int]:
    """Apply the migrations not yet applied, in order; returns their numbers. Safe to run twice.

    Foreign keys are off while a migration runs (a table can only be rebuilt that way; the setting
    cannot change inside a transaction) and checked in full before it commits.
    """
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)"
    )
    done = {row[0] for row in db.execute("SELECT number FROM migrations").fetchall()}
    applied = []
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        for number, migration in enumerate(MIGRATIONS, start=1):
            if number in done:
                continue
            with write_transaction(db):
                migration(db)
                broken = db.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise MigrationError(f"migration {number} leaves rows without parents: {broken[:5]}")
                db.execute("INSERT INTO migrations VALUES (?, ?, ?)",
                           [number, migration.__name__.lstrip("_"), now()])
            applied.append(number)
    finally:
        db.execute("PRAGMA foreign_keys = ON")
    return applied


def schema_version(db: Database) -> int:
    """The number of the last migration applied (0 for a new database)."""
    if not db["migrations"].exists():
        return 0
    return db.execute("SELECT COALESCE(MAX(number), 0) FROM migrations").fetchone()[0]


@contextlib.contextmanager
def read_transaction(db: Database) -> Iterator[Database]:
    """Several reads that see the same state of the database (inside a write, its transaction)."""
    if db.conn.in_transaction:
        yield db
        return
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.execute("COMMIT")


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that takes the write lock at once, so that read-check-write is race free.

    While a request id is pending (``requests_once``), the first transaction that commits also notes
    the id, in the same transaction: a second request with the same id finds it and stores nothing.
    """
    queue = _writers.get(db) if not db.conn.in_transaction else None
    if queue is not None:
        queue = queue.in_this_process()
    with queue.turn() if queue is not None else contextlib.nullcontext():
        _begin_immediate(db, queue)
        try:
            pending = _pending_request.get()
            if pending is not None and not pending.noted:
                _note_request(db, pending)
            yield db
        except BaseException:
            db.rollback()
            raise
        db.execute("COMMIT")
    if pending is not None:
        pending.noted = True
    if queue is not None:
        _checkpoint_if_due(db)


def write_one_statement(db: Database, sql: str, parameters: Sequence[Any]) -> sqlite3.Cursor:
    """A write of one statement, which SQLite makes a transaction of its own: it takes no turn.

    The writers' queue is for transactions of several statements. Between those statements Python
    runs, and other threads of the process get to run first, so SQLite's write lock stays taken for
    as long as they run. A single statement holds the lock only inside one call into SQLite, some
    tens of microseconds; one that finds it taken waits as every writer does (``_while_busy``), on a
    connection of its own whose busy timeout is 0 (``_statement_connection``). A statement that finds
    the lock taken has stored nothing. Inside a transaction the statement is part of it.
    """
    queue = _writers.get(db)
    if queue is None or db.conn.in_transaction:
        return db.conn.execute(sql, parameters)
    conn = _statement_connection(db, queue)
    cursor = _while_busy(lambda: conn.execute(sql, parameters), BUSY_TIMEOUT_SECONDS)
    _checkpoint_if_due(db)
    return cursor


def _begin_immediate(db: Database, queue: WriterQueue | None) -> None:
    """Begin a write transaction; a writer in the queue waits for the lock as ``_while_busy`` waits."""
    if queue is None:
        db.execute("BEGIN IMMEDIATE")
        return
    db.conn.execute("PRAGMA busy_timeout = 0")
    try:
        _while_busy(lambda: db.conn.execute("BEGIN IMMEDIATE"), BUSY_TIMEOUT_SECONDS)
    finally:
        db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")


def _while_busy(attempt: Callable[[], Any], seconds: float) -> Any:
    """``attempt()``, tried again after pauses from WRITER_PAUSES while SQLite finds the database
    busy, for up to ``seconds``; then its error.

    Every writer of the site waits so, not in SQLite's busy handler. That one looks again after ever
    longer sleeps (1, 2, 5 … 100 ms), twenty times as long as an entry holds the lock and more. Under
    a stream of entries a quarter of them find it taken, and a writer waiting in the busy handler
    would seldom find it free when it looks: the writers waiting here take it the moment it is.
    """
    pauses = itertools.chain(WRITER_PAUSES, itertools.repeat(WRITER_PAUSES[-1]))
    deadline = time.monotonic() + seconds
    while True:
        try:
            return attempt()
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(next(pauses))


# a writer's pauses before it tries again to take the write lock (seconds), the last repeated
WRITER_PAUSES = (0.00005, 0.0001, 0.0002, 0.0005, 0.001)

# Each connection's connection for ``write_one_statement`` (the same thread uses both).
_statement_connections: weakref.WeakKeyDictionary[Database, sqlite3.Connection] = weakref.WeakKeyDictionary()


def _statement_connection(db: Database, queue: WriterQueue) -> sqlite3.Connection:
    conn = _statement_connections.get(db)
    if conn is None:
        conn = _statement_connections[db] = _open(queue.database_path, 0)
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # as ``connect`` does
    return conn


def _checkpoint_if_due(db: Database) -> None:
    """Count a commit; every CHECKPOINT_EVERY commits of this process, forget the request ids older than
    REQUEST_IDS_KEPT_DAYS and copy the write-ahead log into the database file.

    Never during a writer's turn: the other writers go on meanwhile. The write is committed whatever
    happens: a step that fails is left to the next time.
    """
    queue = _writers.get(db)
    if queue is None or not queue.in_this_process().checkpoint_due():
        return
    conn = _statement_connection(db, queue)  # with no busy timeout: a step never waits for the lock
    with contextlib.suppress(sqlite3.OperationalError):
        kept_since = (datetime.now(UTC) - timedelta(days=REQUEST_IDS_KEPT_DAYS)).replace(microsecond=0)
        conn.execute("DELETE FROM seen_requests WHERE at < ?", [kept_since.isoformat()])
    with contextlib.suppress(sqlite3.OperationalError):
        _busy, frames, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        # Under a steady stream of writes the log is never restarted after a checkpoint that waits
        # for no one: some reader is always in it, so it grows without end. One that waits for the
        # readers of the log restarts it. It holds the write lock while it runs, so only once the
        # log has grown this long, and for a short while: a long read (a backup) leaves the log to
        # the next time.
        if frames > LOG_RESTART_PAGES:
            _while_busy(lambda: _restart_log(conn), LOG_RESTART_WAIT_SECONDS)


def _restart_log(conn: sqlite3.Connection) -> None:
    """Copy the whole log into the database file so that the next writer starts it afresh; SQLITE_BUSY
    while a reader is still in it."""
    if conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]:
        busy = sqlite3.OperationalError("a reader is still in the write-ahead log")
        busy.sqlite_errorcode = sqlite3.SQLITE_BUSY
        raise busy


def pending_request() -> PendingRequest | None:
    """The request id waiting to be noted with the next write (``requests_once``), if any."""
    pending = _pending_request.get()
    return pending if pending is not None and not pending.noted else None


class WriterQueue:
    """The writers of one database file, taking turns: the next one is woken the moment a write ends.

    SQLite's own wait for the write lock (the busy timeout) sleeps and looks again, longer each time
    (1, 2, 5, 10 … 100 ms), so under a steady stream of entries a writer can sleep for a tenth of a
    second after the lock came free. Here the writers of this process queue on a thread lock, and
    the processes (the server's workers) on an ``flock`` of a file next to the database; the kernel
    wakes the next one at once. The busy timeout stays for connections outside the queue (another
    program, a command run by hand) and is the fallback if the lock file cannot be opened (a folder
    the site may not write to). A process that dies holding the lock releases it with its files.
    """

    _lock: ClassVar[threading.Lock] = threading.Lock()
    # kept while a connection uses them (``_writers``); a queue no connection uses closes its file
    _queues: ClassVar[weakref.WeakValueDictionary[str, WriterQueue]] = weakref.WeakValueDictionary()

    def __init__(self, database_path: str, lock_path: str) -> None:
        self.database_path, self.lock_path = database_path, lock_path
        self._pid = os.getpid()
        self._threads = threading.Lock()
        self._holder: int | None = None  # the thread whose turn it is
        self._file: int | None = None
        self._commits = itertools.count(1)  # this process's commits; ``next`` is atomic

    def checkpoint_due(self) -> bool:
        """Count a commit; True once every CHECKPOINT_EVERY commits of this process."""
        return next(self._commits) % CHECKPOINT_EVERY == 0

    @classmethod
    def of(cls, database_path: str | Path) -> WriterQueue | None:
        """The queue of this process for the database file (None for an in-memory database)."""
        if str(database_path) in ("", ":memory:"):
            return None
        lock_path = os.path.realpath(database_path) + ".writers"
        with cls._lock:
            queue = cls._queues.get(lock_path)
            if queue is None or queue._pid != os.getpid():  # a forked child starts a queue of its own
                queue = cls._queues[lock_path] = cls(str(database_path), lock_path)
            return queue

    def in_this_process(self) -> WriterQueue | None:
        """This queue, or in a forked child the child's own (an inherited file would share the lock)."""
        return self if self._pid == os.getpid() else WriterQueue.of(self.database_path)

    def __del__(self) -> None:
        if self._file is not None and self._pid == os.getpid():
            os.close(self._file)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Wait for this writer's turn and hold it for the block.

        A thread that already has the turn (a write on a second connection inside its first one) does
        not queue behind itself: SQLite answers that write as it always did.
        """
        if self._holder == threading.get_ident():
            yield
            return
        with self._threads:
            self._holder = threading.get_ident()
            locked = self._lock_file()
            try:
                yield
            finally:
                if locked is not None:
                    fcntl.flock(locked, fcntl.LOCK_UN)
                self._holder = None

    def _lock_file(self) -> int | None:
        """Lock the file shared with the other processes; None if it cannot be opened."""
        if self._file is None:
            try:  # readable and writable by the owner only, like the database
                self._file = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                return None  # SQLite's busy timeout alone keeps the processes apart
        fcntl.flock(self._file, fcntl.LOCK_EX)
        return self._file


# Each connection's queue of writers (connections opened by ``connect``; others use the busy timeout).
_writers: weakref.WeakKeyDictionary[Database, WriterQueue | None] = weakref.WeakKeyDictionary()


# --- a phone's write stored once, however often it is sent ----------------------------------------

# How long a request id is remembered: longer than any phone keeps an unsent form.
REQUEST_IDS_KEPT_DAYS = 30


@dataclass
class PendingRequest:
    """A phone's write with its request id, about to be stored in a play or group."""

    request_id: str
    group_id: int | None
    play_id: int | None
    noted: bool = False


class RepeatedRequest(Exception):  # a situation the view answers, not a failure
    """A request id that was stored before: the write it carries is already in."""

    def __init__(self, group_id: int | None, play_id: int | None) -> None:
        super().__init__("already stored")
        self.group_id = group_id
        self.play_id = play_id


_pending_request: ContextVar[PendingRequest | None] = ContextVar("pending_request", default=None)


@contextlib.contextmanager
def requests_once(pending: PendingRequest | None) -> Iterator[None]:
    """Within the block, the first committed write transaction notes ``pending``'s request id."""
    token = _pending_request.set(pending)
    try:
        yield
    finally:
        _pending_request.reset(token)


def seen_request(db: Database, request_id: str) -> RepeatedRequest | None:
    """The stored write of a request id seen before, or None."""
    row = db.execute("SELECT group_id, play_id FROM seen_requests WHERE request_id = ?",
                     [request_id]).fetchone()
    return RepeatedRequest(*row) if row else None


def _note_request(db: Database, pending: PendingRequest) -> None:
    at = datetime.now(UTC)
    group_id = pending.group_id
    if group_id is None and pending.play_id is not None:
        row = db.execute("SELECT group_id FROM plays WHERE id = ?", [pending.play_id]).fetchone()
        group_id = row[0] if row else None
    if group_id is None:
        return  # nothing to store into: the write itself will be refused
    try:
        db.execute("INSERT INTO seen_requests (request_id, group_id, play_id, at) VALUES (?, ?, ?, ?)",
                   [pending.request_id, group_id, pending.play_id, at.replace(microsecond=0).isoformat()])
    except sqlite3.IntegrityError:
        raise seen_request(db, pending.request_id) or RepeatedRequest(group_id, pending.play_id) from None
