"""Several phones entering points into the same play at once, through gunicorn with several workers.

Each phone is its own process with its own cookie and CSRF token, as at a real table. Afterwards every
entry that was answered is stored exactly once, the play's sequence numbers have no gaps, and SQLite
says the database is intact. The helpers here (a gunicorn on a loopback port, a phone speaking plain
http.client) serve the crash test too.
"""

from __future__ import annotations

import contextlib
import http.client
import multiprocessing
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from companion import store
from companion.games import GAMES
from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.table import initial_table

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

PHONES = 4
ENTRIES_PER_PHONE = 20
# Bounds, never expectations: on a loaded machine (8 test runs on 2 cores) a request can take seconds,
# so every wait is for an event, and only these generous limits keep a stuck test from hanging forever.
SERVER_START_SECONDS = 120
REQUEST_SECONDS = 120
WAIT_SECONDS = 600


# --- a server and phones -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class SampleTable:
    """An instance folder with a group of two players and an active play."""

    instance: Path
    database: Path
    join_code: str
    play_id: int


def game_without_options(seats: tuple[Seat, ...]) -> str:
    """A game whose play can start with no options chosen (the store is used directly, not the form)."""
    for slug in GAMES:
        try:
            initial_table(PlaySetup(slug, seats, {}))
        except RulesError:
            continue
        return slug
    raise LookupError("every game needs options to start")


def sample_table(folder: Path) -> SampleTable:
    """The instance folder the server will use: secret key, database, a group and a play."""
    instance = folder / "instance"
    instance.mkdir()
    # the secret key is written here, once, so that every worker signs cookies with the same key
    (instance / "config.py").write_text("SECRET_KEY = 'concurrency test'\n")
    database = instance / "companion.sqlite3"
    db = store.connect(database)
    try:
        store.migrate(db)
        group = store.create_group(db, "Busy table")
        seats = (Seat("Anna", "red"), Seat("Ben", "blue"))
        players = [store.add_player(db, group.id, seat.name, seat.colour) for seat in seats]
        chairs = [(player, seat.colour) for player, seat in zip(players, seats, strict=True)]
        play_id = store.start_play(db, group.id, game_without_options(seats), chairs)
    finally:
        db.close()
    return SampleTable(instance, database, group.join_code, play_id)


class Gunicorn:
    """``gunicorn 'app:create_app()'`` on a free loopback port, in its own process group."""

    def __init__(self, instance: Path, workers: int = 3) -> None:
        self.port = free_port()
        self.instance = instance
        self.workers = workers
        self.process: subprocess.Popen | None = None

    def start(self) -> Gunicorn:
        command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}",
                   "--workers", str(self.workers), "--worker-class", "gthread", "--threads", "2",
                   "--log-level", "warning", "--graceful-timeout", "2",
                   # a worker starved of CPU on a loaded machine must not be killed as stuck mid-test
                   "--timeout", str(WAIT_SECONDS), "app:create_app()"]
        env = {**os.environ, "COMPANION_INSTANCE_PATH": str(self.instance)}
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_SECONDS)
                connection.request("GET", "/")
                if connection.getresponse().status == 200:
                    connection.close()
                    return self
            time.sleep(0.1)  # polls for the port to open; nothing here depends on how long it takes
        self.stop()
        raise RuntimeError(f"gunicorn did not answer within {SERVER_START_SECONDS} s")

    def kill(self) -> None:
        """SIGKILL to the server and its workers at once: a power cut for the process, no clean-up."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


@contextlib.contextmanager
def gunicorn(instance: Path, workers: int = 3) -> Iterator[Gunicorn]:
    server = Gunicorn(instance, workers).start()
    try:
        yield server
    finally:
        server.stop()


class Phone:
    """One phone: its own connection and session cookie, forms sent with the page's CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)

    def request(self, method: str, path: str, fields: dict[str, str] | None = None) -> tuple[int, str]:
        # a connection of its own per request: one kept open would be closed by the server while the
        # phone waits for the others (gunicorn keeps an idle one for 2 s), failing the next request
        headers = {"Connection": "close", **({"Cookie": self.cookie} if self.cookie else {})}
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
        except (http.client.HTTPException, OSError):
            self.connection.close()  # a new connection for the next request
            raise
        text = response.read().decode()
        for header in response.headers.get_all("Set-Cookie") or []:
            cookie = SimpleCookie(header)
            if "session" in cookie:
                self.cookie = f"session={cookie['session'].value}"
        return response.status, text

    def token(self, path: str) -> str:
        status, page = self.request("GET", path)
        assert status == 200, (path, status)
        return re.search(r'<input[^>]*name="csrf_token"[^>]*value="([^"]+)"', page).group(1)

    def join(self, code: str) -> None:
        status, _ = self.request("POST", "/join", {"code": code, "csrf_token": self.token("/")})
        assert status == 302, status


