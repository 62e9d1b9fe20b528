"""Taps at the table: play each reference game through the real pages on a phone, counting every tap.

``python -m bench.taps`` (also run by ``make bench``) serves the companion on a fresh database, opens
Chromium at 390×844 and plays each scripted game of ``tests/reference_games/`` through its pages,
counting every click, tap, selection and typed field, and whether the control of the next action
had to be scrolled to. Each game checks that every expected score appears on the page and prints
one line, e.g. ``taps mayflower: 120 (2.0 per placement, 3.1 per completion, 0 scrolls)``.

A game's module is ``bench/taps_<game>.py`` (the game's slug with ``_`` for ``-``), listed in GAMES,
and offers::

    def play(session: Session) -> str

which plays its reference game (``session.reference(slug)``) and returns its line. Phones come from
``session.new_phone()``: a :class:`Phone` wraps a Playwright page, and its ``tap``, ``check``,
``select`` and ``fill`` are the counted actions (a step the pages make someone do must go through
them; looking at the page, ``phone.page``, is free). ``session.create_group`` sets up a group with
its players and ``session.join`` brings another phone into it, uncounted: the count starts at the
play. ``phone.submit`` is a counted tap that waits for the next page. ``with phone.action("placement"):``
groups the actions of one entry, so a line can report taps per kind of entry
(``phone.counter.per("placement")``); inside it, a control out of sight counts a scroll
(``counter.scrolls``). ``expect_text`` raises :class:`Mismatch` when an expected score is missing.
Modules not yet written are skipped, so the list can name games to come.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

REFERENCE_GAMES = ROOT / "tests" / "reference_games"
GAMES = ("mayflower", "gold-west", "great-western-trail")  # the order of the lines
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 30_000  # a loaded 2-core machine can be slow; no action should take this long


# Whether a control can be tapped as the screen is: its centre lies inside the window and nothing else
# (the edge of a box that scrolls sideways, a sticky note) is drawn there.
IN_SIGHT = """element => {
  const box = element.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) { return false; }
  const hit = document.elementFromPoint(x, y);
  return !!hit && (element.contains(hit) || hit.contains(element) || hit.control === element);
}"""


class Mismatch(AssertionError):
    """A page did not show what the reference game expects."""


@dataclass
class Counter:
    """Taps and scrolls of one play, in total and per kind of entry (``action``)."""

    taps: int = 0
    scrolls: int = 0
    per_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    _current: str | None = None
    _watch_scrolls: bool = False

    def per(self, kind: str) -> float:
        """Average taps of the entries of that kind (0 when there were none)."""
        counts = self.per_kind.get(kind) or []
        return sum(counts) / len(counts) if counts else 0.0

    def entries(self, kind: str) -> list[int]:
        """The taps of each entry of that kind, in order."""
        return list(self.per_kind.get(kind) or [])


class Phone:
    """A phone at the table: a 390×844 touch screen whose taps, selections and typing are counted.

    Inside an ``action(..., scrolls=True)`` every action first checks whether its control lies inside
    the screen as it is; if not, somebody would have had to scroll to it, and ``counter.scrolls``
    grows (Playwright then scrolls for us).
    """

    def __init__(self, page, counter: Counter) -> None:
        self.page = page
        self.counter = counter

    def _count(self, locator) -> None:
        # the action itself waits for its control; only the scroll check must find it drawn first
        if self.counter._watch_scrolls:
            locator.wait_for(state="visible")
            if not locator.evaluate(IN_SIGHT):
                self.counter.scrolls += 1
        self.counter.taps += 1
        if self.counter._current is not None:
            self.counter.per_kind[self.counter._current][-1] += 1

    def tap(self, locator) -> None:
        """One tap on a button, link, label or box."""
        self._count(locator)
        locator.click()

    def check(self, locator) -> None:
        """One tap that ticks a box or picks a radio button."""
        self._count(locator)
        locator.check()

    def select(self, locator, value: str | None = None, *, label: str | None = None) -> None:
        """One pick from a drop-down (opening it and choosing count as one, as on a phone's picker)."""
        self._count(locator)
        if label is not None:
            locator.select_option(label=label)
        else:
            locator.select_option(value)

    def fill(self, locator, text: str) -> None:
        """One typed field: tapping into it and typing the number or name."""
        self._count(locator)
        locator.fill(text)

    def submit(self, locator) -> None:
        """One tap that sends a form or follows a link; returns once the next page has loaded."""
        with self.page.expect_navigation():
            self.tap(locator)

    @contextmanager
    def action(self, kind: str, scrolls: bool = True) -> Iterator[None]:
        """Count the actions inside as one entry of ``kind`` (a placement, a completion, an event).

        With ``scrolls``, a control out of sight counts as a scroll: the table's entries should
        all be reachable from the screen the last one left.
        """
        counter = self.counter
        previous = counter._current, counter._watch_scrolls
        counter._current, counter._watch_scrolls = kind, scrolls
        counter.per_kind[kind].append(0)
        try:
            yield
        finally:
            counter._current, counter._watch_scrolls = previous

    def goto(self, url: str) -> None:
        """Open an address, as following a link someone already has (uncounted)."""
        self.page.goto(url)


class Session:
    """One benchmark run: the server, the browser, the reference games, and phones to play with."""

    def __init__(self, browser, url: str) -> None:
        self.browser = browser
        self.url = url
        self._contexts: list = []

    def reference(self, slug: str) -> dict:
        """The reference game of that slug (its ``format`` field says how to read its steps)."""
        return json.loads((REFERENCE_GAMES / f"{slug}.json").read_text(encoding="utf-8"))

    def new_phone(self, counter: Counter | None = None, locale: str = "en-GB") -> Phone:
        """A phone of its own (own cookies); phones of one player group may share one Counter."""
        context = self.browser.new_context(viewport=PHONE, locale=locale, is_mobile=True, has_touch=True)
        context.set_default_timeout(TIMEOUT_MS)
        self._contexts.append(context)
        return Phone(context.new_page(), counter if counter is not None else Counter())

    def create_group(self, phone: Phone, name: str, players: list[tuple[str, str]]) -> str:
        """On that phone: a new group with these (name, colour) players; returns the group page's URL."""
        page = phone.page
        page.goto(self.url + "/")
        page.get_by_label("Group name").fill(name)
        page.get_by_role("button", name="Create group").click()
        page.get_by_role("heading", name=name).wait_for()
        for player, colour in players:
            page.get_by_label("Name", exact=True).fill(player)
            page.get_by_label("Colour").select_option(colour)
            page.get_by_role("button", name="Add player").click()
            page.get_by_text(f"{player} joined the group.").wait_for()
        return page.url.split("#")[0]

    def join(self, phone: Phone, group_phone: Phone) -> None:
        """Bring ``phone`` into the group that ``group_phone`` shows, by its invite link (uncounted)."""
        link = group_phone.page.locator("#invite-link").input_value()
        phone.page.goto(link)
        joined = phone.page.get_by_role("button", name="Join")
        if joined.count():
            joined.first.click()
            phone.page.wait_for_url("**/groups/*")

    def start_play(self, phone: Phone, group_url: str, game_name: str) -> str:
        """From the group page: start a play of that game with the players in the offered seats."""
        page = phone.page
        page.goto(group_url)
        page.get_by_role("link", name=game_name).click()
        page.get_by_role("button", name="Start the play").click()
        page.wait_for_url("**/plays/*")
        return page.url.split("#")[0]

    def close(self) -> None:
        for context in self._contexts:
            context.close()
        self._contexts.clear()


def expect_text(locator, text: str) -> None:
    """Raise Mismatch unless ``text`` appears in the located part of the page (waiting for it a while)."""
    from playwright.sync_api import Error
    from playwright.sync_api import expect as playwright_expect

    try:
        playwright_expect(locator).to_contain_text(text)
    except (AssertionError, Error) as error:
        raise Mismatch(f"expected {text!r} on the page: {error}") from error


class _QuietHandler(WSGIRequestHandler):
    """Werkzeug's request handler without a log line per request: the lines are the output."""

    def log_request(self, *args, **kwargs) -> None:
        pass


class Server:
    """The companion on a fresh database, served by Werkzeug in a thread on a free loopback port."""

    def __init__(self, directory: Path) -> None:
        from app import create_app
        from companion import store

        database = str(directory / "companion.sqlite3")
        app = create_app({"SECRET_KEY": "taps benchmark", "DATABASE": str(database)})
        db = store.connect(database)
        store.migrate(db)
        db.close()
        self._server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._thread.join(5)


def game_module(slug: str):
    """The module that plays that game (``bench.taps_<slug>``), or None while it is not written."""
    name = f"bench.taps_{slug.replace('-', '_')}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise


def run(games: tuple[str, ...] = GAMES, out: Callable[[str], None] = print) -> list[str]:
    """Play each game's reference game in a fresh server and browser; print and return the lines."""
    from playwright.sync_api import sync_playwright

    lines = []
    with tempfile.TemporaryDirectory() as directory, Server(Path(directory)) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for slug in games:
                module = game_module(slug)
                if module is None:
                    continue
                session = Session(browser, server.url)
                try:
                    line = module.play(session)
                finally:
                    session.close()
                out(line)
                lines.append(line)
        finally:
            browser.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="game",
                        help=f"the games to play (default: all of {', '.join(GAMES)})")
    arguments = parser.parse_args(argv)
    unknown = set(arguments.games) - set(GAMES)
    if unknown:
        parser.error(f"no reference game {', '.join(sorted(unknown))}; choose from {', '.join(GAMES)}")
    try:
        run(tuple(arguments.games) or GAMES)
    except Mismatch as error:
        print(f"taps: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
