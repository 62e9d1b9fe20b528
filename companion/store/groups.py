"""Groups, their players and phones (memberships), the trash, and the limits on join codes and imports."""

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlite_utils import Database

from companion.messages import Message
from companion.names import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, duplicate_name, name_key
from companion.store.errors import NotFound, StaleVersion, StoreError, found, marks
from companion.store.request_ids import RequestId, group_made_with, note_request, request_set_aside
from companion.store.transactions import execute_write, now, write_in_steps, write_transaction

INVITE_TOKEN_BYTES = 24
# 16 random bytes: unguessable, and short enough that one cookie holds a hundred of them
MEMBERSHIP_TOKEN_BYTES = 16
TRASH_DAYS = 30  # how long a deleted group or play can be restored


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
    retired: bool = False  # left out of new plays, kept in the history


@dataclass(frozen=True)
class Membership:
    """A phone's place in a group; the phone's cookie holds ``token``."""

    id: int
    token: str
    group_id: int
    name: str  # what the phone was called on the group page; "" until someone names it
    joined_at: str
    last_seen: str
    player_id: int | None = None  # whose phone it is (None: the table shares it)


@dataclass(frozen=True)
class TrashedGroup:
    group: Group
    deleted_at: str


class DuplicateName(StoreError):
    """A player name the group already has."""


_GROUP_COLUMNS = "id, name, token, join_code, created_at"
_PLAYER_COLUMNS = "id, group_id, name, colour, retired"
_MEMBERSHIP_COLUMNS = "id, token, group_id, name, joined_at, last_seen, player_id"
# a group in the trash is found by no page, link or code: only its members' trash lists show it
_LIVE = "deleted_at IS NULL"


# --- groups ---------------------------------------------------------------------------------------

def _free_join_code(db: Database) -> str:
    """A join code no group has (in the trash or not); call it inside the write transaction."""
    while True:  # a clash of join codes is astronomically rare; draw again if it happens
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        if not db.execute("SELECT 1 FROM groups WHERE join_code = ?", [code]).fetchone():
            return code


def insert_group(db: Database, name: str, deleted_at: str | None = None) -> int:
    """A new group's row with a fresh invite token and join code, inside a write transaction."""
    return db["groups"].insert({"name": name, "token": secrets.token_urlsafe(INVITE_TOKEN_BYTES),
                                "join_code": _free_join_code(db), "created_at": now(),
                                "deleted_at": deleted_at}).last_pk


def create_group(db: Database, name: str) -> Group:
    with write_transaction(db):
        group_id = insert_group(db, name)
    return get_group(db, group_id)


def create_group_on_phone(db: Database, name: str, request_id: str | None = None) -> Membership:
    """A new group and the membership of the phone that made it, in one write (``insert_group_on_phone``)."""
    with write_transaction(db):
        return insert_group_on_phone(db, name, request_id)


def insert_group_on_phone(db: Database, name: str, request_id: str | None,
                          deleted_at: str | None = None) -> Membership:
    """A new group's row and the membership of the phone that makes it, inside a write that notes the
    phone's request id with them: ``RepeatedCreation`` for an id sent before, so that two copies make one
    group."""
    _check_first_copy(db, request_id)
    group_id = insert_group(db, name, deleted_at)
    return get_membership(db, group_id, _insert_membership(db, group_id, request_id))


def new_invite(db: Database, group_id: int) -> Group:
    """Give the group a new invite token and join code: the old link and code stop working."""
    with write_transaction(db):
        db.execute(f"UPDATE groups SET token = ?, join_code = ? WHERE id = ? AND {_LIVE}",
                   [secrets.token_urlsafe(INVITE_TOKEN_BYTES), _free_join_code(db), group_id])
    return get_group(db, group_id)


def _live_group(db: Database, column: str, value: object) -> tuple | None:
    return db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE {column} = ? AND {_LIVE}",
                      [value]).fetchone()


def get_group(db: Database, group_id: int) -> Group:
    return Group(*found(_live_group(db, "id", group_id), "group"))


def group_by_token(db: Database, token: str) -> Group:
    return Group(*found(_live_group(db, "token", token), "group"))


