"""One connection per worker thread: reused, never reading an old snapshot, fresh after a fork; and the
``init-db`` and ``backup`` commands, which touch no file that is not the companion's database."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion import cli, store
from companion.web.database import get_db
from tests.conftest import add_players, create_group


def _in_thread(function):
    """Run ``function`` in a new thread and return what it returned."""
    result = []
    worker = threading.Thread(target=lambda: result.append(function()))
    worker.start()
    worker.join()
    return result[0]


def test_a_thread_keeps_its_connection_across_requests(app):
    with app.app_context():
        first = get_db()
    with app.app_context():
        assert get_db() is first
    def other_threads_connection():
        with app.app_context():
            return get_db()
    assert _in_thread(other_threads_connection) is not first


def test_a_change_made_on_another_thread_is_seen_by_the_next_request(app, client):
    group_id = create_group(client, "Before")
    assert "Before" in client.get(f"/groups/{group_id}").text  # this thread's connection has read it

    def rename():
        with app.app_context():
            store.rename_group(get_db(), group_id, "After")
    _in_thread(rename)
    page = client.get(f"/groups/{group_id}").text
    assert "After" in page and "Before" not in page


def test_a_change_by_another_process_is_seen_too(client, db):
    group_id = create_group(client)
    client.get(f"/groups/{group_id}")
    store.add_player(db, group_id, "Zoe", "green")  # e.g. an import run from the command line
    assert "Zoe" in client.get(f"/groups/{group_id}").text


def test_no_transaction_outlives_a_request(app, client):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"))
    with app.app_context():
        db = get_db()
        db.execute("BEGIN")  # as if a request failed halfway through its writes
        db.execute("UPDATE groups SET name = 'half done' WHERE id = ?", [group_id])
    assert not db.conn.in_transaction
    assert "half done" not in client.get(f"/groups/{group_id}").text
    assert not db.conn.in_transaction


def _child_connection(app, answer) -> None:
    with app.app_context():
        db = get_db()
        answer.send((id(db), db.execute("SELECT name FROM groups").fetchone()[0]))


def test_a_forked_worker_opens_its_own_connection(app, client):
    create_group(client, "Shared")
    with app.app_context():
        parents = get_db()
    receiving, sending = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_child_connection, args=(app, sending))
    child.start()
    child_id, name = receiving.recv()
    child.join()
    assert child.exitcode == 0
    assert child_id != id(parents) and name == "Shared"
    with app.app_context():
        assert get_db() is parents  # the parent's connection is untouched
        assert get_db().execute("SELECT name FROM groups").fetchone()[0] == "Shared"


# --- init-db and backup -----------------------------------------------------------------------------

@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    """The database's path in the data folder the commands below use (not made yet)."""
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    monkeypatch.delenv("COMPANION_REPLICA_URL", raising=False)
    return tmp_path / "data" / "companion.sqlite3"


def command(*arguments: str):
    return CliRunner().invoke(cli.cli, list(arguments))


def newer_database(path: Path) -> None:
    """A database a newer companion brought up to date: it holds a migration this one does not know."""
    with contextlib.closing(store.connect(path)) as db:
        store.migrate(db)
        db.execute("INSERT INTO migrations VALUES (?, 'm999_of_a_newer_release', '2030-01-01')",
                   [len(store.MIGRATIONS) + 1])


def another_programs_database(path: Path) -> None:
    """A database of another program, put in the companion's place by mistake."""
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("CREATE TABLE kept_plays (name TEXT)")
        connection.execute("INSERT INTO kept_plays VALUES ('Mayflower')")


def migrations(path: Path) -> list[int]:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return [number for (number,) in connection.execute("SELECT number FROM migrations ORDER BY number")]


def test_init_db_refuses_a_database_of_a_newer_companion(data):
    data.parent.mkdir()
    newer_database(data)
    result = command("init-db")
    assert result.exit_code == 1, result.output
    assert (f"{data} was made by a newer companion (migration {len(store.MIGRATIONS) + 1}; this one knows "
            f"{len(store.MIGRATIONS)}): upgrade the companion to serve it.") in result.output
    assert "up to date" not in result.output
    assert migrations(data) == list(range(1, len(store.MIGRATIONS) + 2))


def test_init_db_leaves_a_database_of_another_program_alone(data):
    data.parent.mkdir()
    another_programs_database(data)
    result = command("init-db")
    assert result.exit_code == 1, result.output
    assert (f"{data} holds another program's tables, and no record of the companion's migrations: move it "
            "away, or set COMPANION_INSTANCE_PATH to another data folder.") in result.output
    with contextlib.closing(sqlite3.connect(data)) as connection:
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == [("kept_plays",)]
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # not switched to WAL


def test_init_db_on_a_file_that_is_no_database_says_so_without_a_traceback(data):
    data.parent.mkdir()
    backup = '{"format": "game-night-companion-backup", "version": 1}'  # a group's backup, saved there
    data.write_text(backup)
    result = command("init-db")
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit), repr(result.exception)  # a message, no traceback
    assert f"Cannot open {data} as a database: file is not a database." in result.output
    assert data.read_text() == backup


def test_the_readmes_backup_command_makes_its_folder(data, tmp_path, monkeypatch):
    assert command("init-db").exit_code == 0
    monkeypatch.chdir(tmp_path)  # a checkout without backups/
    result = command("backup", "backups/companion-2025-01-01.sqlite3")
    assert result.exit_code == 0, repr(result.exception)
    assert migrations(tmp_path / "backups" / "companion-2025-01-01.sqlite3") == migrations(data)
    assert (tmp_path / "backups").stat().st_mode & 0o777 == 0o700


def test_a_backup_is_readable_by_its_owner_only(data, tmp_path):
    """The database is its owner's alone (it holds every group's invite token); so is its copy."""
    assert command("init-db").exit_code == 0
    usual = os.umask(0o022)  # a usual login's: new files readable by everyone unless the command says not
    try:
        result = command("backup", str(tmp_path / "copy.sqlite3"))
    finally:
        os.umask(usual)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "copy.sqlite3").stat().st_mode & 0o077 == 0
