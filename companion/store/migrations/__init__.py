"""The schema's numbered migrations, one module each (``mNNN_<name>`` holding a function of that name),
applied in order by ``migrate``.

A released migration keeps its SQL as written: a database brought up to date has the very schema of a
new one (``tests/test_store.py`` compares ``sqlite_master``).
"""

import pkgutil
from collections.abc import Callable
from importlib import import_module

from sqlite_utils import Database

from companion.store.transactions import now, write_transaction

MIGRATIONS: tuple[Callable[[Database], None], ...] = tuple(
    getattr(import_module(f"{__name__}.{name}"), name)
    for name in sorted(module.name for module in pkgutil.iter_modules(__path__)))


class MigrationError(RuntimeError):
    """A migration that would leave rows pointing at rows that do not exist."""


class UnknownDatabase(RuntimeError):
    """A database this companion must not bring up to date: another program's, or a newer companion's."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where} {why}")
        self.why = why  # without the file's name, for /healthz


def check_known(db: Database) -> None:
    """UnknownDatabase unless the database is new or one this companion's migrations made: another
    program's would get the companion's tables, and a newer companion's would be served with a schema
    this code does not know."""
    where = db.execute("PRAGMA database_list").fetchone()[2]
    if not db["migrations"].exists():  # the first table migrate creates, before any other
        if db.table_names():
            raise UnknownDatabase(where, "holds another program's tables, and no record of the companion's "
                                         "migrations: move it away, or set COMPANION_INSTANCE_PATH to "
                                         "another data folder.")
        return
    if (version := schema_version(db)) > len(MIGRATIONS):
        raise UnknownDatabase(where, f"was made by a newer companion (migration {version}; this one knows "
                                     f"{len(MIGRATIONS)}): upgrade the companion to serve it.")


def migrate(db: Database) -> list[int]:
    """Apply the migrations not yet applied, in order; returns their numbers. Foreign keys are off while
    one runs (a table can only be rebuilt so) and checked in full before it commits. A database that
    ``check_known`` refuses is left as it is."""
    check_known(db)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE IF NOT EXISTS migrations (number INTEGER PRIMARY KEY, name TEXT, "
               "applied_at TEXT)")
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
