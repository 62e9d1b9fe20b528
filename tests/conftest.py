"""Fixtures: an app on a fresh database, clients that join groups, a live server and Chromium."""

from __future__ import annotations

import contextlib
import functools
import html
import os
import re
import selectors
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings
from jinja2 import BytecodeCache
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler

from app import create_app
from bench.taps import CHROMIUM, CHROMIUM_ARGS, PHONE  # the phones the tap counts use
from companion import store
from companion.store.connection import owner_only_files

# Property tests run a small budget by default, so that each stays within a few seconds on a busy
# machine; HYPOTHESIS_PROFILE=fuzz searches deeper. Tests that must reach given answers
# (derandomize=True) keep their own count.
settings.register_profile("default", max_examples=25, deadline=None)
settings.register_profile("fuzz", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# A group without a time zone keeps the server's clocks, and the times the tests expect are UTC: the
# suite and the processes it starts keep UTC on any machine. Tests of other server clocks set them
# for themselves (tests/test_group_time_zone.py).
os.environ["TZ"] = "UTC"
time.tzset()

BROWSER_WAIT_MS = 30_000  # the longest any browser test waits for something to appear


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser and slow tests first. ``make test`` hands each worker one test at a time
    (``--maxschedchunk=1``), so the long ones run side by side at the start and the many short ones
    even out the end, instead of one long test finishing alone while the other worker waits."""
    items.sort(key=lambda item: not any(item.get_closest_marker(name) for name in ("browser", "slow")))


@functools.cache
def new_database() -> bytes:
    """A new database brought up to date, made once per test process: migrating takes longer than most
    tests, and the migrations have tests of their own (``test_store``)."""
    with tempfile.TemporaryDirectory() as folder:
        db = store.connect(Path(folder) / "new.sqlite3")
        store.migrate(db)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        return (Path(folder) / "new.sqlite3").read_bytes()


class TemplatesCompiledOnce(BytecodeCache):
    """Compiled templates kept for the whole test process. Every test makes an app of its own, whose
    Jinja environment would parse and compile again each template it renders: most of a short test's
    time. A template changed on disk is compiled again (the source's checksum is in the bucket)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = TemplatesCompiledOnce()


def make_app(tmp_path: Path, **config) -> Flask:
    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test secret",
        "DATABASE": str(tmp_path / "companion.sqlite3"),
        "WTF_CSRF_ENABLED": False,
        "SERVER_NAME": "companion.test",
        **config,
    })
    app.jinja_env.bytecode_cache = COMPILED_TEMPLATES
    database = Path(app.config["DATABASE"])
    if not database.exists():
        with owner_only_files():
            database.write_bytes(new_database())
    db = store.connect(database)
    store.migrate(db)
    db.close()
    return app


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def db(app: Flask):
    connection = store.connect(app.config["DATABASE"])
    yield connection
    connection.close()


def create_group(client: FlaskClient, name: str = "Friday night") -> int:
    """Create a group through the page; returns its id."""
    response = client.post("/groups", data={"name": name})
    assert response.status_code == 302, response.text
    return int(re.search(r"/groups/(\d+)", response.headers["Location"]).group(1))


def add_players(client: FlaskClient, group_id: int, *names_and_colours: tuple[str, str]) -> None:
    for name, colour in names_and_colours:
        response = client.post(f"/groups/{group_id}/players", data={"name": name, "colour": colour})
        assert response.status_code == 302, response.text


def start_play(client: FlaskClient, group_id: int, game: str, player_ids_colours, **options) -> int:
    data = dict(options)
    for seat, (player_id, colour) in enumerate(player_ids_colours):
        data[f"seat_{seat}-player"] = str(player_id)
        data[f"seat_{seat}-colour"] = colour
    response = client.post(f"/groups/{group_id}/plays/new/{game}", data=data)
    assert response.status_code == 302, response.text
    return int(re.search(r"/plays/(\d+)", response.headers["Location"]).group(1))


def errors_on(text: str) -> list[str]:
    """The error messages (role "alert") on a page or part of one."""
    return [html.unescape(part.split("</p>")[0]) for part in text.split('<p class="error" role="alert">')[1:]]