def rename_group(db: Database, group_id: int, name: str, shown: str | None = None) -> None:
    """Give the group this name; StaleVersion if it is no longer called ``shown``, the name on the page
    that renames it (another phone renamed it since; None: a page that did not say)."""
    with write_transaction(db):
        if shown is not None and shown != (stored := get_group(db, group_id).name):
            raise StaleVersion("Another phone renamed %(shown)s to %(game)s since this page was opened, so "
                               "nothing was saved.", shown=shown, game=stored)
        db.execute("UPDATE groups SET name = ? WHERE id = ?", [name, group_id])


def delete_group(db: Database, group_id: int) -> None:
    """Delete a group for good, with its players, plays, events, results and memberships."""
    _delete_plays_where(db, "group_id = ?", [group_id])
    with write_transaction(db):
        delete_groups(db, "id = ?", [group_id])


def delete_groups(db: Database, where: str, params: Sequence[object]) -> int:
    """Delete the groups ``where`` holds inside a write; how many."""
    # results and seats point at players too, so remove the plays first
    db.execute(f"DELETE FROM plays WHERE group_id IN (SELECT id FROM groups WHERE {where})", params)
    return db.execute(f"DELETE FROM groups WHERE {where}", params).rowcount


def remove_plays(db: Database, play_ids: Iterable[int], where: str = "1",
                 params: Sequence[object] = ()) -> int:
    """Delete these plays for good, in steps (``write_in_steps``): thousands of them never keep other
    groups' writes waiting. A play that no longer meets ``where`` when its step comes stays."""
    deleted: list[int] = []
    write_in_steps(db, play_ids, lambda play_id: db.execute(
        f"DELETE FROM plays WHERE id = ? AND ({where})", [play_id, *params]).rowcount, deleted)
    return sum(deleted)


def _delete_plays_where(db: Database, where: str, params: Sequence[object]) -> int:
    ids = [play_id for (play_id,) in db.execute(f"SELECT id FROM plays WHERE {where}", params)]
    return remove_plays(db, ids, where, params)


# --- the trash: deleted groups and plays stay restorable for a while -----------------------------

def trash_group(db: Database, group_id: int, at: str) -> None:
    """Move a group to the trash: no page, link or code finds it; its members can restore it."""
    execute_write(db, f"UPDATE groups SET deleted_at = ? WHERE id = ? AND {_LIVE}", [at, group_id])


def restore_trashed_group(db: Database, group_id: int) -> Group:
    """Take a group out of the trash; NotFound (nothing written) if it is gone for good."""
    with write_transaction(db):
        if not db.execute("UPDATE groups SET deleted_at = NULL WHERE id = ?", [group_id]).rowcount:
            raise NotFound("group")
    return get_group(db, group_id)


def trashed_groups(db: Database, tokens: Sequence[str]) -> list[TrashedGroup]:
    """The groups in the trash that these membership tokens belong to, most recently deleted first."""
    rows = _groups_of_tokens(db, tokens, "g.deleted_at IS NOT NULL", "g.deleted_at DESC, g.id DESC")
    return [TrashedGroup(Group(*row[:5]), row[5]) for row in rows]


def purge_trash(db: Database, before: str) -> int:
    """Delete for good the groups and plays that went to the trash before ``before``; how many (nothing
    to purge costs two index lookups and no write lock)."""
    due = db.execute("SELECT EXISTS (SELECT 1 FROM groups WHERE deleted_at < ?) "
                     "OR EXISTS (SELECT 1 FROM plays WHERE deleted_at < ?)", [before, before]).fetchone()[0]
    if not due:
        return 0
    with request_set_aside(db):  # tidying up, not the phone's write
        plays = _delete_plays_where(db, "deleted_at < ? OR group_id IN (SELECT id FROM groups "
                                    "WHERE deleted_at < ?)", [before, before])
        with write_transaction(db):
            return plays + delete_groups(db, "deleted_at < ?", [before])


# --- players ----------------------------------------------------------------------------------------

def _player(row: tuple) -> Player:
    return Player(*row[:4], bool(row[4]))


