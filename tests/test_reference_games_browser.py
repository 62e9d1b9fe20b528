"""Gold West and Great Western Trail on phones: the reference games played to the end through the pages.

The games are played by the tap-count benchmark's own code (bench/taps_gold_west.py and
bench/taps_great_western_trail.py), one phone per seat: it checks every running score after each
turn or delivery and, on every phone, the result page at the end. Here the taps it counted are held
to the issue's targets.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bench import taps_gold_west, taps_great_western_trail
from bench.taps import Session
from tests.conftest import create_group_in_browser, new_phone

pytestmark = pytest.mark.browser


def test_gold_west_reference_game_in_one_tap_an_event_and_a_prefilled_end_scoring(live_server, browser):
    session = Session(browser, live_server.url)
    try:
        # raises Mismatch for a score the pages do not show: the end scoring's totals, ranks and winner too
        counter = taps_gold_west.play_game(session)
        players = len(session.reference("gold-west")["players"])
    finally:
        session.close()
    events = counter.entries("event")
    # the reference game's 91 events and its board's 7 BoomTown offices, each the tap of its own button
    assert len(events) == 98 and set(events) == {1}
    assert counter.per("event") <= 1.5
    # the end scoring opens with the ledger's numbers: what is typed is what only the board shows
    assert sum(counter.entries("final tally")) / players <= 8


def test_great_western_trail_reference_tallies_within_25_taps_a_player_and_3_a_delivery(live_server, browser):
    session = Session(browser, live_server.url)
    try:
        cards, deliveries = taps_great_western_trail.play_all(session)
    finally:
        session.close()
    assert len(cards) == 7 and max(cards) <= 25
    assert len(deliveries) == 47
    # the form starts on the player after the last delivery's: the player is a tap only out of that
    # order, and the crests the rules fix need no typing
    assert max(deliveries) <= 4 and sum(deliveries) / len(deliveries) <= 3


def test_the_gold_west_ledger_without_javascript(live_server, browser):
    context = new_phone(browser, java_script_enabled=False)
    try:
        page = context.new_page()
        create_group_in_browser(page, live_server.url, "Saloon", ("Anna", "red"), ("Ben", "blue"))
        page.get_by_role("link", name="Gold West").click()
        page.get_by_role("button", name="Start the play").click()
        first = page.locator(".gw-seat").first
        first.get_by_role("button", name="Supply section 2").click()
        first.get_by_role("button", name="Camp in Gold").click()
        expect(page.locator(".gw-seat").first.locator("h3")).to_contain_text("Ben")
        # Anna again, out of turn: asked, then stored for her
        anna = page.locator("#gw-seat-0")
        anna.locator("summary").click()
        anna.get_by_role("button", name="BoomTown 1×1 (+4)").click()
        page.get_by_role("button", name="Yes, for Anna").click()
        expect(page.locator("table.scoreboard tbody tr").first.locator("td.num")).to_have_text("6")
    finally:
        context.close()
