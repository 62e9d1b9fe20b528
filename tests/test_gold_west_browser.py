"""Gold West on phones: a short 2-player game through the ledger to the result, the majorities today on
every phone, and a tap kept while offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import PHONE, create_group_in_browser
from tests.test_live_browser import ANNA_BEN_CARA, LIVE_TIMEOUT_MS, open_play, served_play

pytestmark = pytest.mark.browser


def player_card(page: Page, name: str):
    """The ledger card of one player (its heading starts with the name)."""
    heading = page.get_by_role("heading", name=re.compile(rf"^{name}\b"))
    return page.locator(".gw-seat").filter(has=heading)


def current_player(page: Page):
    """The ledger card of the player whose turn it is: first and open."""
    return page.locator(".gw-seat").first


def scoreboard_row(page: Page, name: str):
    return page.locator("table.scoreboard tr").filter(has=page.get_by_role("rowheader", name=name))


def fits_the_phone(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_short_two_player_game_through_the_ledger_to_the_result(live_server, phone):
    page = phone.new_page()
    create_group_in_browser(page, live_server.url, "Saloon night", ("Anna", "red"), ("Ben", "blue"))

    # Setup: camps per player, the 4 offices dealt
    page.get_by_role("link", name="Gold West").click()
    expect(page.get_by_text("12 with 2 players")).to_be_visible()
    for office in ("Saloon", "Mayor", "Docks", "Frontier"):
        page.get_by_label(office).check()
    assert fits_the_phone(page)
    page.get_by_role("button", name="Start the play").click()
    expect(page.get_by_text("Round 1 of 12")).to_be_visible()
    expect(page.get_by_text("Offices in play: Docks, Frontier, Mayor, Saloon.")).to_be_visible()

    # Anna's turn comes first; Camp brings up Ben's, Loot Anna's again
    expect(current_player(page)).to_contain_text("Anna")
    current_player(page).get_by_role("button", name="Supply section 3").click()
    current_player(page).get_by_role("button", name="Camp in Forest").click()
    expect(current_player(page)).to_contain_text("Ben")
    current_player(page).get_by_role("button", name="Investment card 8 VP").click()
    current_player(page).get_by_role("button", name="Loot (-1)").click()
    expect(page.get_by_text("Round 2 of 12")).to_be_visible()
    expect(current_player(page)).to_contain_text("Anna")
    current_player(page).get_by_role("button", name="Gold line 1 (+2)").click()

    # A wrong tap, taken back
    current_player(page).get_by_role("button", name="BoomTown 1×1 (+4)").click()
    expect(scoreboard_row(page, "Anna")).to_contain_text("9")
    page.get_by_role("button", name="Undo the last entry").click()
    expect(page.get_by_text("Undone.")).to_be_visible()

    # Ben's bonus in Anna's turn: asked once
    ben = player_card(page, "Ben")
    ben.locator("summary").click()
    ben.get_by_role("button", name="Silver bonus (+8)").click()
    expect(page.get_by_role("heading", name="It is Anna's turn. Ben again?")).to_be_visible()
    page.get_by_role("button", name="Yes, for Ben").click()
    expect(scoreboard_row(page, "Anna")).to_contain_text("5")
    expect(scoreboard_row(page, "Ben")).to_contain_text("18")
    expect(page.locator("#gw-investment-tiles")).to_contain_text("2, 1")
    expect(page.locator("table.gw-facts tr").filter(has_text="Ben")).to_contain_text("11 1")
    expect(page.locator("#gw-shipping-bonus")).to_contain_text("Silver bonus: Ben (8) · left: 5")
    assert fits_the_phone(page)

    # End scoring: the ledger's numbers are filled in
    page.get_by_role("link", name="Final tally").click()
    anna_tally, ben_tally = page.get_by_role("group", name="Anna"), page.get_by_role("group", name="Ben")
    expect(anna_tally.get_by_label("Score track")).to_have_value("5")
    expect(ben_tally.get_by_label("Camps in the Wanted area")).to_have_value("1")
    expect(ben_tally.get_by_label("Investment cards")).to_have_value("1")
    assert fits_the_phone(page)
    anna_tally.get_by_label("Influence in Forest").fill("4")
    anna_tally.get_by_label("Buildings in the largest group").fill("6")
    ben_tally.get_by_label("Influence in Forest").fill("2")
    ben_tally.get_by_label("Buildings in the largest group").fill("3")
    ben_tally.get_by_label("Buildings in the second-largest group").fill("4")
    page.get_by_role("button", name="Show the result").click()

    # A broken rule is shown at Ben's card; fixing it gives the result
    ben_tally = page.get_by_role("group", name="Ben")
    expect(ben_tally.get_by_role("alert")).to_contain_text("cannot be larger than the largest group")
    ben_tally.get_by_label("Buildings in the second-largest group").fill("2")
    page.get_by_role("button", name="Show the result").click()

    # Anna 5 + 12 + 4 (forest, 2 players) = 21; Ben 18 + 6 − 1 (Wanted) = 23
    expect(page.get_by_text("Ben wins!")).to_be_visible()
    expect(page.locator("ol.ranking")).to_contain_text("23")
    expect(page.get_by_role("heading", name="Terrain majorities")).to_be_visible()
    forest = "Forest: Anna holds the majority and takes the 2nd-place value (4)."
    expect(page.get_by_text(forest)).to_be_visible()
    expect(page.locator("table.breakdown").last).to_contain_text("21")
    assert fits_the_phone(page)


# --------------------------------------------------------------------------------------------------
# Several phones on one play


@pytest.fixture
def table(tmp_path: Path):
    """A Gold West play of Anna, Ben and Cara with its offices dealt, nothing entered yet."""
    with served_play(tmp_path, "gold-west", ANNA_BEN_CARA,
                     {"offices": ["saloon", "mayor", "frontier", "deeds"], "trading_post": False}) as served:
        yield served


def majority(page: Page, terrain: str):
    rows = page.locator("#gw-majorities-today tbody tr")
    return rows.filter(has=page.get_by_role("rowheader", name=terrain))


def test_every_phone_sees_the_majorities_today_after_each_tap(table, phone, browser):
    anna = open_play(phone, table)
    # a small phone in dark mode follows the play without being touched
    watcher = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme="dark",
                                  locale="en-GB", is_mobile=True, has_touch=True)
    try:
        ben = open_play(watcher, table)
        expect(majority(ben, "Gold")).to_contain_text("– –")
        current_player(anna).get_by_role("button", name="Settlement in Gold").click()
        expect(majority(ben, "Gold")).to_contain_text("Anna 2 +2", timeout=LIVE_TIMEOUT_MS)
        current_player(ben).get_by_role("button", name="Camp in Gold").click()
        expect(majority(anna, "Gold")).to_contain_text("Anna 2 +1", timeout=LIVE_TIMEOUT_MS)
        expect(majority(anna, "Gold")).to_contain_text("Ben 1 +1")
        # Cara's turn, entered on Anna's phone
        current_player(anna).get_by_role("button", name="Camp in Gold").click()
        expect(majority(ben, "Gold")).to_contain_text("Ben, Cara 1 tied", timeout=LIVE_TIMEOUT_MS)
        assert fits_the_phone(ben)
        assert ben.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(23, 20, 17)"
    finally:
        watcher.close()
    assert [(e.kind, e.payload) for e in table.events()] == [
        ("settlement", {"seat": 0, "terrain": "gold"}), ("camp", {"seat": 1, "terrain": "gold"}),
        ("camp", {"seat": 2, "terrain": "gold"})]


def test_a_camp_tapped_offline_is_kept_with_its_terrain_and_stored_once(table, phone):
    page = open_play(phone, table)
    phone.set_offline(True)
    current_player(page).get_by_role("button", name="Mayor").click()
    current_player(page).get_by_role("button", name="Camp in Silver").click()
    expect(page.locator('[data-note="unsent"]')).to_contain_text("2 entries waiting.")
    assert table.events() == []
    phone.set_offline(False)
    expect(page.locator('[data-note="unsent"]')).to_have_count(0, timeout=LIVE_TIMEOUT_MS)
    expect(majority(page, "Silver")).to_contain_text("Anna 1 +1", timeout=LIVE_TIMEOUT_MS)
    assert [(e.kind, e.payload) for e in table.events()] == [
        ("boomtown", {"seat": 0, "office": "mayor"}), ("camp", {"seat": 0, "terrain": "silver"})]
