"""A phone's write stored once, however often it is sent (an offline phone sends its forms again).

Each form carries a random request id (static/live.js), noted in the transaction of its write, so of
two copies sent at once one is stored. An id belongs to the phone the gate let in and to the play (or
the group); a refused write notes nothing, so its id stays free for the next try."""

import contextlib
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlite_utils import Database

# How long a request id is remembered: as long as a phone's cookie lasts (the site's session lifetime).
# A phone keeps an entry whose answer it did not get until it sends it again, however long that takes.
REQUEST_IDS_KEPT_DAYS = 400


@dataclass(frozen=True)
class RequestId:
    """The id a phone's write came with, the membership it came from, and the play it goes to (if any)."""

    value: str
    membership_id: int
    play_id: int | None


class RepeatedRequest(Exception):  # a situation the view answers, not a failure
    """A request id that was stored before: the write it carries is already in."""

    def __init__(self, group_id: int, play_id: int | None) -> None:
        super().__init__("already stored")
        self.group_id = group_id
        self.play_id = play_id


class RepeatedCreation(RepeatedRequest):
    """A new group or a join sent again: the group, and the membership the first copy made for the phone."""

    def __init__(self, group_id: int, membership_id: int) -> None:
        super().__init__(group_id, None)
        self.membership_id = membership_id


# Each connection's request id still to be noted by its next write transaction.
_expected: weakref.WeakKeyDictionary[Database, RequestId] = weakref.WeakKeyDictionary()


def expect_request(db: Database, request: RequestId | None) -> None:
    """Let the next write transaction on ``db`` note ``request`` with its write (None: no request)."""
    if request is None:
        _expected.pop(db, None)
    else:
        _expected[db] = request


def expected_request(db: Database) -> RequestId | None:
    return _expected.get(db)


@contextlib.contextmanager
def request_set_aside(db: Database) -> Iterator[None]:
    """Writes that are not the request's own (tidying up) note no request id: were the request then
    refused, its id would be used up."""
    request = _expected.pop(db, None)
    try:
        yield
    finally:
        if request is not None:
            _expected[db] = request


def request_noted(db: Database, request: RequestId) -> None:
    """``request`` is stored with a committed write: its later writes note nothing."""
    if _expected.get(db) is request:
        del _expected[db]


def seen_request(db: Database, request: RequestId) -> RepeatedRequest | None:
    """The stored write of a request id this phone sent before for this play or group, or None."""
    row = db.execute("SELECT group_id, play_id FROM seen_requests WHERE request_id = ? AND membership_id = ? "
                     "AND IFNULL(play_id, 0) = ?",
                     [request.value, request.membership_id, request.play_id or 0]).fetchone()
    return RepeatedRequest(*row) if row else None


def group_made_with(db: Database, request_id: str) -> RepeatedCreation | None:
    """The group a new group's or a join's request id made, found by the id alone: the copy sent again
    after a lost answer comes from a phone whose cookie never got the membership. An id is 16 random
    bytes only the phone that sent it knows (static/live.js), so whoever sends it again is that phone."""
    row = db.execute("SELECT group_id, membership_id FROM seen_requests "
                     "WHERE request_id = ? AND play_id IS NULL LIMIT 1", [request_id]).fetchone()
    return RepeatedCreation(*row) if row else None


def note_request(db: Database, request: RequestId, at: str) -> None:
    """Note ``request`` inside a write transaction; ``RepeatedRequest`` if the phone sent it before."""
    if seen := seen_request(db, request):
        raise seen
    db.execute("INSERT INTO seen_requests (request_id, membership_id, group_id, play_id, at) "
               "SELECT ?, id, group_id, ?, ? FROM memberships WHERE id = ?",
               [request.value, request.play_id, at, request.membership_id])


def forget_old_requests(db: Database) -> None:
    kept_since = (datetime.now(UTC) - timedelta(days=REQUEST_IDS_KEPT_DAYS)).replace(microsecond=0)
    db.execute("DELETE FROM seen_requests WHERE at < ?", [kept_since.isoformat()])
