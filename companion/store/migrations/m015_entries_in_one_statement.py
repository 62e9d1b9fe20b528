"""Migration 15: an entry stored in one statement brings the play's version and notes its request id.

Events stored without a version (0: a backup's, an imported result's) leave the play's version to
their writer."""

from sqlite_utils import Database


def m015_entries_in_one_statement(db: Database) -> None:
    db.execute("ALTER TABLE events ADD COLUMN request_id TEXT")
    db.execute("""CREATE TRIGGER events_play_version AFTER INSERT ON events WHEN NEW.version > 0
        BEGIN UPDATE plays SET version = NEW.version WHERE id = NEW.play_id; END""")
    db.execute("""CREATE TRIGGER events_request_id AFTER INSERT ON events WHEN NEW.request_id IS NOT NULL
        BEGIN
            INSERT INTO seen_requests (request_id, group_id, play_id, at)
            SELECT NEW.request_id, group_id, NEW.play_id, NEW.created_at FROM plays WHERE id = NEW.play_id;
        END""")
