"""``run`` never lets Litestream copy a database over a replica's history it did not come from.

A database Litestream never copied (no ``.companion.sqlite3-litestream`` record beside it) — made by
``init-db`` on a rebuilt machine before the replica was set — would replace the history the replica
holds, and ``/healthz`` would say the replica is up to date. ``run`` refuses it, unless ``restore``
just put it there. A folder replica whose folder is missing where a drive seems unmounted is refused
too: Litestream would write the "replica" into the empty mount point, on the same disk. The tests use
the real ``litestream`` program, as tests/test_replication.py does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion import cli
from companion.store import replica as replicas
from tests import test_replication
from tests.test_concurrency import free_port
from tests.test_replication import (
    WAIT_SECONDS,
    annas_scores,
    healthz,
    litestream,
    log_plays,
    names,
    new_database,
    replicate_once,
    run,
    served,
    wait_until,
)

# the fixtures of tests/test_replication.py: a data folder and a replica folder, and a club in the first
environment, club = test_replication.environment, test_replication.club

PLAYS = ["Mayflower", "Gold West", "Great Western Trail"]


def replica_files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def without_replica(environment: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in environment.items() if name != "COMPANION_REPLICA_URL"}


def refused(tmp_path: Path, environment: dict[str, str]) -> str:
    """``run`` started as the service starts it, which must stop with an error rather than serve: its
    output (the test fails as soon as the site answers instead)."""
    port, log = free_port(), tmp_path / "refused.log"
    server = test_replication.start_run(port, log, environment, workers=1)
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while server.poll() is None:
            with contextlib.suppress(OSError):
                if healthz(port)["status"] == "ok":
                    pytest.fail(f"the site started: {log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"run neither served nor stopped within {WAIT_SECONDS} s: {log.read_text()}")
            time.sleep(0.1)  # polls the process and the port; nothing depends on how long this takes
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(WAIT_SECONDS)
    assert server.returncode == 1, log.read_text()
    return log.read_text()


@pytest.fixture
def history(tmp_path, environment) -> Path:
    """A replica folder holding the database of a machine that is gone (its plays: ``PLAYS``)."""
    litestream()
    old_box = tmp_path / "old box.sqlite3"
    new_database(old_box, *PLAYS)
    replica = tmp_path / "usb" / "companion"
    replicate_once(old_box, replica)
    old_box.unlink()
    return replica


@pytest.fixture
def rebuilt_box(environment, history) -> Path:
    """The new machine's database, made by ``init-db`` before the replica was set (empty)."""
    made = run("init-db", env=without_replica(environment))
    assert made.returncode == 0, made.stderr
    database = Path(environment["COMPANION_INSTANCE_PATH"]) / "companion.sqlite3"
    assert database.exists() and not (database.parent / ".companion.sqlite3-litestream").exists()
    return database


def restorable(tmp_path: Path, environment: dict[str, str], where: str) -> list[str]:
    """The plays a restore from the replica into another data folder brings back."""
    elsewhere = {**environment, "COMPANION_INSTANCE_PATH": str(tmp_path / where)}
    restored = run("restore", env=elsewhere)
    assert restored.returncode == 0, restored.stderr
    return names(tmp_path / where / "companion.sqlite3")


def run_in_process(monkeypatch) -> tuple[CliRunner, list[list[str]]]:
    """``run`` in this process with the settings of ``environment``; the exec it ends with is recorded."""
    started: list[list[str]] = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    monkeypatch.setattr(cli, "print_addresses", lambda port: None)
    return CliRunner().invoke(cli.cli, ["run", "--port", str(free_port())]), started


# --- a database Litestream never copied ---------------------------------------------------------------

