"""Any other game a group plays: its name and the versions of its score sheet (JSON the rules write and
check: ``games.custom``). Each edit adds a version; plays keep theirs."""

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from companion.names import name_key
from companion.store.errors import StaleVersion, StoreError, found
from companion.store.transactions import now, write_transaction


class DuplicateGame(StoreError):
    """A game name the group already uses."""


@dataclass(frozen=True)
class GroupGame:
    """A group's game with one version of its score sheet (the newest, unless asked for another)."""

    id: int
    group_id: int
    name: str
    bgg_id: int | None
    version_id: int
    sheet: Mapping[str, Any]
    plays: int = 0  # plays started with any version


def _check_free_game_name(db: Database, group_id: int, name: str, except_id: int | None = None) -> None:
    """Refuse a name the group already has a game of, as ``names.name_key`` compares names (SQLite's NOCASE
    folds ASCII letters only); inside the write."""
    key = name_key(name)
    for game_id, other in db.execute("SELECT id, name FROM group_games WHERE group_id = ?", [group_id]):
        if game_id != except_id and name_key(other) == key:
            raise DuplicateGame("The group already has a game called %(name)s.", "name", name=other)


def insert_game(db: Database, group_id: int, name: str, bgg_id: int | None) -> int:
    """The game's row alone (inside the caller's transaction); returns its id."""
    return db["group_games"].insert({"group_id": group_id, "name": name, "bgg_id": bgg_id,
                                     "created_at": now()}).last_pk


def add_version(db: Database, game_id: int, sheet: Mapping[str, Any]) -> int:
    """A new version of the game's sheet (inside the caller's transaction); returns its id."""
    return db["group_game_versions"].insert({"game_id": game_id, "sheet": json.dumps(dict(sheet)),
                                             "created_at": now()}).last_pk


def add_group_game(db: Database, group_id: int, name: str, bgg_id: int | None,
                   sheet: Mapping[str, Any]) -> int:
    """Add a game with its first score sheet; returns the game's id."""
    with write_transaction(db):
        _check_free_game_name(db, group_id, name)
        game_id = insert_game(db, group_id, name, bgg_id)
        add_version(db, game_id, sheet)
        return game_id


def check_sheet_version(game: GroupGame, drawn: int | None) -> None:
    """Refuse (StaleVersion) what a page drawn from version ``drawn`` of the game's sheet sends when another
    phone has changed the sheet since; None: a page that did not say, taken as it comes."""
    if drawn is not None and drawn != game.version_id:
        raise StaleVersion("Another phone changed the score sheet of %(game)s since this page was opened, "
                           "so nothing was saved.", game=game.name)


def check_shown_name(game: GroupGame, shown: str | None) -> None:
    """Refuse (StaleVersion) an edit from a page that showed the game under another name: another phone
    renamed it since; None: a page that did not say."""
    if shown is not None and shown != game.name:
        raise StaleVersion("Another phone renamed %(shown)s to %(game)s since this page was opened, so "
                           "nothing was saved.", shown=shown, game=game.name)


def check_shown_bgg_id(game: GroupGame, shown: str | None) -> None:
    """Refuse (StaleVersion) an edit from a page that showed another BoardGameGeek id of the game ("": none):
    another phone set it since (without changing the sheet); None: a page that did not say."""
    if shown is not None and shown != str(game.bgg_id or ""):
        raise StaleVersion("Another phone changed the BoardGameGeek id of %(game)s since this page was "
                           "opened, so nothing was saved.", game=game.name)


def update_group_game(db: Database, group_id: int, game_id: int, name: str, bgg_id: int | None,
                      sheet: Mapping[str, Any], check: Callable[[GroupGame], None] | None = None) -> None:
    """Rename the game and, if its sheet changed, add a new version (old plays keep theirs); ``check``
    sees the game as it is under the write lock, with its plays counted, and may refuse."""
    with write_transaction(db):
        current = get_group_game(db, group_id, game_id)
        if check is not None:
            check(current)
        _check_free_game_name(db, group_id, name, game_id)
        db.execute("UPDATE group_games SET name = ?, bgg_id = ? WHERE id = ?", [name, bgg_id, game_id])
        if dict(sheet) != dict(current.sheet):
            add_version(db, game_id, sheet)


def sheet_unchanged(group_id: int, game_id: int, version_id: int) -> Callable[[Database], None]:
    """A check for ``plays.log_past_play``: StaleVersion if ``version_id`` is no longer the game's newest
    sheet (the play's points are numbered by its rows)."""
    return lambda db: check_sheet_version(get_group_game(db, group_id, game_id), version_id)


_COLUMNS = "g.id, g.group_id, g.name, g.bgg_id, v.id, v.sheet"
_FROM = "FROM group_games g JOIN group_game_versions v ON v.game_id = g.id"
_PLAYS = "(SELECT COUNT(*) FROM plays p WHERE p.group_id = g.group_id AND p.game = 'custom-' || g.id)"
_NEWEST = "v.id = (SELECT MAX(id) FROM group_game_versions WHERE game_id = g.id)"


def _group_game(row: tuple | None) -> GroupGame:
    """A game from its ``_COLUMNS``, then its ``_PLAYS`` if asked for."""
    game_id, group_id, name, bgg_id, version_id, sheet, *plays = found(row, "game")
    return GroupGame(game_id, group_id, name, bgg_id, version_id, json.loads(sheet), *plays)


def get_group_game(db: Database, group_id: int, game_id: int) -> GroupGame:
    """The group's game with its newest sheet and its plays counted; NotFound for another group's."""
    return _group_game(db.execute(f"SELECT {_COLUMNS}, {_PLAYS} {_FROM} WHERE g.id = ? AND g.group_id = ? "
                                  f"AND {_NEWEST}", [game_id, group_id]).fetchone())


def group_game_by_id(db: Database, game_id: int) -> GroupGame:
    """A group game by id alone (a play's slug names it), with its newest sheet."""
    return _group_game(db.execute(f"SELECT {_COLUMNS} {_FROM} WHERE g.id = ? AND {_NEWEST}",
                                  [game_id]).fetchone())


def group_game_version(db: Database, game_id: int, version_id: int) -> GroupGame:
    """The game with the sheet of one of its versions (the one a play was scored with)."""
    return _group_game(db.execute(f"SELECT {_COLUMNS} {_FROM} WHERE g.id = ? AND v.id = ?",
                                  [game_id, version_id]).fetchone())


def list_group_games(db: Database, group_id: int) -> list[GroupGame]:
    """The group's games with their newest sheets and how often they were played, by name."""
    return [_group_game(row) for row in db.execute(
        f"SELECT {_COLUMNS}, {_PLAYS} {_FROM} WHERE g.group_id = ? AND {_NEWEST} "
        "ORDER BY g.name COLLATE NOCASE", [group_id])]


def delete_group_game(db: Database, group_id: int, game_id: int) -> None:
    """Remove a game nobody has played yet; a game with plays stays (its history needs it)."""
    with write_transaction(db):
        if get_group_game(db, group_id, game_id).plays:
            raise StoreError("This game has plays in the group's history, so it stays.")
        db.execute("DELETE FROM group_games WHERE id = ?", [game_id])
