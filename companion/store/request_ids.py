"""A phone's write stored once, however often it is sent: the request ids of phones' writes.

Every form a phone sends carries a random request id (static/live.js), kept with the form when the
phone is offline, so a resend carries the same id. The id is noted in the same transaction as the
write it came with, so of two copies sent at once only one is stored. An id belongs to the phone
that sent it (its membership) and to the play (or, for a write to the group itself, the group): the
same id from another phone or for another group is another request.

The web layer hands the store the id of the request it is answering (``expect_request``); the next
write transaction on that connection notes it. A write that is refused notes nothing, so its id
stays free for the phone's next try.
"""

from __future__ import annotations

import sqlite3
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlite_utils import Database

# How long a request id is remembered: longer than any phone keeps an unsent form.
REQUEST_IDS_KEPT_DAYS = 30


@dataclass(frozen=True)
class RequestId:
    """The id a phone's write came with, and where it is going."""

    value: str
    tokens: tuple[str, ...]  # the phone's membership tokens: the one made for the group is the phone
    group_id: int | None  # from the address: the group written to, or None for a play's own address
    play_id: int | None


class RepeatedRequest(Exception):  # a situation the view answers, not a failure
    """A request id that was stored before: the write it carries is already in."""

    def __init__(self, group_id: int | None, play_id: int | None) -> None:
        super().__init__("already stored")
        self.group_id = group_id
        self.play_id = play_id


# Each connection's request id still to be noted (``expect_request``).
_expected: weakref.WeakKeyDictionary[Database, RequestId] = weakref.WeakKeyDictionary()


def expect_request(db: Database, request: RequestId | None) -> None:
    """Let the next write transaction on ``db`` note ``request`` with its write (None: no request)."""
    if request is None:
        _expected.pop(db, None)
    else:
        _expected[db] = request


def expected_request(db: Database) -> RequestId | None:
    """The request id the next write on ``db`` notes, if any."""
    return _expected.get(db)


def request_noted(db: Database, request: RequestId) -> None:
    """``request`` is stored with a committed write: the request's later writes note nothing."""
    if _expected.get(db) is request:
        del _expected[db]


def _phone(tokens: tuple[str, ...], group: str) -> str:
    """A condition on the memberships ``m``: one of ``tokens``, made for ``group`` (SQL)."""
    return f"m.token IN ({','.join('?' * len(tokens))}) AND m.group_id = {group}"


def seen_request(db: Database, request: RequestId) -> RepeatedRequest | None:
    """The stored write of a request id this phone sent before for this play or group, or None."""
    if not request.tokens:
        return None
    row = db.execute(
        "SELECT s.group_id, s.play_id FROM seen_requests s JOIN memberships m ON m.id = s.membership_id "
        f"WHERE s.request_id = ? AND IFNULL(s.play_id, 0) = ? AND {_phone(request.tokens, 's.group_id')} "
        "AND (? IS NULL OR s.group_id = ?) LIMIT 1",
        [request.value, request.play_id or 0, *request.tokens, request.group_id, request.group_id],
    ).fetchone()
    return RepeatedRequest(*row) if row else None


def note_request(db: Database, request: RequestId, at: str) -> None:
    """Note ``request`` inside a write transaction; ``RepeatedRequest`` if the phone sent it before.

    A phone that is no member of the group notes nothing: its write is refused anyway.
    """
    group = "COALESCE(?, (SELECT group_id FROM plays WHERE id = ?))"
    try:
        db.execute(
            "INSERT INTO seen_requests (request_id, membership_id, group_id, play_id, at) "
            f"SELECT ?, m.id, m.group_id, ?, ? FROM memberships m WHERE {_phone(request.tokens, group)} "
            "LIMIT 1",
            [request.value, request.play_id, at, *request.tokens, request.group_id, request.play_id],
        )
    except sqlite3.IntegrityError:
        raise seen_request(db, request) or RepeatedRequest(request.group_id, request.play_id) from None


def entry_phone(request: RequestId | None) -> tuple[str, list[str]]:
    """The membership an entry stored in one statement came from, as SQL on its play ``p``, and its
    parameters (``events.membership_id``: its trigger notes the request id)."""
    if request is None or not request.tokens:
        return "NULL", []
    phone = f"(SELECT m.id FROM memberships m WHERE {_phone(request.tokens, 'p.group_id')})"
    return phone, list(request.tokens)


def forget_old_requests(db: Database) -> None:
    """Forget the request ids older than REQUEST_IDS_KEPT_DAYS."""
    kept_since = (datetime.now(UTC) - timedelta(days=REQUEST_IDS_KEPT_DAYS)).replace(microsecond=0)
    db.execute("DELETE FROM seen_requests WHERE at < ?", [kept_since.isoformat()])
