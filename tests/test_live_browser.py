"""Several phones on one play, in Chromium: live updates, stale edits, the offline page, kept forms."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from companion import store
from tests.conftest import PHONE, LiveServer, make_app, new_phone

pytestmark = pytest.mark.browser

# "Within about 2 seconds": the page asks every 1.5 s, then loads the new content. The margin is for
# a loaded test machine running browsers in parallel; these tests check that updates arrive without
# a reload, not how fast (that is not something a test on a shared machine can measure).
LIVE_TIMEOUT_MS = 6000


@dataclass
class Table:
    server: LiveServer
    db_path: str
    group: store.Group
    play_id: int

    def events(self) -> list[store.Event]:
        db = store.connect(self.db_path)
        try:
            return store.list_events(db, self.play_id)
        finally:
            db.close()

    def adjust(self, seat: int, points: int) -> None:
        db = store.connect(self.db_path)
        try:
            store.append_event(db, self.play_id, "adjust", {"seat": seat, "points": points, "note": ""})
        finally:
            db.close()


@contextmanager
def served_play(tmp_path: Path, game: str, players: tuple[tuple[str, str], ...],
                options: dict[str, Any] | None = None, kind: type[Table] = Table) -> Iterator[Table]:
    """A group of ``players`` (name, colour) with a play of ``game``, served on 127.0.0.1."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, SERVER_NAME=None)
    db = store.connect(app.config["DATABASE"])
    group = store.create_group(db, "Friday night")
    seats = [(store.add_player(db, group.id, name, colour), colour) for name, colour in players]
    play_id = store.start_play(db, group.id, game, seats, options)
    db.close()
    with LiveServer(app) as server:
        yield kind(server, app.config["DATABASE"], group, play_id)


ANNA_BEN_CARA = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))


@pytest.fixture
def table(tmp_path: Path):
    """A group with Anna and Ben, a play where Ben has 4 and Anna 7 points, served on 127.0.0.1."""
    with served_play(tmp_path, "great-western-trail", (("Anna", "red"), ("Ben", "blue"))) as result:
        result.adjust(1, 4)
        result.adjust(0, 7)
        yield result


@pytest.fixture
def second_phone(browser):
    context = new_phone(browser)
    yield context
    context.close()


def open_play(context: BrowserContext, table: Table) -> Page:
    """A phone joins the group with its invite link and opens the play."""
    page = context.new_page()
    page.goto(f"{table.server.url}/join/{table.group.token}")
    page.get_by_role("button", name="Join the group").click()
    expect(page.get_by_role("heading", name="Friday night")).to_be_visible()
    page.goto(f"{table.server.url}/plays/{table.play_id}")
    expect(page.get_by_role("heading", name="Scoreboard")).to_be_visible()
    return page


def score_of(page: Page, name: str):
    return page.locator("table.scoreboard tbody tr", has_text=name).locator("td.num")


def test_another_phone_sees_an_undo_without_reloading(table, phone, second_phone):
    first, second = open_play(phone, table), open_play(second_phone, table)
    expect(score_of(second, "Anna")).to_have_text("7")
    second.evaluate("window.stillTheSamePage = true")

    first.get_by_role("button", name="Undo the last entry").click()
    expect(first.get_by_text("Undone.")).to_be_visible()

    expect(score_of(second, "Anna")).to_have_text("0", timeout=LIVE_TIMEOUT_MS)
    expect(score_of(second, "Ben")).to_have_text("4")
    assert second.evaluate("window.stillTheSamePage") is True
    # the second phone's undo now carries the new version: it undoes Ben's 4 points
    second.get_by_role("button", name="Undo the last entry").click()
    expect(second.get_by_text("Undone.")).to_be_visible()
    assert table.events() == []


class Pointer:
    """A finger on the touch screen (the events a phone sends), or a mouse button, held down."""

    def __init__(self, page: Page, kind: str) -> None:
        self.page = page
        self.touch = page.context.new_cdp_session(page) if kind == "finger" else None

    def press(self, control) -> None:
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        middle = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
        if self.touch:
            self.touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [middle]})
        else:
            self.page.mouse.move(middle["x"], middle["y"])
            self.page.mouse.down()

    def lift(self) -> None:
        if self.touch:
            self.touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        else:
            self.page.mouse.up()


def another_phones_entry_is_fetched(page: Page, table: Table, points: int) -> None:
    """Ben scores ``points`` on another phone, and this page has loaded the play's new content."""
    play_url = f"{table.server.url}/plays/{table.play_id}"
    with page.expect_response(lambda r: r.request.resource_type == "fetch" and r.url == play_url) as loaded:
        table.adjust(1, points)
    loaded.value.finished()
    page.evaluate("() => new Promise(done => setTimeout(done))")  # and read it


