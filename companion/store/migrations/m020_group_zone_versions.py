"""Migration 20: the pages write times on the clocks of the group's time zone (``group_settings``), so
setting another zone changes them: the group's version grows (see m014)."""

from sqlite_utils import Database

_GROUP_VERSION = "UPDATE groups SET version = version + 1 WHERE id = {row}.group_id"
# What sets another zone, as triggers on group_settings see it: their name, event, row and condition
ZONE_CHANGES = (("insert", "INSERT", "NEW", "NEW.time_zone IS NOT NULL"),
                ("update", "UPDATE OF time_zone", "NEW", "OLD.time_zone IS NOT NEW.time_zone"),
                ("delete", "DELETE", "OLD", "OLD.time_zone IS NOT NULL"))


def m020_group_zone_versions(db: Database) -> None:
    for name, event, row, when in ZONE_CHANGES:
        db.execute(f"""CREATE TRIGGER group_settings_group_version_{name} AFTER {event} ON group_settings
            WHEN {when} BEGIN {_GROUP_VERSION.format(row=row)}; END""")
