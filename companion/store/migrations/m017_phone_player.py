"""Migration 17: a phone can say whose phone it is."""

from __future__ import annotations

from sqlite_utils import Database


def m017_phone_player(db: Database) -> None:
    """``memberships.player_id``: the player whose phone this is (NULL, the default: a shared phone).

    Its role and ledger buttons then enter that player's settlers and points whatever the turn. A
    player deleted from the group leaves the phone shared again.
    """
    db.execute("ALTER TABLE memberships ADD COLUMN player_id INTEGER "
               "REFERENCES players(id) ON DELETE SET NULL")