@pytest.mark.slow
def test_a_rebuilt_box_refuses_to_copy_its_new_database_over_the_replicas_history(
        tmp_path, environment, history, rebuilt_box):
    before = replica_files(history)
    output = refused(tmp_path, environment)
    assert (f"{rebuilt_box} was never copied to a replica (.companion.sqlite3-litestream is missing "
            f"beside it), but {environment['COMPANION_REPLICA_URL']} holds a database") in output
    assert "restore --force" in output and "empty the replica or set COMPANION_REPLICA_URL" in output
    # nothing was copied, to the replica or from it
    assert replica_files(history) == before
    assert not (rebuilt_box.parent / ".companion.sqlite3-litestream").exists()
    assert restorable(tmp_path, environment, "third box") == PLAYS
    assert [path.name for path in rebuilt_box.parent.iterdir() if "checking" in path.name] == []


@pytest.mark.slow
def test_restore_then_run_serves_the_replicas_history_and_restarts(tmp_path, environment, history,
                                                                   rebuilt_box):
    forced = run("restore", "--force", env=environment)
    assert forced.returncode == 0, forced.stderr
    mark = rebuilt_box.parent / ".companion.sqlite3-restored"
    assert mark.exists()
    record = rebuilt_box.parent / ".companion.sqlite3-litestream"
    with served(tmp_path, environment) as (server, _port, log):
        assert not mark.exists()  # accepted once
        wait_until(record.exists, "Litestream's record of the database", server, log)
        server.send_signal(signal.SIGTERM)
        assert server.wait(WAIT_SECONDS) == 0
    assert names(rebuilt_box) == PLAYS
    with served(tmp_path, environment):  # a restart: Litestream copied this database before
        pass
    assert names(rebuilt_box) == PLAYS
    assert restorable(tmp_path, environment, "third box") == PLAYS


def test_a_restored_database_is_accepted_by_one_run_only(environment, history, rebuilt_box, monkeypatch):
    assert run("restore", "--force", env=environment).returncode == 0
    first, started = run_in_process(monkeypatch)
    assert first.exit_code == 0, first.output
    assert len(started) == 1
    # that run never reached Litestream (no record): another restore is due before the next one
    second, started = run_in_process(monkeypatch)
    assert second.exit_code == 1 and "was never copied to a replica" in second.output
    assert started == []


def test_a_database_replaced_after_its_restore_is_not_accepted(environment, history, rebuilt_box,
                                                                monkeypatch):
    assert run("restore", "--force", env=environment).returncode == 0
    rebuilt_box.unlink()
    new_database(rebuilt_box, "only here")  # another file than the one restored
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 1 and "was never copied to a replica" in result.output
    assert started == [] and names(rebuilt_box) == ["only here"]


@pytest.mark.slow
def test_a_normal_restart_serves_the_database_litestream_copies(tmp_path, environment, club):
    with served(tmp_path, environment) as (server, port, log):  # the first replica of this database
        log_plays(port, club, range(50, 53))
        position = replicas.log_position(club.database)
        wait_until(lambda: replicas.holds(club.replica, position), "the replica's catching up", server,
                   log)
        server.send_signal(signal.SIGTERM)
        assert server.wait(WAIT_SECONDS) == 0
    with served(tmp_path, environment) as (_server, port, _log):
        log_plays(port, club, range(60, 61))
    assert annas_scores(club.database) == [50, 51, 52, 60]


def test_a_database_beside_an_empty_replica_becomes_its_first_copy(tmp_path, environment, monkeypatch):
    litestream()
    (tmp_path / "usb" / "companion").mkdir(parents=True)
    made = run("init-db", env=without_replica(environment))
    assert made.returncode == 0, made.stderr
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 0, result.output
    assert len(started) == 1


def test_a_folder_url_with_two_slashes_cannot_copy_a_new_database_over_the_replicas_history(
        tmp_path, environment, history, rebuilt_box, monkeypatch):
    # a typing slip for the replica's file:///… URL, which Litestream reads as that very folder …
    slip = "file://" + str(history).lstrip("/")
    subprocess.run([litestream(), "restore", "-o", str(tmp_path / "restored.sqlite3"), slip], check=True,
                   capture_output=True)
    assert names(tmp_path / "restored.sqlite3") == PLAYS
    # … but whose path alone names another folder, where run's checks would find no replica
    monkeypatch.setenv("COMPANION_REPLICA_URL", slip)
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 1 and started == []
    assert f"COMPANION_REPLICA_URL: a folder's URL has three slashes, as {history.as_uri()}" in result.output


