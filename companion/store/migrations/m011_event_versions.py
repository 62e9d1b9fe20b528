"""Migration 11: each event keeps the play version it brought, so a table folded up to an event can be
trusted while that event is in the log (an undone and re-entered event has a new version)."""

from sqlite_utils import Database


def m011_event_versions(db: Database) -> None:
    db.execute("ALTER TABLE events ADD COLUMN version INTEGER NOT NULL DEFAULT 0")