def create_group_in_browser(page, url: str, group: str, *names_and_colours: tuple[str, str]) -> None:
    """On a new phone's home page: create the group and add its players, as a new user would."""
    from playwright.sync_api import expect

    page.goto(url + "/")
    expect(page.get_by_role("heading", name="Your game nights")).to_be_visible()
    page.get_by_label("Group name").fill(group)
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", name=group)).to_be_visible()
    for name, colour in names_and_colours:
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Colour").select_option(colour)
        page.get_by_role("button", name="Add player").click()
        expect(page.get_by_text(f"{name} joined the group.")).to_be_visible()


class _OneRequestHandler(WSGIRequestHandler):
    protocol_version = "HTTP/1.0"  # the connection closes after its answer and frees its thread


class _KeptThreadsServer(BaseWSGIServer):
    """Werkzeug's server answering from kept threads, as gunicorn's workers do. Its threaded server starts
    a thread for each connection, and each new thread opens its own database connection, reading the
    whole schema: a reference game opened 820 of them, against 8 here. As in gunicorn, a connection goes
    to a thread once its request has come: Chromium opens connections ahead of a click, and idle ones
    would hold every thread."""

    multithread = True

    def __init__(self, app: Flask, port: int = 0) -> None:
        super().__init__("127.0.0.1", port, app, handler=_OneRequestHandler)
        self._threads = ThreadPoolExecutor(8, thread_name_prefix="live-server")
        self._stopping = threading.Event()

    def serve_forever(self, poll_interval: float = 0.1) -> None:
        with selectors.DefaultSelector() as waiting:
            waiting.register(self.socket, selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _ in waiting.select(poll_interval):
                    if key.fileobj is self.socket:
                        with contextlib.suppress(OSError):  # a connection given up before it was taken
                            connection, address = self.socket.accept()
                            waiting.register(connection, selectors.EVENT_READ, address)
                    else:
                        waiting.unregister(key.fileobj)
                        self._threads.submit(self._answer, key.fileobj, key.data)
            for key in waiting.get_map().values():
                if key.fileobj is not self.socket:
                    key.fileobj.close()

    def _answer(self, connection, address) -> None:
        try:
            self.finish_request(connection, address)
        except Exception:
            self.handle_error(connection, address)
        finally:
            self.shutdown_request(connection)

    def shutdown(self) -> None:
        self._stopping.set()

    def server_close(self) -> None:
        super().server_close()
        self._threads.shutdown(wait=False, cancel_futures=True)


class LiveServer:
    """The app on 127.0.0.1 in a thread, for the browser; it can be stopped and started again on the same
    port (the companion gone from the phones, and back)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._server = _KeptThreadsServer(self.app, self.port)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(5)
        self._server.server_close()

    def __enter__(self) -> LiveServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    # the pages ask for news five times as often as on a phone: tests wait for them the less
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, SERVER_NAME=None, LIVE_POLL_MS=300)
    with LiveServer(app) as server:
        yield server


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium).")
    from playwright.sync_api import expect, sync_playwright

    # Generous bounds for every wait: on a busy 2-core machine a page can take seconds to answer, and a
    # test waits for what it expects to appear, never for a fixed time.
    expect.set_options(timeout=BROWSER_WAIT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def new_phone(browser, locale: str = "en-GB", **options):
    """A new browser context that acts as a phone: its own cookies, a 390×844 touch screen."""
    context = browser.new_context(viewport=PHONE, locale=locale, is_mobile=True, has_touch=True, **options)
    context.set_default_timeout(BROWSER_WAIT_MS)
    return context


@pytest.fixture
def phone(browser):
    """A new phone, in English."""
    context = new_phone(browser)
    yield context
    context.close()


def form_values(page: str) -> dict[str, str]:
    """Every input of a form page with its value, as the phone would send it back."""
    values = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'\bname="([^"]+)"', tag)
        value = re.search(r'\bvalue="([^"]*)"', tag)
        if name:
            values[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return values
