"""Migration 23: the changes m021 lets grow a play's version though they only show on its page (a seated
player renamed, the group's time zone) leave its map as it was, so a reopened play's kept final tally still
fits it: its ``reopened_at_version`` moves along while it was current, as ``plays.change_play_options``
moves it for the options, and the tally comes back as entered instead of counting as changed since."""

from sqlite_utils import Database

from companion.store.migrations.m020_group_zone_versions import ZONE_CHANGES

_NEXT_VERSION = ("UPDATE plays SET version = version + 1, reopened_at_version = CASE "
                 "WHEN reopened_at_version = version THEN version + 1 ELSE reopened_at_version END")


def m023_page_versions_keep_reopened_tally(db: Database) -> None:
    db.execute("DROP TRIGGER players_play_version")
    db.execute(f"""CREATE TRIGGER players_play_version AFTER UPDATE OF name ON players
        WHEN OLD.name IS NOT NEW.name
        BEGIN
            {_NEXT_VERSION}
            WHERE status = 'active' AND id IN (SELECT play_id FROM seats WHERE player_id = NEW.id);
        END""")
    for name, event, row, when in ZONE_CHANGES:
        db.execute(f"DROP TRIGGER group_settings_play_version_{name}")
        db.execute(f"""CREATE TRIGGER group_settings_play_version_{name} AFTER {event} ON group_settings
            WHEN {when} BEGIN {_NEXT_VERSION} WHERE status = 'active' AND group_id = {row}.group_id; END""")
