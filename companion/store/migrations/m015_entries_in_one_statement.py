"""Migration 15: an entry stored in one statement brings the play's version and notes its request id."""

from __future__ import annotations

from sqlite_utils import Database


def m015_entries_in_one_statement(db: Database) -> None:
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
