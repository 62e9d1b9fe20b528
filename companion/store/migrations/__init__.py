"""The schema's numbered migrations, one module each, applied in order by ``migrate``.

A migration never changes once released: a database made by the first ones and brought up to date
by the rest has the very schema of a new one (``tests/test_store.py`` compares ``sqlite_master``).
That is why the released ones keep their SQL as written, where sqlite-utils would write the same
tables in other words.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database

from companion.store.migrations.m001_initial import m001_initial
from companion.store.migrations.m002_statistics import m002_statistics
from companion.store.migrations.m003_reopened_tally import m003_reopened_tally
from companion.store.migrations.m004_retired_players import m004_retired_players
from companion.store.migrations.m005_group_games import m005_group_games
from companion.store.migrations.m006_private_groups import m006_private_groups
from companion.store.migrations.m007_group_settings_and_stable_ids import m007_group_settings_and_stable_ids
from companion.store.migrations.m008_ratings import m008_ratings
from companion.store.migrations.m009_times_in_utc import m009_times_in_utc
from companion.store.migrations.m010_request_ids import m010_request_ids
from companion.store.migrations.m011_event_versions import m011_event_versions
from companion.store.migrations.m012_kept_statistics import m012_kept_statistics
from companion.store.migrations.m013_results_by_end import m013_results_by_end
from companion.store.migrations.m014_group_versions import m014_group_versions
from companion.store.migrations.m015_entries_in_one_statement import m015_entries_in_one_statement
from companion.store.migrations.m016_request_ids_per_phone import m016_request_ids_per_phone
from companion.store.migrations.m017_phone_player import m017_phone_player
from companion.store.migrations.m018_import_attempts import m018_import_attempts
from companion.store.migrations.m019_winner_row_points import m019_winner_row_points
from companion.store.transactions import now, write_transaction

MIGRATIONS: tuple[Callable[[Database], None], ...] = (
    m001_initial, m002_statistics, m003_reopened_tally, m004_retired_players, m005_group_games,
    m006_private_groups, m007_group_settings_and_stable_ids, m008_ratings, m009_times_in_utc,
    m010_request_ids, m011_event_versions, m012_kept_statistics, m013_results_by_end,
    m014_group_versions, m015_entries_in_one_statement, m016_request_ids_per_phone, m017_phone_player,
    m018_import_attempts, m019_winner_row_points,
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
                db.execute("INSERT INTO migrations VALUES (?, ?, ?)", [number, migration.__name__, now()])
            applied.append(number)
    finally:
        db.execute("PRAGMA foreign_keys = ON")
    return applied


def schema_version(db: Database) -> int:
    """The number of the last migration applied (0 for a new database)."""
    if not db["migrations"].exists():
        return 0
    return db.execute("SELECT COALESCE(MAX(number), 0) FROM migrations").fetchone()[0]
