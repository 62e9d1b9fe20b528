"""Groups, their players, and the join-code rate limit."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from sqlite_utils import Database

from companion.names import duplicate_name, name_key
from companion.store.schema import NotFound, StoreError, now, write_transaction


@dataclass(frozen=True)
class Group:
    id: int
    name: str
    token: str
    join_code: str
    created_at: str


@dataclass(frozen=True)
class Player:
    id: int
    group_id: int
    name: str
    colour: str

# Join codes avoid letters and digits that look alike when read off a phone (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8


# --- groups and players --------------------------------------------------------------------------

def _new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def create_group(db: Database, name: str) -> Group:
    """Create a group with a fresh invite token and join code."""
    with write_transaction(db):
        while True:  # a clash of join codes is astronomically rare; draw again if it happens
            code = _new_join_code()
            if not db.execute("SELECT 1 FROM groups WHERE join_code = ?", [code]).fetchone():
                break
        cursor = db.execute(
            "INSERT INTO groups (name, token, join_code, created_at) VALUES (?, ?, ?, ?)",
            [name, secrets.token_urlsafe(24), code, now()],
        )
        group_id = cursor.lastrowid
    return get_group(db, group_id)


def _group(row: sqlite3.Row | tuple | None) -> Group:
    if row is None:
        raise NotFound("group")
    return Group(*row)


_GROUP_COLUMNS = "id, name, token, join_code, created_at"


def get_group(db: Database, group_id: int) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id = ?", [group_id]).fetchone())


def group_by_token(db: Database, token: str) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE token = ?", [token]).fetchone())


def group_by_join_code(db: Database, code: str) -> Group:
    return _group(
        db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE join_code = ?", [code]).fetchone()
    )


def groups_by_ids(db: Database, group_ids: Sequence[int]) -> list[Group]:
    """The groups that still exist among ``group_ids``, by name."""
    if not group_ids:
        return []
    marks = ",".join("?" * len(group_ids))
    rows = db.execute(
        f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id IN ({marks}) ORDER BY name COLLATE NOCASE, id",
        list(group_ids),
    ).fetchall()
    return [Group(*row) for row in rows]


def rename_group(db: Database, group_id: int, name: str) -> None:
    with write_transaction(db):
        db.execute("UPDATE groups SET name = ? WHERE id = ?", [name, group_id])


def delete_group(db: Database, group_id: int) -> None:
    """Delete a group with its players, plays, events and results."""
    with write_transaction(db):
        # results and seats point at players too, so remove the plays first
        db.execute("DELETE FROM plays WHERE group_id = ?", [group_id])
        db.execute("DELETE FROM groups WHERE id = ?", [group_id])


def list_players(db: Database, group_id: int) -> list[Player]:
    rows = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE group_id = ? ORDER BY name COLLATE NOCASE",
        [group_id],
    ).fetchall()
    return [Player(*row) for row in rows]


def get_player(db: Database, group_id: int, player_id: int) -> Player:
    row = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE id = ? AND group_id = ?",
        [player_id, group_id],
    ).fetchone()
    if row is None:
        raise NotFound("player")
    return Player(*row)


class DuplicateName(StoreError):
    """A player name the group already has."""


def check_free_name(db: Database, group_id: int, name: str, except_id: int | None = None) -> None:
    """Refuse a name the group already has: the one check of player names, by their comparison key.

    Two names are the same player when ``companion.names.name_key`` says so (case, spaces and
    invisible characters aside). Call it inside the write transaction that stores the name.
    """
    key = name_key(name)
    taken = db.execute("SELECT id, name FROM players WHERE group_id = ?", [group_id]).fetchall()
    clash = next((other for player_id, other in taken if player_id != except_id and name_key(other) == key),
                 None)
    if clash is not None:
        raise DuplicateName("The group already has a player called %(name)s.", "name", name=clash)


def check_distinct_names(names: Sequence[str], path: str = "players") -> None:
    """Refuse a list of new players in which two are the same player (the key of check_free_name)."""
    index = duplicate_name(list(names))
    if index is not None:
        raise DuplicateName("%(name)s appears twice among the players.", f"{path}[{index}].name",
                            name=names[index])


def add_player(db: Database, group_id: int, name: str, colour: str) -> int:
    """Add a player to a group; a name the group already has (see check_free_name) is refused."""
    with write_transaction(db):
        check_free_name(db, group_id, name)
        cursor = db.execute(
            "INSERT INTO players (group_id, name, colour, created_at) VALUES (?, ?, ?, ?)",
            [group_id, name, colour, now()],
        )
        return cursor.lastrowid


def update_player(db: Database, group_id: int, player_id: int, name: str, colour: str) -> None:
    with write_transaction(db):
        check_free_name(db, group_id, name, except_id=player_id)
        db.execute("UPDATE players SET name = ?, colour = ? WHERE id = ? AND group_id = ?",
                   [name, colour, player_id, group_id])

# --- join-code rate limit ------------------------------------------------------------------------

def record_join_failure(db: Database, client: str, at: float) -> None:
    with write_transaction(db):
        db.execute("INSERT INTO join_failures (client, at) VALUES (?, ?)", [client, at])
        # keep the table small: a day of history is more than any limit looks at
        db.execute("DELETE FROM join_failures WHERE at < ?", [at - 86400])


def count_join_failures(db: Database, client: str, since: float) -> int:
    return db.execute("SELECT COUNT(*) FROM join_failures WHERE client = ? AND at >= ?",
                      [client, since]).fetchone()[0]
