"""One database connection per request, and the ``init-db`` command."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext
from sqlite_utils import Database

from companion import store


def get_db() -> Database:
    """The request's database connection, opened on first use."""
    if "db" not in g:
        g.db = store.connect(current_app.config["DATABASE"])
    return g.db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database or bring it up to date (safe to run again)."""
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
    source = store.connect(current_app.config["DATABASE"])
    destination = sqlite3.connect(target)
    try:
        source.conn.backup(destination)
    finally:
        destination.close()
        source.close()
    click.echo(f"Backed up {current_app.config['DATABASE']} to {target}.")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    app.cli.add_command(backup_command)
