"""Migration 21: a play's page also shows its players' names and times on the group's clock, so renaming a
seated player or setting another time zone grows the version of the plays going on, as an entry does: the
phones showing them fetch them again (the live poll compares versions) and a form drawn before is stale."""

from sqlite_utils import Database

from companion.store.migrations.m020_group_zone_versions import ZONE_CHANGES

_PLAYS_OF_GROUP = ("UPDATE plays SET version = version + 1 "
                   "WHERE status = 'active' AND group_id = {row}.group_id")


def m021_play_page_versions(db: Database) -> None:
    db.execute("""CREATE TRIGGER players_play_version AFTER UPDATE OF name ON players
        WHEN OLD.name IS NOT NEW.name
        BEGIN
            UPDATE plays SET version = version + 1
            WHERE status = 'active' AND id IN (SELECT play_id FROM seats WHERE player_id = NEW.id);
        END""")
    for name, event, row, when in ZONE_CHANGES:
        db.execute(f"""CREATE TRIGGER group_settings_play_version_{name} AFTER {event} ON group_settings
            WHEN {when} BEGIN {_PLAYS_OF_GROUP.format(row=row)}; END""")
