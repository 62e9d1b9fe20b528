"""Migration 7: a group's export settings, and ids of players and plays that a backup keeps.

``uid`` outlives backup and restore, so an app that got a play before (BG Stats) matches it when it
is sent again instead of keeping it twice."""

from sqlite_utils import Database

_RANDOM_UID = "lower(hex(randomblob(16)))"


def m007_group_settings_and_stable_ids(db: Database) -> None:
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
