"""Transactions: reads that see one state, writes that take the lock at once, and a bounded log.

Three things keep an entry quick under many writers, each measured (docs/deploy.md): a writer finding
the lock taken retries after short pauses (``_while_busy``), a process's threads take turns for a
transaction (``_turn``), and the log is checkpointed after a commit, not inside it (``after_commit``).
"""

import contextlib
import itertools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from companion.store import connection
from companion.store.request_ids import expected_request, forget_old_requests, note_request, request_noted

CHECKPOINT_EVERY = 200  # commits of the process between forgetting old request ids and checkpoints
LOG_RESTART_PAGES = 4096  # the log is restarted once it holds this many pages (16 MB of 4 KB)
LOG_RESTART_WAIT_MS = 50  # how long the restart waits for the log's readers
WRITER_PAUSES = (0.00005, 0.0001, 0.0002, 0.0005, 0.001)  # seconds before retrying the lock; last repeats

STEP_SECONDS = 0.1  # a long write holds the write lock this long at a time (and one item more) …
STEP_PAUSE_SECONDS = 0.005  # … then pauses this long, for the writers waiting for the lock

_commits = itertools.count(1)  # this process's commits; ``next`` is atomic

# The write transactions of this process take turns (reentrant: a write inside a write goes on).
_turn = threading.RLock()


def _new_turn() -> None:
    global _turn
    _turn = threading.RLock()  # a forked child's own: one held by another thread at the fork stays so


os.register_at_fork(after_in_child=_new_turn)


def now() -> str:
    """The current time as an ISO 8601 string in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def read_transaction(db: Database) -> contextlib.AbstractContextManager[Database]:
    """Several reads that see the same state of the database (inside a write, its transaction)."""
    return db.atomic()


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that takes the write lock at once (read-check-write is race free) and notes the
    request id the connection expects. Threads take turns on a thread lock first: there they sleep,
    where retrying SQLite's lock they would take the time the holder needs to finish."""
    request = expected_request(db)
    with _turn:
        _while_busy(db, "BEGIN IMMEDIATE")
        try:
            if request is not None:
                note_request(db, request, now())
            yield db
        except BaseException:
            db.rollback()
            raise
        db.execute("COMMIT")
    if request is not None:
        request_noted(db, request)
    after_commit(db)


def execute_write(db: Database, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
    with write_transaction(db):
        return db.execute(sql, parameters)


def write_one_statement(db: Database, sql: str, parameters: Sequence[Any]) -> sqlite3.Cursor:
    """A write of one statement, a transaction of its own (or part of the open one), without the thread
    turn or request-id note of ``write_transaction``: an entry's statement notes its request id itself."""
    if db.conn.in_transaction:
        return db.conn.execute(sql, parameters)
    cursor = _while_busy(db, sql, parameters)
    after_commit(db)
    return cursor


_NO_MORE = object()


def write_in_steps(db: Database, items: Iterable[Any], write: Callable[[Any], Any],
                   written: list[Any] | None = None) -> None:
    """``write`` each item, in transactions of about STEP_SECONDS each, so that a large write (an
    import) never keeps other writers waiting long; what ``write`` returned for the items of a committed
    step goes to ``written`` (what a write that fails on the way must remove)."""
    pending = iter(items)
    written = [] if written is None else written
    item = next(pending, _NO_MORE)  # looked at ahead: no pause and no empty step after the last item
    while item is not _NO_MORE:
        step = []
        with write_transaction(db):
            ends = time.monotonic() + STEP_SECONDS
            while item is not _NO_MORE and (not step or time.monotonic() < ends):
                step.append(write(item))
                item = next(pending, _NO_MORE)
        written.extend(step)
        if item is not _NO_MORE:
            between_steps(db)


def between_steps(db: Database) -> None:
    """Copy the log that a step made long, and pause: without the pause the writers waiting for the
    lock (``_while_busy``) would seldom find it free, and would wait for step after step."""
    copy_log(db)
    time.sleep(STEP_PAUSE_SECONDS)


def _while_busy(db: Database, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
    """Run a statement that takes the write lock, retrying after WRITER_PAUSES while it is taken, up to
    the busy timeout. SQLite's busy handler sleeps 1–100 ms, far longer than an entry holds the lock:
    with it an entry's p99 was twice as long."""
    conn = db.conn
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        pauses = itertools.chain(WRITER_PAUSES, itertools.repeat(WRITER_PAUSES[-1]))
        deadline = time.monotonic() + connection.BUSY_TIMEOUT_SECONDS
        while True:
            try:
                return conn.execute(sql, parameters)
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                    raise
            time.sleep(next(pauses))
    finally:
        conn.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_SECONDS * 1000}")


def after_commit(db: Database) -> None:
    """Every CHECKPOINT_EVERY commits, forget old request ids and copy the log (no writer waits on it)."""
    if next(_commits) % CHECKPOINT_EVERY:
        return
    with contextlib.suppress(sqlite3.OperationalError):
        forget_old_requests(db)
    copy_log(db)


def copy_log(db: Database) -> None:
    """Copy the write-ahead log into the database file, and restart it if it has grown long (readers
    keep a checkpoint from shrinking it)."""
    if db in connection.LOG_KEPT_BY_REPLICA:
        return  # Litestream copies the log, then checkpoints it itself
    with contextlib.suppress(sqlite3.OperationalError):
        _busy, frames, _copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if frames > LOG_RESTART_PAGES:
            restart_log(db)


def restart_log(db: Database) -> None:
    """Checkpoint the whole log so that the next writer starts it afresh; it waits LOG_RESTART_WAIT_MS
    at most (holding the write lock) for the log's readers, else it leaves the log to the next time."""
    db.execute(f"PRAGMA busy_timeout = {LOG_RESTART_WAIT_MS}")
    try:
        db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    finally:
        db.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_SECONDS * 1000}")
