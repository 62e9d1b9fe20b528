"""Migration 17: a phone can say whose phone it is (NULL: shared); its pages change with it, so the
group's version grows."""

from sqlite_utils import Database


def m017_phone_player(db: Database) -> None:
    db.execute("ALTER TABLE memberships ADD COLUMN player_id INTEGER "
               "REFERENCES players(id) ON DELETE SET NULL")
    db.execute("DROP TRIGGER memberships_group_version_update")
    db.execute("""CREATE TRIGGER memberships_group_version_update
        AFTER UPDATE OF name, last_seen, player_id ON memberships
        BEGIN UPDATE groups SET version = version + 1 WHERE id = NEW.group_id; END""")