@pytest.mark.parametrize("kind", ["finger", "mouse"])
def test_the_play_changes_once_the_finger_is_lifted_and_the_tap_goes_through(table, phone, kind):
    page = open_play(phone, table)
    pointer = Pointer(page, kind)
    pointer.press(page.get_by_role("heading", name="Scoreboard"))
    another_phones_entry_is_fetched(page, table, 5)
    expect(score_of(page, "Ben")).to_have_text("4")  # not swapped under the finger
    pointer.lift()
    expect(score_of(page, "Ben")).to_have_text("9", timeout=LIVE_TIMEOUT_MS)

    # a tap under way when news arrives still reaches its link
    pointer.press(page.get_by_role("link", name="Final tally"))
    another_phones_entry_is_fetched(page, table, 1)
    pointer.lift()
    expect(page.get_by_role("heading", name="Final tally")).to_be_visible()


def test_a_finger_held_far_longer_than_a_tap_does_not_hold_the_play_back(table, phone):
    phone.clock.install()  # the page's timers on Playwright's clock: the long hold passes in one call
    page = open_play(phone, table)
    finger = Pointer(page, "finger")
    finger.press(page.get_by_role("heading", name="Scoreboard"))
    another_phones_entry_is_fetched(page, table, 5)
    expect(score_of(page, "Ben")).to_have_text("4")
    page.clock.fast_forward("00:11")
    expect(score_of(page, "Ben")).to_have_text("9")  # the finger still down
    finger.lift()


def test_new_entries_wait_while_someone_types_and_a_stale_undo_is_refused(table, phone, second_phone):
    first, second = open_play(phone, table), open_play(second_phone, table)
    typing = second.locator("#play-live form").get_by_label("City")
    typing.fill("3")

    first.get_by_role("button", name="Undo the last entry").click()
    expect(first.get_by_text("Undone.")).to_be_visible()

    refresh = second.get_by_role("button", name="New entries — tap to refresh")
    expect(refresh).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(score_of(second, "Anna")).to_have_text("7")  # not swapped under the person's fingers
    expect(typing).to_have_value("3")

    # an undo based on the outdated view: refused, with the reason and the current state
    second.get_by_role("button", name="Undo the last entry").click()
    expect(second.get_by_role("alert")).to_contain_text("Another phone changed this play")
    expect(score_of(second, "Anna")).to_have_text("0")
    assert [e.payload["points"] for e in table.events()] == [4]
    keeps_following_the_play(second, table, "Another phone changed this play")


