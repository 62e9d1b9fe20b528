"""Migration 7: a group's export settings, and ids of players and plays that a backup keeps.

``uid`` outlives backup and restore, so an app that got a play before (BG Stats) matches it when it
is sent again instead of keeping it twice."""

from sqlite_utils import Database

_RANDOM_UID = "lower(hex(randomblob(16)))"


def m007_group_settings_and_stable_ids(db: Database) -> None:
    db.execute("""CREATE TABLE group_settings (
            group_id INTEGER PRIMARY KEY REFERENCES groups(id) ON DELETE CASCADE,
            time_zone TEXT,
            location TEXT NOT NULL DEFAULT '',
            bgg_ids TEXT NOT NULL DEFAULT '{}'
        )""")
    for table in ("players", "plays"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN uid TEXT")
        db.execute(f"UPDATE {table} SET uid = {_RANDOM_UID}")
        db.execute(f"""CREATE TRIGGER {table}_uid AFTER INSERT ON {table} WHEN NEW.uid IS NULL
        BEGIN
            UPDATE {table} SET uid = {_RANDOM_UID} WHERE id = NEW.id;
        END""")