def list_players(db: Database, group_id: int, retired: bool | None = None) -> list[Player]:
    """The group's players by name; only those retired (or not) when ``retired`` says so."""
    return [_player(row) for row in db.execute(
        f"SELECT {_PLAYER_COLUMNS} FROM players WHERE group_id = ? AND (? IS NULL OR retired = ?) "
        "ORDER BY name COLLATE NOCASE", [group_id, retired, retired])]


def get_player(db: Database, group_id: int, player_id: int) -> Player:
    return _player(found(db.execute(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = ? AND group_id = ?",
                                    [player_id, group_id]).fetchone(), "player"))


def set_player_retired(db: Database, group_id: int, player_id: int, retired: bool) -> None:
    """Retire a player (left out of new plays, kept in the history), or bring them back."""
    execute_write(db, "UPDATE players SET retired = ? WHERE id = ? AND group_id = ?",
                  [retired, player_id, group_id])


def player_play_count(db: Database, group_id: int, player_id: int) -> int:
    """How many plays of the group, finished or not, the player has a seat in."""
    return db.execute("SELECT COUNT(*) FROM seats s JOIN plays p ON p.id = s.play_id "
                      "WHERE s.player_id = ? AND p.group_id = ?", [player_id, group_id]).fetchone()[0]


def delete_player(db: Database, group_id: int, player_id: int) -> None:
    """Delete a player who has no play; one with plays is refused (retire them instead)."""
    with write_transaction(db):
        if db.execute("SELECT 1 FROM seats WHERE player_id = ? LIMIT 1", [player_id]).fetchone():
            raise StoreError("%(name)s has plays in the history: retire them instead.",
                             name=get_player(db, group_id, player_id).name)
        db.execute("DELETE FROM players WHERE id = ? AND group_id = ?", [player_id, group_id])


def check_free_name(db: Database, group_id: int, name: str, except_id: int | None = None) -> None:
    """Refuse a name the group already has (as ``names.name_key`` compares them); inside the write."""
    key = name_key(name)
    for player_id, other in db.execute("SELECT id, name FROM players WHERE group_id = ?", [group_id]):
        if player_id != except_id and name_key(other) == key:
            raise DuplicateName("The group already has a player called %(name)s.", "name", name=other)


def check_distinct_names(names: Sequence[str]) -> None:
    """Refuse a list of new players in which two are the same player (the key of check_free_name)."""
    index = duplicate_name(list(names))
    if index is not None:
        raise DuplicateName("%(name)s appears twice among the players.", f"players[{index}].name",
                            name=names[index])


def insert_player(db: Database, group_id: int, name: str, colour: str, **columns: str | bool | None) -> int:
    """A new player's row inside a write (its name checked before); ``columns``: created_at, uid, retired."""
    return db["players"].insert({"group_id": group_id, "name": name, "colour": colour, "created_at": now(),
                                 **columns}).last_pk


def add_player(db: Database, group_id: int, name: str, colour: str) -> int:
    """Add a player to a group; a name the group already has (see check_free_name) is refused."""
    with write_transaction(db):
        check_free_name(db, group_id, name)
        return insert_player(db, group_id, name, colour)


def update_player(db: Database, group_id: int, player_id: int, name: str, colour: str,
                  shown: tuple[str, str] | None = None) -> None:
    """Give the player this name and colour; StaleVersion if they are no longer the (name, colour)
    ``shown`` on the page that changes them (another phone changed them since)."""
    with write_transaction(db):
        if shown is not None:
            stored = get_player(db, group_id, player_id)
            if (stored.name, stored.colour) != tuple(shown):
                raise StaleVersion("Another phone changed this player since you opened the page (now "
                                   "called %(name)s). Check what you typed and save again.", name=stored.name)
        check_free_name(db, group_id, name, except_id=player_id)
        db.execute("UPDATE players SET name = ?, colour = ? WHERE id = ? AND group_id = ?",
                   [name, colour, player_id, group_id])


# --- memberships: which phones are in a group -----------------------------------------------------

