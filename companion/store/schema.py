"""The schema, its numbered migrations, connections and write transactions."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database

from companion.messages import Refused

BUSY_TIMEOUT_SECONDS = 10

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

def connect(path: str | Path) -> Database:
    """Open the database with the settings every connection needs."""
    # the timeout is SQLite's busy timeout; a connection is opened per request, so it must be cheap:
    # no sqlite-utils plugins, no recursive triggers (the statistics triggers never recurse)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    db.execute("PRAGMA foreign_keys = ON")
    return db


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


MIGRATIONS: tuple[Callable[[Database], None], ...] = (
    _m001_initial, _m002_statistics, _m003_reopened_tally, _m004_retired_players, _m005_group_games,
)


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
