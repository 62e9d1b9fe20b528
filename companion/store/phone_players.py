"""Whose phone it is: a membership may name one of its group's players (``Membership.player_id``)."""

from sqlite_utils import Database

from companion.store.errors import NotFound
from companion.store.transactions import write_transaction


def set_phone_player(db: Database, membership_id: int, player_id: int | None) -> None:
    """Say whose phone this membership's phone is (None: shared); the player must be of its group."""
    with write_transaction(db):
        if player_id is not None and not db.execute(
                "SELECT 1 FROM players p JOIN memberships m ON m.group_id = p.group_id "
                "WHERE p.id = ? AND m.id = ?", [player_id, membership_id]).fetchone():
            raise NotFound("player")
        db.execute("UPDATE memberships SET player_id = ? WHERE id = ?", [player_id, membership_id])
