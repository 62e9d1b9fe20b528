"""Transactions: reads that see one state, writes that take the lock at once, and a bounded log.

A write takes SQLite's write lock with ``BEGIN IMMEDIATE``; an entry is one statement, a transaction
of its own. Three things keep an entry quick when many phones write at once, each measured with 32
threads storing entries for 10 s, interleaved with the code without it (docs/deploy.md has the
numbers): a writer that finds the lock taken tries again after short pauses (``_while_busy``), the
threads of a process take turns for a transaction of several statements (``_turn``), and the log is
copied into the database file after a commit, not inside it (``after_commit``). A long write (an
import) goes in short steps with pauses between them (``write_in_steps``).
"""

from __future__ import annotations

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

# Every this many commits of the process, old request ids are forgotten and the log looked at
CHECKPOINT_EVERY = 200
# The write-ahead log is restarted once it holds this many pages (16 MB of SQLite's 4 KB pages)
LOG_RESTART_PAGES = 4096
LOG_RESTART_WAIT_MS = 50  # how long the restart waits for the readers of the log

# a writer's pauses before it tries again to take the write lock (seconds), the last repeated
WRITER_PAUSES = (0.00005, 0.0001, 0.0002, 0.0005, 0.001)

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


@contextlib.contextmanager
def read_transaction(db: Database) -> Iterator[Database]:
    """Several reads that see the same state of the database (inside a write, its transaction)."""
    if db.conn.in_transaction:
        yield db
        return
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.execute("COMMIT")


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that takes the write lock at once, so that read-check-write is race free.

    The request id the connection expects (``request_ids.expect_request``) is noted in it: a second
    request with the same id finds it and stores nothing.

    The threads of a process take turns on a lock first: between the statements of a transaction
    Python runs, and other threads get to run first, so the write lock stays taken meanwhile. Waiting
    on a thread lock, the others sleep until it is their turn, where waiting on SQLite's lock they
    would keep trying and take the time the holder needs to finish. The processes (the server's
    workers) wait for each other on SQLite's lock (``_while_busy``).
    """
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


def write_one_statement(db: Database, sql: str, parameters: Sequence[Any]) -> sqlite3.Cursor:
    """A write of one statement, which SQLite makes a transaction of its own (inside an open
    transaction, a part of it): it holds the write lock only while SQLite runs it."""
    if db.conn.in_transaction:
        return db.conn.execute(sql, parameters)
    cursor = _while_busy(db, sql, parameters)
    after_commit(db)
    return cursor


def write_in_steps(db: Database, items: Iterable[Any], write: Callable[[Any], Any],
                   written: list[Any] | None = None) -> None:
    """``write`` each item, in transactions of about STEP_SECONDS each, so that a large write (an
    import) never keeps other writers waiting long; each step commits what it wrote, and what ``write``
    returned for its items then goes to ``written`` (what a write that fails on the way must remove).
    """
    pending, more = iter(items), True
    while more:
        step, more = [], False
        with write_transaction(db):
            ends = time.monotonic() + STEP_SECONDS
            for item in pending:
                step.append(write(item))
                if more := time.monotonic() >= ends:
                    break
        if written is not None:
            written.extend(step)
        if more:
            between_steps(db)


def between_steps(db: Database) -> None:
    """Copy the log that a step made long, and pause: without the pause the threads waiting for their
    turn and the processes trying the lock again every millisecond (``_while_busy``) would seldom find
    it free, and would wait for step after step."""
    copy_log(db)
    time.sleep(STEP_PAUSE_SECONDS)


def _while_busy(db: Database, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
    """Run a statement that takes the write lock; while SQLite finds it taken, try again after
    pauses from WRITER_PAUSES, for up to the busy timeout; then SQLite's error.

    Not SQLite's busy handler: it sleeps 1, 2, 5, 10 … 100 ms, twenty times as long as an entry holds
    the lock and more, so under a stream of entries a waiting writer seldom finds the lock free when
    it looks: with it alone an entry's p99 was about 100 ms, twice as long as with these pauses.
    """
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
    """Count a commit; every CHECKPOINT_EVERY commits of the process, forget old request ids, copy
    the write-ahead log into the database file, and restart the log if it has grown long.

    The copy runs here, after the commit, not inside it as SQLite's own would (``connection.connect``
    turns that off), so no writer waits on it. Under a steady stream of readers a copy never starts
    the log file afresh: a restart does. It waits for the readers in the log, holding the write lock,
    so only for a moment: a long read leaves the log to the next time (a backup reads a snapshot,
    ``connection.snapshot``). The write is committed whatever happens here: a step that fails is
    left to the next time.
    """
    if next(_commits) % CHECKPOINT_EVERY:
        return
    with contextlib.suppress(sqlite3.OperationalError):
        forget_old_requests(db)
    copy_log(db)


def copy_log(db: Database) -> None:
    """Copy the write-ahead log into the database file, and restart it if it has grown long."""
    if db in connection.LOG_KEPT_BY_REPLICA:
        return  # Litestream copies the log, then checkpoints it itself
    with contextlib.suppress(sqlite3.OperationalError):
        _busy, frames, _copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if frames > LOG_RESTART_PAGES:
            restart_log(db)


def restart_log(db: Database) -> None:
    """Copy the whole log into the database file, so that the next writer starts the log afresh.

    It waits for the readers still in the log for LOG_RESTART_WAIT_MS at most: with them the log is
    left as it is, to the next time.
    """
    db.execute(f"PRAGMA busy_timeout = {LOG_RESTART_WAIT_MS}")
    try:
        db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    finally:
        db.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_SECONDS * 1000}")
