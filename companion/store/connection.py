"""Connections: one per thread, kept (opening one reads the whole schema), and snapshots for long reads.

A connection runs in autocommit mode, so a kept one never reads an old snapshot."""

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
    """Files created inside are their owner's only (umask 077): never, for a moment, anyone else's."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def connect(path: str | Path) -> Database:
    """Open the database as every connection needs it; a new file (and its -wal, -shm) is its owner's only."""
    with owner_only_files() if not os.path.exists(path) else contextlib.nullcontext():
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False,
                               isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        # with WAL a commit outlives a crash of the process; a power loss may lose the last (docs/deploy.md)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA journal_size_limit = {LOG_SIZE_LIMIT}")
        # the checkpoint runs after a commit (``transactions.after_commit``), not inside it holding the lock
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
    """A read-only copy of the database in a temporary file, for a long read (a backup) that must not
    keep the log growing: one step of SQLite's backup API (copied in steps, it would restart at every
    write; 30 MB take well under a second)."""
    # next to the database: on the same disk, where there is room for it, and as private
    folder = os.path.dirname(db.execute("PRAGMA database_list").fetchone()[2]) or None
    with owner_only_files():
        handle, name = tempfile.mkstemp(suffix=".sqlite3", prefix=".snapshot-", dir=folder)
    os.close(handle)
    try:
        with contextlib.closing(sqlite3.connect(name)) as target:
            db.conn.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")  # read alone: no log files beside it
        with connect_read_only(name) as copy:
            yield copy
    finally:
        os.unlink(name)


# Connections inherited through fork (gunicorn's --preload): a child neither uses nor closes them (that
# could disturb the parent's locks), and keeps them from garbage collection, which would close them.
_inherited: list[Database] = []

# Connections to a database Litestream replicates: it checkpoints the log itself, and a checkpoint
# racing its copy makes it copy the whole database again (https://litestream.io/tips/).
LOG_KEPT_BY_REPLICA: weakref.WeakSet[Database] = weakref.WeakSet()


class ThreadConnections:
    """Each thread's connection to one database file, opened on first use in the current process."""

    def __init__(self, path: str, replicated: bool = False) -> None:
        self.path = path
        self.replicated = replicated  # Litestream checkpoints its log (``LOG_KEPT_BY_REPLICA``)
        self._local = threading.local()

    def get(self) -> Database:
        local = self._local
        if getattr(local, "pid", None) == os.getpid():
            return local.db
        if hasattr(local, "db"):
            _inherited.append(local.db)  # opened before a fork
        local.db, local.pid = connect(self.path), os.getpid()
        if self.replicated:
            LOG_KEPT_BY_REPLICA.add(local.db)
        return local.db

    def end_request(self) -> None:
        """Roll back a transaction a failed request left open, so it holds no lock and no snapshot."""
        local = self._local
        if getattr(local, "pid", None) == os.getpid() and local.db.conn.in_transaction:
            local.db.rollback()
