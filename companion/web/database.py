"""The app's database: this thread's connection (``get_db``), and the ``init-db`` and ``backup`` commands."""

import contextlib
import os
import sqlite3
from datetime import UTC, datetime, timedelta

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlite_utils import Database

from companion import store
from companion.store.connection import owner_only_files
from companion.store.migrations import UnknownDatabase


def connections_of(app: Flask) -> store.ThreadConnections:
    """The app's connections (one per thread) to its database."""
    connections = app.extensions.get("database")
    if connections is None or connections.path != app.config["DATABASE"]:
        connections = app.extensions["database"] = store.ThreadConnections(
            app.config["DATABASE"], replicated=bool(app.config.get("COMPANION_REPLICA_URL")))
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
    where = current_app.config["DATABASE"]
    os.makedirs(os.path.dirname(os.path.abspath(where)), mode=0o700, exist_ok=True)
    try:
        db = store.connect(where)
    except sqlite3.DatabaseError as error:  # say, a group backup saved in its place
        raise click.ClickException(f"Cannot open {where} as a database: {error}.") from None
    with contextlib.closing(db):
        try:
            applied = store.migrate(db)
        except UnknownDatabase as error:
            raise click.ClickException(str(error)) from None
        # what has waited in a trash for longer than it is kept goes when the site starts
        cutoff = datetime.now(UTC) - timedelta(days=store.TRASH_DAYS)
        store.purge_trash(db, cutoff.replace(microsecond=0).isoformat())
    click.echo(f"Applied migrations {', '.join(map(str, applied))} to {where}." if applied
               else f"{where} is up to date.")


@click.command("backup")
@click.argument("target", type=click.Path(dir_okay=False, writable=True))
@with_appcontext
def backup_command(target: str) -> None:
    """Copy the database to TARGET while the site keeps running (SQLite's online backup)."""
    if not os.path.isfile(current_app.config["DATABASE"]):
        raise click.ClickException(f"There is no database at {current_app.config['DATABASE']} to back up "
                                   "(COMPANION_INSTANCE_PATH chooses the data folder).")
    # the copy holds every group's invite token: its owner's alone, as the database (``store.connect``)
    with owner_only_files():
        # the first of a folder of dated copies (the README: backups/companion-$(date +%F).sqlite3) makes it
        os.makedirs(os.path.dirname(os.path.abspath(target)), mode=0o700, exist_ok=True)
        with (contextlib.closing(store.connect(current_app.config["DATABASE"])) as source,
              contextlib.closing(sqlite3.connect(target)) as destination):
            source.conn.backup(destination)
    click.echo(f"Backed up {current_app.config['DATABASE']} to {target}.")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(end_request)
    app.cli.add_command(init_db_command)
    app.cli.add_command(backup_command)