def enter_points(port: int, join_code: str, play_id: int, phone_name: str, entries: int,
                 ready, start) -> list[tuple[str, int]]:
    """One phone's evening: join, then enter points again and again; returns (note, status) per entry.

    The phone says when it has joined (``ready``) and waits for ``start``, so that all phones send
    their entries at the same time however long joining took.
    """
    phone = Phone(port)
    phone.join(join_code)
    token = phone.token(f"/plays/{play_id}")
    ready.release()
    assert start.wait(WAIT_SECONDS), "the other phones never got ready"
    answered = []
    for number in range(entries):
        note = f"{phone_name} entry {number}"
        status, _ = phone.request("POST", f"/plays/{play_id}/adjust",
                                  {"seat": str(number % 2), "points": "1", "note": note, "csrf_token": token})
        answered.append((note, status))
    return answered


def integrity(database: Path) -> str:
    connection = sqlite3.connect(database)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def stored_notes(database: Path, play_id: int) -> tuple[list[int], list[str]]:
    db = store.connect(database)
    try:
        events = store.list_events(db, play_id)
    finally:
        db.close()
    return [e.seq for e in events], [e.payload.get("note", "") for e in events]


# --- the tests -----------------------------------------------------------------------------------


def test_phones_entering_at_once_lose_and_duplicate_nothing(tmp_path):
    table = sample_table(tmp_path)
    # spawn, not fork: each phone starts clean, like a separate device
    context = multiprocessing.get_context("spawn")
    with gunicorn(table.instance, workers=3) as server, context.Manager() as manager, \
            context.Pool(PHONES) as pool:
        ready, start = manager.Semaphore(0), manager.Event()
        jobs = [pool.apply_async(enter_points, (server.port, table.join_code, table.play_id,
                                                f"phone {n}", ENTRIES_PER_PHONE, ready, start))
                for n in range(PHONES)]
        for _ in range(PHONES):
            assert ready.acquire(timeout=WAIT_SECONDS), "a phone could not join"
        start.set()
        answered = [entry for job in jobs for entry in job.get(WAIT_SECONDS)]
    statuses = {status for _, status in answered}
    assert statuses == {302}, f"every entry should be accepted and redirected, got {statuses}"
    assert len(answered) == PHONES * ENTRIES_PER_PHONE
    seqs, notes = stored_notes(table.database, table.play_id)
    assert sorted(notes) == sorted(note for note, _ in answered), "an entry was lost or stored twice"
    assert seqs == list(range(1, len(answered) + 1)), "sequence numbers have gaps or repeats"
    db = store.connect(table.database)
    assert store.get_play(db, table.play_id).version == len(answered)
    db.close()
    assert integrity(table.database) == "ok"


def test_two_phones_undoing_at_once_undo_one_entry(tmp_path):
    table = sample_table(tmp_path)
    db = store.connect(table.database)
    for points in (1, 2, 3):
        store.append_event(db, table.play_id, "adjust", {"seat": 0, "points": points, "note": ""})
    version = store.get_play(db, table.play_id).version
    db.close()
    with gunicorn(table.instance, workers=3) as server:
        phones = [Phone(server.port) for _ in range(PHONES)]
        tokens = []
        for phone in phones:
            phone.join(table.join_code)
            tokens.append(phone.token(f"/plays/{table.play_id}"))
        start = threading.Barrier(PHONES)
        statuses: list[int | str] = []

        def undo(phone: Phone, token: str) -> None:
            try:
                start.wait(WAIT_SECONDS)
                status, _ = phone.request("POST", f"/plays/{table.play_id}/undo",
                                          {"version": str(version), "csrf_token": token})
            except Exception as error:  # reported by the assertion below, not lost in the thread
                statuses.append(repr(error))
            else:
                statuses.append(status)

        threads = [threading.Thread(target=undo, args=pair) for pair in zip(phones, tokens, strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_SECONDS)
            assert not thread.is_alive(), "an undo never came back"
    # the first undo wins; the others were based on a version that no longer exists
    assert sorted(statuses, key=str) == [302] + [409] * (PHONES - 1), statuses
    seqs, _ = stored_notes(table.database, table.play_id)
    assert seqs == [1, 2]
    assert integrity(table.database) == "ok"
