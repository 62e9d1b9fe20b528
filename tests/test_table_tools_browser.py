"""The table tools in Chromium at 390×844: the timer across a reload and on two phones, who starts."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from companion import store
from tests.conftest import LiveServer, make_app, new_phone

pytestmark = pytest.mark.browser

LIVE_TIMEOUT_MS = 6000  # the other phone asks every 1.5 s; the margin is for a loaded machine


@pytest.fixture
def table(tmp_path):
    """A group with Anna, Ben and Cara and a play of Gold West, served; (server url, group, play id)."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, SERVER_NAME=None)
    db = store.connect(app.config["DATABASE"])
    group = store.create_group(db, "Friday night")
    colours = ("red", "blue", "green")
    names = ("Anna", "Ben", "Cara")
    ids = [store.add_player(db, group.id, name, colour) for name, colour in zip(names, colours, strict=True)]
    play_id = store.start_play(db, group.id, "gold-west", list(zip(ids, colours, strict=True)))
    db.close()
    with LiveServer(app) as server:
        yield server.url, group, play_id


def open_play(context, table):
    url, group, play_id = table
    page = context.new_page()
    page.goto(f"{url}/join/{group.token}")
    page.get_by_role("button", name="Join the group").click()
    expect(page.get_by_role("heading", name="Friday night")).to_be_visible()
    page.goto(f"{url}/plays/{play_id}")
    expect(page.get_by_role("heading", name="Timer and who starts")).to_be_visible()
    return page


def seconds_shown(page) -> int:
    text = page.locator("[data-timer-clock]").inner_text()
    minutes, seconds = re.fullmatch(r"(\d+):(\d\d)", text.strip()).groups()
    return int(minutes) * 60 + int(seconds)


def test_the_timer_runs_on_every_phone_and_survives_a_reload(browser, table):
    first_phone, second_phone = new_phone(browser), new_phone(browser)
    try:
        first, second = open_play(first_phone, table), open_play(second_phone, table)
        expect(first.locator("[data-timer-clock]")).to_have_text("not started")
        first.get_by_role("button", name="Start the timer").click()
        clock = first.locator("[data-timer-clock]")
        expect(clock).to_have_text(re.compile(r"^0:0\d$"))
        shown = clock.inner_text()
        expect(clock).not_to_have_text(shown, timeout=5000)  # it counts on by itself

        # the other phone follows without a reload, and counts too
        expect(second.locator("[data-timer]")).to_have_attribute("data-state", "running",
                                                                 timeout=LIVE_TIMEOUT_MS)
        expect(second.locator("[data-timer-clock]")).to_have_text(re.compile(r"^\d+:\d\d$"))

        before_reload = seconds_shown(first)
        first.reload()
        expect(first.locator("[data-timer-clock]")).to_have_text(re.compile(r"^\d+:\d\d$"))
        assert seconds_shown(first) >= before_reload

        second.get_by_role("button", name="Pause").click()
        expect(second.locator("[data-timer-clock]")).to_have_text(re.compile(r"^paused at \d+:\d\d$"))
        expect(first.locator("[data-timer-clock]")).to_have_text(re.compile(r"^paused at \d+:\d\d$"),
                                                                 timeout=LIVE_TIMEOUT_MS)
        paused = first.locator("[data-timer-clock]").inner_text()
        first.reload()
        expect(first.locator("[data-timer-clock]")).to_have_text(paused)
        first.get_by_role("button", name="Resume").click()
        expect(first.locator("[data-timer]")).to_have_attribute("data-state", "running")
    finally:
        first_phone.close()
        second_phone.close()


def test_who_starts_is_drawn_with_a_short_show_and_every_phone_learns_it(browser, table):
    first_phone, second_phone = new_phone(browser), new_phone(browser)
    try:
        first, second = open_play(first_phone, table), open_play(second_phone, table)
        first.get_by_role("button", name="Pick who starts").click()
        expect(first.get_by_role("button", name="Picking who starts…")).to_be_visible()
        starts = first.get_by_text(re.compile(r"^(Anna|Ben|Cara) starts\.$")).first
        expect(starts).to_be_visible()
        name = starts.inner_text().split()[0]
        order = ["Anna", "Ben", "Cara"]
        rest = order[order.index(name) + 1:] + order[:order.index(name)]
        expect(first.get_by_text(f"Then: {', '.join(rest)}.")).to_be_visible()
        expect(second.get_by_text(f"Then: {', '.join(rest)}.")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
        expect(first.locator(".pick-list li.picked")).to_have_text(name)
        # the screen: the script says whether the browser keeps it on (no longer the page's own advice)
        expect(first.locator("[data-wake-note]")).to_have_text(re.compile(
            r"^(The screen stays on while this page is open\.|This phone may dim its screen: .*)$"))
    finally:
        first_phone.close()
        second_phone.close()


@pytest.mark.parametrize("wake_lock", [True, False], ids=["wake-lock-api", "plain-http"])
def test_the_screen_stays_on_with_the_wake_lock_api_or_else_with_nosleep(browser, table, wake_lock):
    context = new_phone(browser)
    if not wake_lock:  # as over plain http from a LAN address: no secure context, no Wake Lock API
        context.add_init_script("delete Navigator.prototype.wakeLock;")
    try:
        page = context.new_page()
        loaded = []
        page.on("request", lambda request: loaded.append(request.url) if "nosleep" in request.url else None)
        url, group, play_id = table
        page.goto(f"{url}/join/{group.token}")
        page.get_by_role("button", name="Join the group").click()
        page.goto(f"{url}/plays/{play_id}")
        note = page.locator("[data-wake-note]")
        if wake_lock:
            expect(note).to_have_text(re.compile(r"^(The screen stays on while this page is open\."
                                                 r"|This phone may dim its screen: .*)$"))
            assert loaded == []  # the fallback is fetched only where it is needed
            return
        expect(note).to_have_text("Tap the page once to keep the screen on.")
        assert loaded[0].endswith("/static/vendor/nosleep.min.js")
        page.get_by_role("heading", name="Timer and who starts").click()
        expect(note).to_have_text("The screen stays on while this page is open.")
        assert any(url.endswith("/static/vendor/nosleep.webm") for url in loaded)  # its video from this site
    finally:
        context.close()