def keeps_following_the_play(page: Page, table: Table, message: str) -> None:
    """After a refused entry: the address is the play's page, another phone's entry appears, and the
    refusal's message stays on screen."""
    expect(page).to_have_url(f"{table.server.url}/plays/{table.play_id}")  # once the page script ran
    before = int(score_of(page, "Ben").inner_text())
    table.adjust(1, 10)
    expect(score_of(page, "Ben")).to_have_text(str(before + 10), timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#main")).to_contain_text(message)
    page.reload()  # the play page, not the address the refused form went to (which answers only POST)
    expect(score_of(page, "Ben")).to_have_text(str(before + 10))


def test_a_refused_delivery_shows_why_and_the_page_keeps_following_the_play(table, phone):
    page = open_play(phone, table)
    delivery = page.locator("form.gwt-delivery")
    delivery.get_by_label("City").fill("Kansas City")
    delivery.get_by_label("Crest VP").fill("3")
    delivery.get_by_role("button", name="Record the delivery").click()
    expect(page.get_by_role("alert")).to_contain_text("A delivery to Kansas City is worth -6 VP")
    keeps_following_the_play(page, table, "A delivery to Kansas City is worth -6 VP")
    assert [e.kind for e in table.events()] == ["adjust"] * 3


def test_tapping_refresh_keeps_what_was_typed(table, phone, second_phone):
    first, second = open_play(phone, table), open_play(second_phone, table)
    typing = second.locator("#play-live form").get_by_label("City")
    typing.fill("12")
    table.adjust(1, 5)
    second.get_by_role("button", name="New entries — tap to refresh").click(timeout=LIVE_TIMEOUT_MS)
    expect(score_of(second, "Ben")).to_have_text("9", timeout=LIVE_TIMEOUT_MS)
    expect(second.locator("#play-live form").get_by_label("City")).to_have_value("12")
    expect(score_of(first, "Ben")).to_have_text("9", timeout=LIVE_TIMEOUT_MS)


def test_a_phone_without_javascript_reloads_and_gets_a_stale_undo_refused(table, phone, browser):
    first = open_play(phone, table)
    context = browser.new_context(viewport=PHONE, locale="en-GB", java_script_enabled=False)
    try:
        plain = open_play(context, table)
        first.get_by_role("button", name="Undo the last entry").click()
        expect(first.get_by_text("Undone.")).to_be_visible()
        plain.get_by_role("button", name="Undo the last entry").click()
        expect(plain.get_by_role("alert")).to_contain_text("Another phone changed this play")
        expect(score_of(plain, "Anna")).to_have_text("0")
        assert [e.payload["points"] for e in table.events()] == [4]
    finally:
        context.close()


def wait_for_service_worker(page: Page) -> None:
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")


def test_the_offline_page_appears_when_the_companion_is_gone(table, phone):
    page = open_play(phone, table)
    wait_for_service_worker(page)
    table.server.stop()
    try:
        page.goto(f"{table.server.url}/groups/{table.group.id}/rename")
        expect(page.get_by_role("heading", name="You are offline")).to_be_visible()

        # a page seen before comes from this phone's copy, and says the scores may be out of date
        page.goto(f"{table.server.url}/plays/{table.play_id}")
        expect(score_of(page, "Anna")).to_have_text("7")
        expect(page.get_by_text("Connection lost")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
        page.go_back()
        expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    finally:
        table.server.start()
    # back online, "Try again" opens the page the phone asked for
    page.get_by_role("link", name="Try again").click()
    expect(page.get_by_role("heading", name="Rename Friday night")).to_be_visible()


def test_a_form_sent_offline_is_kept_and_sent_by_itself_once_back_online(table, phone):
    page = open_play(phone, table)
    wait_for_service_worker(page)
    phone.set_offline(True)
    page.get_by_role("button", name="Undo the last entry").click()
    # the note on the page (a screen reader hears the same words from a hidden status line)
    expect(page.locator('[data-note="unsent"]')).to_contain_text("1 entry waiting. Kept on this phone")
    assert page.evaluate("JSON.parse(localStorage.getItem('companion.unsent')).length") == 1
    assert len(table.events()) == 2

    phone.set_offline(False)
    expect(score_of(page, "Anna")).to_have_text("0")
    expect(page.locator('[data-note="unsent"]')).to_have_count(0)
    assert [e.payload["points"] for e in table.events()] == [4]
    assert page.evaluate("localStorage.getItem('companion.unsent')") is None


def test_a_form_sent_while_the_companion_is_gone_is_kept(table, phone):
    page = open_play(phone, table)
    wait_for_service_worker(page)
    table.server.stop()
    try:
        page.get_by_role("button", name="Undo the last entry").click()
        expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
        expect(page.locator('[data-note="unsent"]')).to_contain_text("1 entry waiting.")
        retry = f"{table.server.url}/plays/{table.play_id}"
        expect(page.get_by_role("link", name="Try again")).to_have_attribute("href", retry)
    finally:
        table.server.start()
    assert len(table.events()) == 2

    page.get_by_role("button", name="Send again").click()
    expect(page.get_by_text("Undone.")).to_be_visible()
    assert [e.payload["points"] for e in table.events()] == [4]
    # the companion answered as usual: back on the play page
    assert page.url.endswith(f"/plays/{table.play_id}")


def test_a_hidden_tab_stops_asking_and_asks_again_when_shown(table, phone):
    # the page's timers run on Playwright's clock, stopped: a minute passes in one call, not in a minute
    phone.clock.install()
    phone.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
    page = open_play(phone, table)
    questions: list[str] = []
    page.on("request", lambda request: questions.append(request.url) if "state.json" in request.url else None)
    page.evaluate("""() => {
        Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    page.clock.run_for("01:00")
    with page.expect_response(lambda response: "state.json" in response.url):
        page.evaluate("""() => {
            Object.defineProperty(document, "hidden", { configurable: true, get: () => false });
            document.dispatchEvent(new Event("visibilitychange"));
        }""")
    # the page's requests reach the test in order: one asked while hidden would come first
    assert len(questions) == 1


def test_a_play_finished_on_another_phone_shows_its_result(table, phone):
    page = open_play(phone, table)
    db = store.connect(table.db_path)
    try:
        results = [store.ResultInput(0, 61, 2, {"total": 61}), store.ResultInput(1, 65, 1, {"total": 65})]
        store.finish_play(db, table.play_id, {"totals": [61, 65]}, results)
    finally:
        db.close()
    expect(page.get_by_text("Ben wins!")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    assert page.url.endswith(f"/plays/{table.play_id}/result")


def test_the_play_page_shows_the_new_invite_after_a_new_invite(table, phone):
    page = open_play(phone, table)
    old = table.group.join_code
    share = page.locator("details.share")
    expect(share).to_contain_text(f"{old[:4]}-{old[4:]}")
    page.get_by_role("link", name="Friday night").click()
    page.get_by_role("link", name="New invite link and code").click()
    page.get_by_role("button", name="Make a new invite").click()
    expect(page.get_by_text("The group has a new invite link and join code.")).to_be_visible()
    db = store.connect(table.db_path)
    try:
        group = store.get_group(db, table.group.id)
    finally:
        db.close()
    new_code = f"{group.join_code[:4]}-{group.join_code[4:]}"
    play_url = f"{table.server.url}/plays/{table.play_id}"

    def back_to_the_play():
        for _ in range(4):  # the group page, the question, the group page before it
            if page.url == play_url:
                return
            page.go_back()

    for to_the_play in (back_to_the_play, lambda: page.goto(play_url)):
        to_the_play()
        expect(page.get_by_role("heading", name="Scoreboard")).to_be_visible()
        expect(share).to_contain_text(new_code)
        expect(share.locator("#play-invite-link")).to_have_value(f"{table.server.url}/join/{group.token}")
