"""Migration 4: a retired player is left out of new plays and kept in the history."""

from sqlite_utils import Database


def m004_retired_players(db: Database) -> None:
    db.execute("ALTER TABLE players ADD COLUMN retired INTEGER NOT NULL DEFAULT 0")
