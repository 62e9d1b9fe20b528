"""Settings from the environment, where the instance folder is, and /healthz."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask

from app import create_app
from companion import config, store
from companion.store.migrations import UnknownDatabase
from tests.conftest import make_app
from tests.test_database import another_programs_database, newer_database

ROOT = Path(__file__).resolve().parent.parent


def test_settings_come_typed_from_companion_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_MAX_CONTENT_LENGTH", "524288")
    monkeypatch.setenv("COMPANION_JOIN_FAILURES_ALLOWED", "3")
    monkeypatch.setenv("COMPANION_SESSION_COOKIE_NAME", "table")
    monkeypatch.setenv("COMPANION_BEHIND_PROXY", "yes")
    monkeypatch.setenv("COMPANION_HTTPS", "true")
    app = create_app()
    assert app.config["MAX_CONTENT_LENGTH"] == 524288
    assert app.config["JOIN_FAILURES_ALLOWED"] == 3
    assert app.config["SESSION_COOKIE_NAME"] == "table"
    assert app.config["COMPANION_BEHIND_PROXY"] is True
    assert app.config["COMPANION_HTTPS"] is True and app.config["SESSION_COOKIE_SECURE"] is True
    # the full-name flags are not kept twice, and the instance path is no setting of the site
    assert not {"BEHIND_PROXY", "HTTPS", "INSTANCE_PATH"} & set(app.config)


def test_the_live_pause_reaches_the_pages(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_LIVE_POLL_MS", "4000")
    page = create_app().test_client().get("/").text
    assert 'data-poll-ms="4000"' in page


def test_the_instance_config_file_has_the_last_word(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_JOIN_FAILURES_ALLOWED", "3")
    create_app()  # writes config.py with the secret key
    with (tmp_path / "config.py").open("a") as file:
        file.write("JOIN_FAILURES_ALLOWED = 7\n")
    assert create_app().config["JOIN_FAILURES_ALLOWED"] == 7


@pytest.mark.parametrize(("value", "expected"), [("30", 30.0), ("2.5", 2.5), (None, 60.0)])
def test_the_replica_lag_allowed_is_a_number_of_seconds(tmp_path, monkeypatch, value, expected):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    if value is not None:
        monkeypatch.setenv("COMPANION_REPLICA_MAX_LAG", value)
    assert create_app().config["COMPANION_REPLICA_MAX_LAG"] == expected


@pytest.mark.parametrize("value", ["5m", "0", "-1", "inf", "nan", "true", ""])
def test_a_replica_lag_that_is_no_number_of_seconds_stops_the_start(tmp_path, monkeypatch, value):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_REPLICA_MAX_LAG", value)
    with pytest.raises(ValueError, match="COMPANION_REPLICA_MAX_LAG must be a number of seconds above 0"):
        create_app()


def test_a_replica_lag_in_the_instance_config_is_checked_too(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    create_app()  # writes config.py with the secret key
    with (tmp_path / "config.py").open("a") as file:
        file.write("COMPANION_REPLICA_MAX_LAG = '1 minute'\n")
    with pytest.raises(ValueError, match="not '1 minute'"):
        create_app()


@pytest.mark.parametrize(("name", "value", "wanted"), [
    ("JOIN_FAILURES_ALLOWED", "five", "a whole number of wrong codes, 0 or more"),  # else: wrong codes 500
    ("MAX_CONTENT_LENGTH", "256k", "a whole number of bytes, 1 or more"),  # else: every POST 500
    ("IMPORTS_ALLOWED", "ten", "a whole number of backups, 0 or more"),  # else: every import 500
    ("JOIN_FAILURE_WINDOW_SECONDS", "2.5", "a whole number of seconds, 1 or more"),
    ("BACKUP_MAX_BYTES", "0", "a whole number of bytes, 1 or more"),
    ("JOIN_NEW_ADDRESS_DAYS", "-1", "a whole number of days, 0 or more"),
    ("PERMANENT_SESSION_LIFETIME", "400d", "a whole number of seconds, 1 or more"),
    ("LIVE_POLL_MS", "true", "a whole number of milliseconds, 1 or more"),
])
def test_a_numeric_setting_that_is_no_number_stops_the_start(tmp_path, monkeypatch, name, value, wanted):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv(f"COMPANION_{name}", value)
    with pytest.raises(ValueError, match=re.escape(f"COMPANION_{name} must be {wanted}, not ")):
        create_app()


@pytest.mark.parametrize(("name", "value", "kept"), [
    ("JOIN_FAILURES_ALLOWED", "7", 7),  # as text in instance/config.py
    ("JOIN_FAILURES_ALLOWED", 0, 0),
    ("MAX_CONTENT_LENGTH", 1e6, 1_000_000),
    ("PERMANENT_SESSION_LIFETIME", timedelta(days=30), 30 * 86400),  # as Flask takes it
    ("COMPANION_REPLICA_MAX_LAG", 5, 5.0),
])
def test_a_numeric_setting_is_kept_as_the_number_it_reads_as(tmp_path, name, value, kept):
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(tmp_path / "c.sqlite3"),
                      name: value})
    assert app.config[name] == kept and type(app.config[name]) is type(kept)


def test_every_number_the_site_is_set_up_with_is_checked(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(tmp_path / "c.sqlite3")})
    numbers = {name for name, value in app.config.items()
               if isinstance(value, int | float) and not isinstance(value, bool)
               and value != Flask.default_config.get(name)}
    assert numbers == set(config.NUMERIC_SETTINGS)


@pytest.mark.parametrize(("url", "refusal"), [
    # Litestream reads the first as the folder /mnt/usb/companion, a path as /usb/companion
    ("file://mnt/usb/companion", "file:///mnt/usb/companion: with two, 'mnt' is taken for the name"),
    ("file://localhost/mnt/usb/companion", "file:///localhost/mnt/usb/companion: with two, 'localhost'"),
    ("file:///mnt/usb/companion", None),
    ("s3://games-bucket/companion", None),
])
def test_a_folder_replicas_url_with_two_slashes_stops_the_start(tmp_path, monkeypatch, url, refusal):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_REPLICA_URL", url)
    if refusal is None:
        assert create_app().config["COMPANION_REPLICA_URL"] == url
        return
    refused = f"COMPANION_REPLICA_URL: a folder's URL has three slashes, as {refusal}"
    with pytest.raises(ValueError, match=re.escape(refused)):
        create_app()


@pytest.mark.parametrize(("value", "expected"), [
    (True, True), (1, True), ("1", True), ("Yes", True), (" on ", True), ("true", True),
    (False, False), (0, False), ("", False), ("0", False), ("no", False), ("off", False),
])
def test_flags(value, expected):
    assert config.flag(value) is expected


def test_a_checkout_keeps_its_instance_beside_app_py(monkeypatch):
    monkeypatch.delenv("COMPANION_INSTANCE_PATH", raising=False)
    assert config.is_checkout()
    assert Path(config.instance_path()) == Path(__file__).resolve().parent.parent / "instance"
    # the pages are found beside app.py too
    assert Path(config.site_folder("templates"), "base.html").is_file()
    assert Path(config.site_folder("translations"), "de", "LC_MESSAGES", "messages.mo").is_file()


def test_an_installed_copy_keeps_its_data_in_the_users_data_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_INSTANCE_PATH", raising=False)
    monkeypatch.setattr(config, "is_checkout", lambda: False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert config.instance_path() == str(tmp_path / "data" / "game-night-companion")
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config.instance_path() == str(tmp_path / "home" / ".local" / "share" / "game-night-companion")
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "elsewhere"))
    assert config.instance_path() == str(tmp_path / "elsewhere")


# --- /healthz ---------------------------------------------------------------------------------------

def test_healthz_says_ok_without_a_cookie(app):
    client = app.test_client()
    client.get("/")  # a phone that has visited before: the health check must still set no cookie
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 200
    assert answer.json == {"status": "ok", "schema": len(store.MIGRATIONS)}
    assert "Set-Cookie" not in answer.headers
    assert answer.headers["Cache-Control"] == "no-store"


def test_healthz_answers_with_csrf_on(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    assert app.test_client().get("/healthz").status_code == 200


def test_healthz_is_503_when_the_database_cannot_be_opened(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "x",
                      "DATABASE": str(tmp_path / "missing" / "companion.sqlite3")})
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.json["status"] == "unavailable"
    assert "cannot be opened" in answer.json["reason"]
    assert not (tmp_path / "missing").exists()  # the check creates nothing


def test_healthz_is_503_for_a_database_that_was_never_initialised(tmp_path):
    path = tmp_path / "empty.sqlite3"
    sqlite3.connect(path).close()
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(path)})
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.json["schema"] == 0 and "init-db" in answer.json["reason"]


@pytest.mark.parametrize(("made_by", "schema", "reason"), [
    (newer_database, len(store.MIGRATIONS) + 1, "The database was made by a newer companion"),
    (another_programs_database, 0, "The database holds another program's tables"),
])
def test_healthz_is_503_for_a_database_this_companion_does_not_know(tmp_path, made_by, schema, reason):
    path = tmp_path / "companion.sqlite3"
    made_by(path)
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(path)})
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.json["status"] == "unavailable" and answer.json["schema"] == schema
    assert answer.json["reason"].startswith(reason)
    assert str(tmp_path) not in answer.json["reason"]  # where the data is stays the server's


def test_healthz_is_503_for_a_file_that_is_no_database(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database " * 100)
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(path)})
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.json["status"] == "unavailable"


# --- the secret key and the first start ------------------------------------------------------------

def test_the_secret_key_from_the_environment_is_the_key(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_SECRET_KEY", "from the service's environment")
    assert create_app().config["SECRET_KEY"] == "from the service's environment"
    assert not (tmp_path / "config.py").exists()  # no second key is generated
    # a key generated on an earlier start does not replace it either
    (tmp_path / "config.py").write_text("SECRET_KEY = 'generated earlier'\nJOIN_FAILURES_ALLOWED = 7\n")
    app = create_app()
    assert app.config["SECRET_KEY"] == "from the service's environment"
    assert app.config["JOIN_FAILURES_ALLOWED"] == 7
    monkeypatch.delenv("COMPANION_SECRET_KEY")
    assert create_app().config["SECRET_KEY"] == "generated earlier"


def test_a_server_started_before_init_db_migrates_first(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    monkeypatch.delenv("FLASK_RUN_FROM_CLI", raising=False)
    client = create_app().test_client()
    assert client.get("/", headers={"Accept-Language": "en"}).status_code == 200
    assert client.get("/healthz").json == {"status": "ok", "schema": len(store.MIGRATIONS)}


@pytest.mark.parametrize(("made_by", "refusal"), [
    (newer_database, "made by a newer companion .* upgrade the companion"),
    (another_programs_database, "holds another program's tables"),
])
def test_a_server_does_not_start_on_a_database_this_companion_does_not_know(tmp_path, monkeypatch,
                                                                            made_by, refusal):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.delenv("FLASK_RUN_FROM_CLI", raising=False)
    made_by(tmp_path / "companion.sqlite3")
    with pytest.raises(UnknownDatabase, match=refusal):
        create_app()


def test_workers_starting_at_once_migrate_the_new_database_once(tmp_path):
    env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("FLASK_RUN_FROM_CLI", None)
    workers = [subprocess.Popen([sys.executable, "-c", "from app import create_app; create_app()"], env=env,
                                cwd=tmp_path, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for worker in workers:
        _, errors = worker.communicate(timeout=120)
        assert worker.returncode == 0, errors
    database = sqlite3.connect(tmp_path / "companion.sqlite3")
    numbers = [number for (number,) in database.execute("SELECT number FROM migrations ORDER BY number")]
    database.close()
    assert numbers == list(range(1, len(store.MIGRATIONS) + 1))
