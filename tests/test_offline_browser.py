"""Carcassonne – Mayflower (and a Gold West tally) on a phone that loses the network: every entry kept is
stored once, in order.

The page keeps what is tapped while offline in a queue on the phone (no service worker needed, as on
plain http from a LAN address), sends it by itself once back online, and shows what the companion
refused. An entry the companion asks about first waits with its question until the person answers it on
the companion's page. A completion refused as stale leaves the page following the play.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from companion import store
from tests.conftest import new_phone
from tests.test_live_browser import ANNA_BEN_CARA, LIVE_TIMEOUT_MS, Table, open_play, served_play

pytestmark = pytest.mark.browser


class MayflowerTable(Table):
    def place(self, seat: int, role: str, column: int) -> None:
        """Another phone's placement."""
        db = store.connect(self.db_path)
        try:
            store.append_event(db, self.play_id, "place", {"seat": seat, "role": role, "column": column})
        finally:
            db.close()

    def placements(self) -> list[tuple[int, str, int]]:
        return [(e.payload["seat"], e.payload["role"], e.payload["column"]) for e in self.events()
                if e.kind == "place"]


@pytest.fixture
def table(tmp_path: Path):
    """A Mayflower play of Anna, Ben and Cara, nothing placed yet, served on 127.0.0.1."""
    with served_play(tmp_path, "mayflower", ANNA_BEN_CARA, kind=MayflowerTable) as served:
        yield served


def place(page: Page, column: int, role: str) -> None:
    """The column on the strip, then the role button of the player whose turn it is."""
    strip = page.locator("#mf-table")
    strip.locator(f'label.mf-colpick:has(input[value="{column}"])').click()
    strip.locator(f'button.mf-role[value="{role}"]').click()


def waiting(page: Page):
    return page.locator('[data-note="unsent"]')


def kept_entries(page: Page) -> list[dict]:
    return page.evaluate("JSON.parse(localStorage.getItem('companion.unsent') || '[]')")


def test_entries_kept_offline_and_one_made_online_are_stored_once_in_order(table, phone):
    page = open_play(phone, table)
    phone.set_offline(True)
    place(page, 1, "bandit")
    expect(waiting(page)).to_contain_text("1 entry waiting.")
    place(page, 1, "sheriff")
    expect(waiting(page)).to_contain_text("2 entries waiting.")
    assert table.placements() == []

    held = []  # the first entry sent is held on its way, to make the next one while the two wait
    page.route("**/mayflower/place", lambda route: held.append(route) if not held else route.continue_())
    phone.set_offline(False)
    expect(waiting(page)).to_contain_text("Sending")  # back online, the page sends them by itself
    place(page, 1, "trapper")
    expect(waiting(page)).to_contain_text("3 entries waiting.")
    held[0].continue_()

    expect(waiting(page)).to_have_count(0)
    expect(page.locator(".mf-strip")).to_contain_text("Cara · trapper · column 1")
    expect(page.locator(".mf-strip")).to_contain_text("Ben · sheriff · column 1")
    expect(page.locator(".mf-strip")).to_contain_text("Anna · bandit · column 1")
    assert table.placements() == [(0, "bandit", 1), (1, "sheriff", 1), (2, "trapper", 1)]
    assert page.evaluate("localStorage.getItem('companion.unsent')") is None


def test_a_form_sent_again_carries_its_id_and_with_other_values_a_new_one(table, phone):
    """A second tap of the same entry is stored once; a form sent again with other values (a page the
    browser kept when going back, another role button) is another entry, not "already saved"."""
    page = open_play(phone, table)
    # the page stays: each form is stopped after the page's script gave it its request id
    page.evaluate("document.addEventListener('submit', function (event) { event.preventDefault(); })")
    adjust = page.locator('form[action$="/adjust"]')
    request_id = adjust.locator('input[name="request_id"]')

    def send(points: str) -> str:
        adjust.locator('input[name="points"]').fill(points)
        adjust.get_by_role("button", name="Correct").click()
        return request_id.input_value()

    first = send("3")
    assert send("3") == first
    other = send("5")
    assert other != first and len(other) >= 16
    assert send("5") == other