# --- other replicas than a folder: Litestream is asked ----------------------------------------------

@pytest.mark.parametrize("kept", [True, False])
def test_a_replica_other_than_a_folder_is_asked_by_a_restore(tmp_path, environment, monkeypatch, kept):
    litestream()
    replica = tmp_path / "usb" / "companion"
    if kept:
        new_database(tmp_path / "old box.sqlite3", *PLAYS)
        replicate_once(tmp_path / "old box.sqlite3", replica)
    else:
        replica.mkdir(parents=True)
    monkeypatch.setattr(cli.replicas, "replica_folder", lambda url: None)  # as for a bucket
    made = run("init-db", env=without_replica(environment))
    assert made.returncode == 0, made.stderr
    database = Path(environment["COMPANION_INSTANCE_PATH"]) / "companion.sqlite3"
    result, started = run_in_process(monkeypatch)
    if kept:
        assert result.exit_code == 1 and "holds a database" in result.output
        assert started == []
    else:
        assert result.exit_code == 0, result.output
    assert sorted(path.name for path in database.parent.iterdir() if "checking" in path.name) == []


def test_a_replica_that_cannot_be_reached_is_not_copied_over(tmp_path, environment, monkeypatch):
    litestream()
    monkeypatch.setenv("COMPANION_REPLICA_URL", f"sftp://games:secret@127.0.0.1:{free_port()}/companion")
    made = run("init-db", env=without_replica(environment))
    assert made.returncode == 0, made.stderr
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 1, result.output
    assert "Cannot tell whether sftp://games:***@127.0.0.1" in result.output and "secret" not in result.output
    assert started == []


# --- a folder replica whose drive is not mounted -------------------------------------------------------

@pytest.mark.slow
def test_a_rebuilt_box_with_the_drive_not_mounted_serves_no_empty_database(tmp_path, environment):
    litestream()
    mount_point = tmp_path / "usb"
    mount_point.mkdir()  # the drive's mount point, empty: nothing is mounted on it
    output = refused(tmp_path, environment)
    folder = mount_point / "companion"
    assert (f"The replica's folder {folder} is missing: is its drive mounted? Mount it and start again. "
            f"To start a new replica there, create the folder first: mkdir -p {folder}") in output
    assert not (Path(environment["COMPANION_INSTANCE_PATH"]) / "companion.sqlite3").exists()
    assert list(mount_point.iterdir()) == []  # nothing written to the disk under the mount point


@pytest.mark.parametrize("mount_point_left", [True, False])
def test_a_restart_with_the_drive_not_mounted_is_refused(tmp_path, environment, club, monkeypatch,
                                                         mount_point_left):
    replicate_once(club.database, club.replica)
    (club.database.parent / ".companion.sqlite3-litestream").mkdir(exist_ok=True)  # copied before
    (tmp_path / "usb").rename(tmp_path / "the drive")  # unmounted: the mount point empty, or gone
    if mount_point_left:
        (tmp_path / "usb").mkdir()
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 1 and f"The replica's folder {club.replica} is missing" in result.output
    assert started == [] and not club.replica.exists()


def test_a_new_replica_starts_in_a_folder_made_for_it(tmp_path, environment, monkeypatch):
    litestream()
    (tmp_path / "usb").mkdir()
    refusal, started = run_in_process(monkeypatch)
    assert refusal.exit_code == 1 and "mkdir -p" in refusal.output and started == []
    (tmp_path / "usb" / "companion").mkdir()
    result, started = run_in_process(monkeypatch)
    assert result.exit_code == 0, result.output
    assert len(started) == 1
