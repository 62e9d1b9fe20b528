"""Connections to the database: how each is opened, one per thread, and snapshots for long reads.

Opening a SQLite connection is the dearest part of a small request: the first query reads the whole
schema, and closing the last connection runs a checkpoint. So each thread keeps its connection for
as long as it lives (``ThreadConnections``). A connection runs in autocommit mode: every read is its
own short transaction and sees everything committed before it, so a connection kept for many
requests never reads an old snapshot; writes group their statements with ``write_transaction``.

A server that forks after a connection was opened (gunicorn's ``--preload``) must not use the
parent's connection in the child, so each thread's connection remembers the process that opened it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from sqlite_utils import Database

# How long a writer waits for the write lock (SQLite's busy timeout) before it gives up
BUSY_TIMEOUT_SECONDS = 10
# After a checkpoint that restarts the write-ahead log its file shrinks to this (``transactions``)
LOG_SIZE_LIMIT = 16 * 1024 * 1024


@contextlib.contextmanager
def owner_only_files() -> Iterator[None]:
    """Files created inside are readable and writable by their owner only (umask 077).

    The umask is set before the files exist rather than their mode changed after: there is no moment
    in which another user of the machine could open them.
    """
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def connect(path: str | Path) -> Database:
    """Open the database with the settings every connection needs.

    The first connection creates the file, readable by its owner only; SQLite gives the ``-wal`` and
    ``-shm`` files it creates later the database file's permissions.
    """
    with owner_only_files() if not os.path.exists(path) else contextlib.nullcontext():
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False,
                               isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        # with WAL, a commit is safe from a crash of the app or of the process without waiting for
        # the disk; only a power loss or a crash of the machine can lose the last commits before the
        # next checkpoint (docs/deploy.md says so)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA journal_size_limit = {LOG_SIZE_LIMIT}")
        # SQLite's own checkpoint runs inside a commit, holding the write lock with every other
        # writer waiting on it; ``transactions.after_commit`` runs it after the commit instead
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        # no sqlite-utils plugins, no recursive triggers (the statistics triggers never recurse)
        db = Database(conn, recursive_triggers=False, execute_plugins=False)
        db.execute("PRAGMA schema_version").fetchone()  # makes SQLite create the file now
    return db


def connect_read_only(path: str | Path) -> Database:
    """Open an existing database for reading only; sqlite3.Error if it is missing or unreadable."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    return Database(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False),
                    execute_plugins=False)


@contextlib.contextmanager
def snapshot(db: Database) -> Iterator[Database]:
    """A copy of the database in a temporary file, read-only, for a read that takes long (a backup).

    SQLite's backup API copies the pages in one step, a read of the database as fast as the disk (a
    30 MB database in well under a second); the long part (building and sending the file) then reads
    the copy, and the write-ahead log can be restarted meanwhile instead of growing for as long as
    the download lasts. It costs a copy of the whole database file. One step, not several: a copy in
    steps starts again whenever another phone writes in between. The file is removed after the block.
    """
    # next to the database: on the same disk, where there is room for it, and as private
    folder = os.path.dirname(db.execute("PRAGMA database_list").fetchone()[2]) or None
    with owner_only_files():
        handle, name = tempfile.mkstemp(suffix=".sqlite3", prefix=".snapshot-", dir=folder)
    os.close(handle)
    try:
        target = sqlite3.connect(name)
        try:
            db.conn.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")  # read alone: no log files beside it
        finally:
            target.close()
        copy = connect_read_only(name)
        try:
            yield copy
        finally:
            copy.close()
    finally:
        os.unlink(name)


# Connections inherited through fork: never used and never closed in the child (closing one there
# could disturb the parent's locks), only kept so that garbage collection does not close them either.
_inherited: list[Database] = []


# Connections to a database that Litestream replicates: it copies the write-ahead log and checkpoints
# it itself, and a checkpoint of the site's racing its copy makes it start a new snapshot of the whole
# database (https://litestream.io/tips/, "Disable autocheckpoints"; benbjohnson/litestream#547).
LOG_KEPT_BY_REPLICA: weakref.WeakSet[Database] = weakref.WeakSet()


class ThreadConnections:
    """Each thread's connection to one database file, opened on first use in the current process."""

    def __init__(self, path: str, replicated: bool = False) -> None:
        self.path = path
        self.replicated = replicated  # Litestream checkpoints its log (``LOG_KEPT_BY_REPLICA``)
        self._local = threading.local()

    def get(self) -> Database:
        local = self._local
        db = getattr(local, "db", None)
        if db is not None and local.pid == os.getpid():
            return db
        if db is not None:
            _inherited.append(db)
        local.db, local.pid = connect(self.path), os.getpid()
        if self.replicated:
            LOG_KEPT_BY_REPLICA.add(local.db)
        return local.db

    def end_request(self) -> None:
        """Roll back a transaction a failed request left open, so it holds no lock and no snapshot."""
        db = getattr(self._local, "db", None)
        if db is not None and self._local.pid == os.getpid() and db.conn.in_transaction:
            db.rollback()