def test_an_entry_the_phone_cannot_keep_offline_says_so(table, phone):
    page = open_play(phone, table)
    page.evaluate("""() => {  // storage full, or turned off
      Storage.prototype.setItem = function () { throw new DOMException("full", "QuotaExceededError"); };
    }""")
    phone.set_offline(True)
    place(page, 1, "bandit")
    expect(page.locator('[data-note="unkept"]')).to_contain_text("this phone could not keep the entry")
    expect(waiting(page)).to_have_count(0)
    phone.set_offline(False)
    assert table.placements() == []


def test_an_entry_refused_when_sent_again_stays_on_screen_with_the_reason(table, phone):
    table.place(0, "trapper", 1)
    page = open_play(phone, table)
    phone.set_offline(True)
    place(page, 1, "bandit")
    # the undo was drawn before the placement: once the placement is stored, it is stale
    page.get_by_role("button", name="Undo the last entry").click()
    expect(waiting(page)).to_contain_text("2 entries waiting.")

    phone.set_offline(False)
    refused = page.locator(".live-note.refused")
    expect(refused).to_contain_text("Not stored: Undo the last entry")
    expect(refused).to_contain_text("Another phone changed this play")
    expect(page.locator(".mf-strip")).to_contain_text("Ben · bandit · column 1")
    assert table.placements() == [(0, "trapper", 1), (1, "bandit", 1)]
    expect(waiting(page)).to_have_count(0)

    page.reload()  # still there until the person has read it
    expect(refused).to_contain_text("Another phone changed this play")
    refused.get_by_role("button", name="Dismiss").click()
    expect(refused).to_have_count(0)
    assert page.evaluate("localStorage.getItem('companion.unsent')") is None
    assert table.placements() == [(0, "trapper", 1), (1, "bandit", 1)]


def kept_tap_asked_about(context, page: Page, table) -> Locator:
    """A bandit kept offline for Anna while another phone places for her: back online, the companion asks
    about it (the kept entry's note, which the returned locator finds)."""
    context.set_offline(True)
    place(page, 1, "bandit")  # for Anna, whose turn it is
    expect(waiting(page)).to_contain_text("1 entry waiting.")
    table.place(0, "trapper", 1)  # meanwhile another phone places for Anna
    context.set_offline(False)
    asked = page.locator(".live-note.refused")
    expect(asked).to_contain_text("The companion asks: Anna just placed.", timeout=LIVE_TIMEOUT_MS)
    return asked


def test_a_kept_tap_the_companion_asks_about_shows_its_question_and_opens_its_answers(table, phone):
    page = open_play(phone, table)
    asked = kept_tap_asked_about(phone, page, table)
    expect(asked).to_contain_text("Not stored yet: Bandit. The companion asks: Anna just placed. "
                                  "Place this bandit for Ben?")
    expect(waiting(page)).to_have_count(0)
    assert table.placements() == [(0, "trapper", 1)]
    asked.get_by_role("button", name="Answer").click()  # the companion's page, with its one-tap answers
    page.locator("#mf-turn-moved").get_by_role("button", name="Yes, for Ben").click()
    expect(page.locator(".mf-strip")).to_contain_text("Ben · bandit · column 1")
    assert table.placements() == [(0, "trapper", 1), (1, "bandit", 1)]
    assert kept_entries(page) == []


@pytest.fixture
def lan_phone(browser):
    """A phone on plain http from a LAN address: no service worker keeps what the network loses."""
    context = new_phone(browser, service_workers="block")
    yield context
    context.close()


def test_an_answer_whose_page_never_came_still_waits_and_is_stored_once(table, lan_phone):
    """The connection drops the moment Answer is tapped: the browser shows its own error page. Back
    online, the entry still waits with its Answer, which stores it once."""
    page = open_play(lan_phone, table)
    asked = kept_tap_asked_about(lan_phone, page, table)

    def connection_drops(route: Route) -> None:  # the page saw the phone online; the form is lost
        route.abort("internetdisconnected")
        lan_phone.set_offline(True)

    page.route("**/mayflower/place", connection_drops)
    with page.expect_event("requestfailed"):
        asked.get_by_role("button", name="Answer").click()
    page.unroute("**/mayflower/place")
    lan_phone.set_offline(False)

    page.goto(f"{table.server.url}/plays/{table.play_id}")
    expect(asked).to_contain_text("Not stored yet: Bandit. The companion asks: Anna just placed.")
    assert len(kept_entries(page)) == 1 and table.placements() == [(0, "trapper", 1)]
    asked.get_by_role("button", name="Answer").click()
    page.locator("#mf-turn-moved").get_by_role("button", name="Yes, for Ben").click()
    expect(page.locator(".mf-strip")).to_contain_text("Ben · bandit · column 1")
    expect(asked).to_have_count(0)
    assert table.placements() == [(0, "trapper", 1), (1, "bandit", 1)]
    assert kept_entries(page) == []