def create_membership(db: Database, group_id: int, request_id: str | None = None) -> Membership:
    """Let a phone into a group: a new membership with a fresh random token, noted with the phone's
    request id: ``RepeatedCreation`` for an id sent before, so that a join sent twice makes one."""
    with write_transaction(db):
        _check_first_copy(db, request_id)
        found(_live_group(db, "id", group_id), "group")
        membership_id = _insert_membership(db, group_id, request_id)
    return get_membership(db, group_id, membership_id)


def _check_first_copy(db: Database, request_id: str | None) -> None:
    """``RepeatedCreation`` if ``request_id`` made a group or a membership before (inside the write)."""
    if request_id is not None and (made := group_made_with(db, request_id)):
        raise made


def _insert_membership(db: Database, group_id: int, request_id: str | None = None) -> int:
    """A phone's new membership, with the request id it came with (checked by ``_check_first_copy``)."""
    stamp = now()
    membership_id = db["memberships"].insert({"token": secrets.token_urlsafe(MEMBERSHIP_TOKEN_BYTES),
                                              "group_id": group_id, "joined_at": stamp,
                                              "last_seen": stamp}).last_pk
    if request_id is not None:
        note_request(db, RequestId(request_id, membership_id, None), stamp)
    return membership_id


def get_membership(db: Database, group_id: int, membership_id: int) -> Membership:
    row = db.execute(f"SELECT {_MEMBERSHIP_COLUMNS} FROM memberships WHERE id = ? AND group_id = ?",
                     [membership_id, group_id]).fetchone()
    return Membership(*found(row, "membership"))


def existing_tokens(db: Database, tokens: Sequence[str]) -> set[str]:
    """Which of ``tokens`` still belong to a membership (removed phones and purged groups drop out)."""
    rows = db.execute(f"SELECT token FROM memberships WHERE token IN ({marks(tokens)})", list(tokens))
    return {token for (token,) in rows}


def trashed_memberships(db: Database, tokens: Sequence[str]) -> list[tuple[Membership, str]]:
    """The memberships among ``tokens`` of groups in the trash, with the group name, oldest deletion first."""
    columns = ", ".join(f"m.{name}" for name in _MEMBERSHIP_COLUMNS.split(", "))
    rows = db.execute(
        f"SELECT {columns}, g.name FROM memberships m JOIN groups g ON g.id = m.group_id "
        f"WHERE m.token IN ({marks(tokens)}) AND g.deleted_at IS NOT NULL ORDER BY g.deleted_at, g.id",
        list(tokens)).fetchall()
    return [(Membership(*row[:-1]), row[-1]) for row in rows]


def member_groups(db: Database, tokens: Sequence[str]) -> list[Group]:
    """The groups (outside the trash) that these membership tokens let in, by name."""
    rows = _groups_of_tokens(db, tokens, f"g.{_LIVE}", "g.name COLLATE NOCASE, g.id")
    return [Group(*row[:5]) for row in rows]


def _groups_of_tokens(db: Database, tokens: Sequence[str], where: str, order: str) -> list[tuple]:
    """The groups these membership tokens were made for, where ``where`` holds: their columns, deleted_at."""
    return db.execute(
        "SELECT g.id, g.name, g.token, g.join_code, g.created_at, g.deleted_at FROM memberships m JOIN "
        f"groups g ON g.id = m.group_id WHERE m.token IN ({marks(tokens)}) AND {where} ORDER BY {order}",
        list(tokens)).fetchall()


def list_memberships(db: Database, group_id: int) -> list[Membership]:
    """The phones in a group, in the order they joined."""
    return [Membership(*row) for row in db.execute(
        f"SELECT {_MEMBERSHIP_COLUMNS} FROM memberships WHERE group_id = ? ORDER BY id", [group_id])]


def delete_membership(db: Database, group_id: int, membership_id: int) -> None:
    """Take a phone out of a group: its cookie no longer lets it in."""
    execute_write(db, "DELETE FROM memberships WHERE id = ? AND group_id = ?", [membership_id, group_id])


def rename_membership(db: Database, group_id: int, membership_id: int, name: str) -> None:
    execute_write(db, "UPDATE memberships SET name = ? WHERE id = ? AND group_id = ?",
                  [name, membership_id, group_id])


