"""Migration 17: a phone can say whose phone it is."""

from __future__ import annotations

from sqlite_utils import Database


def m017_phone_player(db: Database) -> None:
    """``memberships.player_id``: the player whose phone this is (NULL, the default: a shared phone).

    Its role and ledger buttons then enter that player's settlers and points whatever the turn. A
    player deleted from the group leaves the phone shared again. The group's version grows when a
    phone names its player, since the pages that phone is shown change with it.
    """
    db.execute("ALTER TABLE memberships ADD COLUMN player_id INTEGER "
               "REFERENCES players(id) ON DELETE SET NULL")
    db.execute("DROP TRIGGER memberships_group_version_update")
    db.execute("""CREATE TRIGGER memberships_group_version_update
        AFTER UPDATE OF name, last_seen, player_id ON memberships
        BEGIN UPDATE groups SET version = version + 1 WHERE id = NEW.group_id; END""")
