"""One database connection per worker thread, reused across requests, and the ``init-db`` command.

Opening a SQLite connection is the dearest part of a small request: the first query reads the whole
schema, and closing the last connection runs a WAL checkpoint. So each thread keeps its connection
for as long as it lives. The connection runs in autocommit mode: every read is its own short
transaction and sees everything committed before it, so no request ever reads an old snapshot. A
write of several statements queues for its turn (``store.WriterQueue``) and takes the lock with
``BEGIN IMMEDIATE`` (``store.write_transaction``); an entry is one statement, its own transaction,
sent on a second connection of the thread that waits for the write lock in short pauses
(``store.write_one_statement``). Every so many commits a writer copies the log into the database file.

A server that forks after a connection was opened (gunicorn's ``--preload``) must not use the parent's
connection in the child, so each connection remembers the process that opened it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from datetime import UTC, datetime, timedelta

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlite_utils import Database

from companion import store

# Connections inherited through fork: never used and never closed in the child (closing one there
# could disturb the parent's locks), only kept so that garbage collection does not close them either.
_inherited: list[Database] = []


class ThreadConnections:
    """Each thread's connection to one database file, opened on first use in the current process."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()

    def get(self) -> Database:
        local = self._local
        db = getattr(local, "db", None)
        if db is not None and local.pid == os.getpid():
            return db
        if db is not None:
            _inherited.append(db)
        local.db, local.pid = store.connect(self.path), os.getpid()
        return local.db

    def end_request(self) -> None:
        """Roll back a transaction a failed request left open, so it holds no lock and no snapshot."""
        db = getattr(self._local, "db", None)
        if db is not None and self._local.pid == os.getpid() and db.conn.in_transaction:
            db.rollback()


def connections_of(app: Flask) -> ThreadConnections:
    """The app's connections (one per thread) to its database."""
    connections = app.extensions.get("database")
    if connections is None or connections.path != app.config["DATABASE"]:
        connections = app.extensions["database"] = ThreadConnections(app.config["DATABASE"])
    return connections


def get_db() -> Database:
    """This thread's database connection, opened on first use."""
    return connections_of(current_app).get()


def end_request(_error: BaseException | None = None) -> None:
    connections = current_app.extensions.get("database")
    if connections is not None:
        connections.end_request()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database or bring it up to date (safe to run again)."""
    # the data folder is its owner's alone, as the files in it (``store.connect``)
    os.makedirs(os.path.dirname(os.path.abspath(current_app.config["DATABASE"])), mode=0o700, exist_ok=True)
    db = store.connect(current_app.config["DATABASE"])
    try:
        applied = store.migrate(db)
        # what has waited in a trash for longer than it is kept goes when the site starts
        cutoff = datetime.now(UTC) - timedelta(days=store.TRASH_DAYS)
        store.purge_trash(db, cutoff.replace(microsecond=0).isoformat())
    finally:
        db.close()
    where = current_app.config["DATABASE"]
    if applied:
        click.echo(f"Applied migrations {', '.join(map(str, applied))} to {where}.")
    else:
        click.echo(f"{where} is up to date.")


@click.command("backup")
@click.argument("target", type=click.Path(dir_okay=False, writable=True))
@with_appcontext
def backup_command(target: str) -> None:
    """Copy the database to TARGET while the site keeps running (SQLite's online backup)."""
    if not os.path.isfile(current_app.config["DATABASE"]):
        raise click.ClickException(f"There is no database at {current_app.config['DATABASE']} to back up "
                                   "(COMPANION_INSTANCE_PATH chooses the data folder).")
    source = store.connect(current_app.config["DATABASE"])
    destination = sqlite3.connect(target)
    try:
        source.conn.backup(destination)
    finally:
        destination.close()
        source.close()
    click.echo(f"Backed up {current_app.config['DATABASE']} to {target}.")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(end_request)
    app.cli.add_command(init_db_command)
    app.cli.add_command(backup_command)