def touch_membership(db: Database, membership_id: int, at: str, unless_seen_since: str | None = None) -> bool:
    """Note when the phone last opened the group (never earlier than noted; with ``unless_seen_since``,
    not if noted after then: of many requests finding it due at once, one writes); whether it was."""
    return execute_write(db, "UPDATE memberships SET last_seen = ? WHERE id = ? AND last_seen <= ?",
                         [at, membership_id, unless_seen_since or at]).rowcount == 1


def set_phone_player(db: Database, membership_id: int, player_id: int | None) -> None:
    """Say whose phone this membership's phone is (None: shared); the player must be of its group."""
    with write_transaction(db):
        if player_id is not None and not db.execute(
                "SELECT 1 FROM players p JOIN memberships m ON m.group_id = p.group_id "
                "WHERE p.id = ? AND m.id = ?", [player_id, membership_id]).fetchone():
            raise NotFound("player")
        db.execute("UPDATE memberships SET player_id = ? WHERE id = ?", [player_id, membership_id])


# --- the limits on wrong join codes and on imports per address ----------------------------------

@dataclass(frozen=True)
class JoinCodeLimits:
    """How many wrong join codes are checked within ``window`` seconds: per address, and in all (every
    wrong code guesses at every group's: docs/security.md). Past ``in_all``, an address without a wrong
    code for ``new_address_memory`` seconds gets ``from_new_addresses`` more, so that a phone typing the
    code it was given is not locked out by guessers elsewhere."""

    window: float
    per_client: int
    in_all: int
    from_new_addresses: int
    new_address_memory: float


class TooManyWrongCodes(StoreError):
    """Too many wrong join codes lately, from this address or from everywhere."""


class TooManyImports(StoreError):
    """Too many backups imported lately from this address."""


# how long a wrong code is kept at least: a day of history is more than a window looks at
JOIN_FAILURES_KEPT_SECONDS = 86400


def _note_attempt(db: Database, table: str, client: str, at: float, keep_seconds: float) -> None:
    db[table].insert({"client": client, "at": at})
    db.execute(f"DELETE FROM {table} WHERE at < ?", [at - keep_seconds])  # keep the table small


def count_join_failures(db: Database, client: str, since: float) -> int:
    return db.execute("SELECT COUNT(*) FROM join_failures WHERE client = ? AND at >= ?",
                      [client, since]).fetchone()[0]


def note_import(db: Database, client: str, at: float, allowed: int, window: float) -> None:
    """Count a backup import from ``client``; TooManyImports if it started ``allowed`` within ``window``
    seconds already. Counted under the write lock, so processes answering at once allow no more."""
    with write_transaction(db):
        started = db.execute("SELECT COUNT(*) FROM import_attempts WHERE client = ? AND at >= ?",
                             [client, at - window]).fetchone()[0]
        if started >= allowed:
            raise TooManyImports(Message("Too many backups imported from this network lately. "
                                          "Try again in an hour."))
        _note_attempt(db, "import_attempts", client, at, window)


def group_for_join_code(db: Database, code: str, client: str, at: float, limits: JoinCodeLimits) -> Group:
    """The group with this join code, checked against the limits under the write lock (processes answering
    at once check no more codes than allowed): TooManyWrongCodes when a limit is reached, even for the
    right code; NotFound for a wrong code, which is counted."""
    since = at - limits.window
    with write_transaction(db):
        mine, everyone = db.execute(
            "SELECT (SELECT COUNT(*) FROM join_failures WHERE client = ? AND at >= ?), "
            "(SELECT COUNT(*) FROM join_failures WHERE at >= ?)", [client, since, since]).fetchone()
        if mine >= limits.per_client or (everyone >= limits.in_all and (
                everyone >= limits.in_all + limits.from_new_addresses
                or count_join_failures(db, client, at - limits.new_address_memory))):
            raise TooManyWrongCodes(
                "Too many wrong codes. Wait a quarter of an hour, or use the invite link.")
        row = _live_group(db, "join_code", code)
        if row is None:
            _note_attempt(db, "join_failures", client, at,
                          max(JOIN_FAILURES_KEPT_SECONDS, limits.window, limits.new_address_memory))
    return Group(*found(row, "group"))
