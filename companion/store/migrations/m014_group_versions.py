"""Migration 14: a version per group that grows with every change its page shows (not a play's entries:
the page shows no running scores), raised by triggers so that no write path can forget it."""

from sqlite_utils import Database

# What a group's page shows, per table: how a row names its group, and the columns that show.
_GROUP_PAGE_ROWS = (
    ("players", "{row}.group_id", "name, colour, retired"),
    ("plays", "{row}.group_id", "game, status, started_at, ended_at, deleted_at"),
    ("seats", "(SELECT group_id FROM plays WHERE id = {row}.play_id)", "seat, player_id, colour"),
    ("results", "(SELECT group_id FROM plays WHERE id = {row}.play_id)", "player_id, total, rank"),
    ("group_games", "{row}.group_id", "name"),
    ("memberships", "{row}.group_id", "name, last_seen"),
)


def m014_group_versions(db: Database) -> None:
    db.execute("ALTER TABLE groups ADD COLUMN version INTEGER NOT NULL DEFAULT 0")
    db.execute("""CREATE TRIGGER groups_version AFTER UPDATE OF name, token, join_code, deleted_at ON groups
        BEGIN UPDATE groups SET version = version + 1 WHERE id = NEW.id; END""")
    for table, group_of, columns in _GROUP_PAGE_ROWS:
        for name, event, row in (("insert", "INSERT", "NEW"), ("delete", "DELETE", "OLD"),
                                 ("update", f"UPDATE OF {columns}", "NEW")):
            db.execute(f"""CREATE TRIGGER {table}_group_version_{name} AFTER {event} ON {table}
                BEGIN UPDATE groups SET version = version + 1 WHERE id = {group_of.format(row=row)}; END""")
