"""The application factory, the instance folder and the init-db command."""

from __future__ import annotations

import sqlite3

from app import create_app
from companion import config, store


def test_test_config_overrides_defaults(app):
    assert app.testing
    assert app.config["DATABASE"].endswith("companion.sqlite3")
    assert app.config["MAX_CONTENT_LENGTH"] > 0


def test_first_run_generates_a_secret_key_and_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    first = create_app()
    config_file = tmp_path / "data" / "config.py"
    assert config_file.exists()
    assert len(first.config["SECRET_KEY"]) >= 32
    assert first.config["DATABASE"] == str(tmp_path / "data" / "companion.sqlite3")
    assert create_app().config["SECRET_KEY"] == first.config["SECRET_KEY"]


def test_init_db_creates_the_database_and_is_safe_to_run_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    with config.for_a_command():  # as the command line builds it: a server would migrate on start
        runner = create_app().test_cli_runner()
    first = runner.invoke(args=["init-db"])
    assert first.exit_code == 0 and "Applied migrations 1" in first.output
    second = runner.invoke(args=["init-db"])
    assert second.exit_code == 0 and "up to date" in second.output
    conn = sqlite3.connect(tmp_path / "companion.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"groups", "players", "plays", "seats", "events", "results", "migrations"} <= tables
    assert conn.execute("SELECT COUNT(*) FROM migrations").fetchone()[0] == len(store.MIGRATIONS)


def test_home_page_is_served(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "Start a group" in response.text
    assert 'name="viewport"' in response.text


def test_backup_command_copies_the_data(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "live"))
    app = create_app()
    runner = app.test_cli_runner()
    runner.invoke(args=["init-db"])
    db = store.connect(app.config["DATABASE"])
    store.create_group(db, "Kept safe")
    db.close()
    result = runner.invoke(args=["backup", str(tmp_path / "copy.sqlite3")])
    assert result.exit_code == 0, result.output
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("SELECT name FROM groups").fetchall() == [("Kept safe",)]
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_unexpected_failure_shows_the_friendly_error_page(tmp_path):
    from tests.conftest import make_app

    app = make_app(tmp_path, TESTING=False)

    @app.get("/broken-on-purpose")
    def broken():
        raise RuntimeError("a bug")

    page = app.test_client().get("/broken-on-purpose")
    assert page.status_code == 500
    assert "Your last entry may not have been saved" in page.text
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