def test_an_answer_the_service_worker_keeps_is_still_one_entry_waiting(table, phone):
    """With a service worker, an Answer that cannot reach the companion ends on the offline page, and the
    worker keeps the form: it is the entry already waiting, not a second one."""
    page = open_play(phone, table)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    asked = kept_tap_asked_about(phone, page, table)

    phone.route("**/mayflower/place", lambda route: route.abort("internetdisconnected"))  # the worker's send
    asked.get_by_role("button", name="Answer").click()
    expect(page.get_by_role("link", name="Try again")).to_be_visible()
    phone.unroute("**/mayflower/place")
    expect(asked).to_contain_text("Not stored yet: Bandit. The companion asks: Anna just placed.")
    page.get_by_role("link", name="Try again").click()
    expect(page).to_have_url(f"{table.server.url}/plays/{table.play_id}")
    expect(asked).to_contain_text("Not stored yet: Bandit. The companion asks: Anna just placed.")
    assert len(kept_entries(page)) == 1 and table.placements() == [(0, "trapper", 1)]


@pytest.fixture
def gold_west(tmp_path: Path):
    """A Gold West play of Anna and Ben with its offices dealt, no camp placed yet."""
    with served_play(tmp_path, "gold-west", (("Anna", "red"), ("Ben", "blue")),
                     {"offices": ["saloon", "mayor", "frontier", "deeds"], "trading_post": False}) as served:
        yield served


def test_a_final_tally_the_companion_asks_about_waits_and_opens_with_its_values(gold_west, phone):
    """With no camp placed, the tally is answered with "Really finish it?" (a 200 page): nothing is stored,
    so the entry is not "sent"; it waits with the question, and opens as the page asking it."""
    page = open_play(phone, gold_west)
    page.goto(f"{gold_west.server.url}/plays/{gold_west.play_id}/gold-west/final-tally")
    largest_group = page.get_by_role("group", name="Anna").get_by_label("Buildings in the largest group")
    largest_group.fill("6")
    phone.set_offline(True)
    page.get_by_role("button", name="Show the result").click()
    expect(waiting(page)).to_contain_text("1 entry waiting.")

    phone.set_offline(False)
    asked = page.locator(".live-note.refused")
    expect(asked).to_contain_text("Not stored yet: Final tally · Show the result. The companion asks: "
                                  "No camp has been placed yet", timeout=LIVE_TIMEOUT_MS)
    assert len(kept_entries(page)) == 1 and gold_west.events() == []
    page.reload()  # still there until the person answers it
    asked.get_by_role("button", name="Answer").click()
    expect(page.locator("#gw-confirm")).to_contain_text("Really finish it?")
    expect(largest_group).to_have_value("6")
    page.get_by_role("button", name="Yes, finish the play").click()
    expect(page).to_have_url(f"{gold_west.server.url}/plays/{gold_west.play_id}/result")
    assert [event.kind for event in gold_west.events()] == ["final"]
    assert kept_entries(page) == []


def test_a_stale_completion_shows_why_and_the_page_keeps_following_the_play(table, phone):
    table.place(0, "bandit", 1)
    page = open_play(phone, table)
    page.locator(".mf-strip label.mf-tick").first.click()  # the bandit's road is complete
    table.place(1, "sheriff", 1)  # meanwhile on another phone
    expect(page.get_by_role("button", name="New entries — tap to refresh")).to_be_visible(
        timeout=LIVE_TIMEOUT_MS)
    page.locator("#mf-table").get_by_role("button", name="Score").click()
    expect(page.locator("#mf-table")).to_contain_text("Another phone changed this play")
    expect(page).to_have_url(f"{table.server.url}/plays/{table.play_id}")  # once the page script ran
    assert [e.kind for e in table.events()] == ["place", "place"]

    table.place(2, "farmer", 1)  # the next entry from another phone appears
    expect(page.locator(".mf-strip")).to_contain_text("Cara · farmer · column 1", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator(".live-note.refused")).to_contain_text("Another phone changed this play")
    page.reload()
    expect(page.locator(".mf-strip")).to_contain_text("Cara · farmer · column 1")
