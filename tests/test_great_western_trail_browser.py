"""Three players tally a Great Western Trail play on two phones, as new users would."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import PHONE, create_group_in_browser, new_phone

pytestmark = pytest.mark.browser


def fits_the_phone(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def seat_card(page: Page, name: str):
    """One player's line on the final-tally overview."""
    return page.locator("li.gwt-seat").filter(has_text=name)


def hand_in_plain_card(page: Page, name: str, dollars: str, cattle_vp: str) -> None:
    """Fill in a short card: money, no buildings, cities as prefilled, a cattle VP total, and the printed
    first worker of each row (a new card leaves the rows empty for the table to count)."""
    page.get_by_label("Money ($)").fill(dollars)
    page.get_by_label("Buildings VP").fill("0")
    page.get_by_label("Stations VP").fill("0")
    page.get_by_label("Hazards VP").fill("0")
    page.get_by_label("Cattle VP").fill(cattle_vp)
    for row in ("Cowboys", "Craftsmen", "Engineers"):
        expect(page.get_by_label(row)).to_have_value("")
        page.get_by_label(row).fill("1")
    page.get_by_role("button", name=f"Hand in {name}'s card").click()


def test_three_players_tally_on_two_phones(live_server, browser):
    phones = [new_phone(browser)
              for _ in range(2)]
    try:
        play_a_three_player_tally(live_server.url, *(phone.new_page() for phone in phones))
    finally:
        for phone in phones:
            phone.close()


def play_a_three_player_tally(url: str, page: Page, other: Page) -> None:
    # the first phone creates the group, the players and the play
    create_group_in_browser(page, url, "Trail night", ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    join_code = page.locator("figcaption .code").inner_text()

    page.get_by_role("link", name="Great Western Trail").click()
    expect(page.get_by_role("heading", name="New play of Great Western Trail")).to_be_visible()
    expect(page.get_by_label("2nd edition (2021)")).to_be_checked()
    expect(page.get_by_text("seat 1: 6 $ · seat 2: 7 $ · seat 3: 8 $ · seat 4: 9 $")).to_be_visible()
    page.get_by_role("button", name="Start the play").click()
    expect(page.locator("#money")).to_contain_text("Anna: 6 $")
    expect(page.locator("#money")).to_contain_text("Cara: 8 $")

    # delivered herds: one recorded, one recorded by mistake and undone; the form starts on the
    # player after the last delivery's, so Anna and then Ben are picked without a tap
    deliveries = page.locator("form.gwt-delivery")
    for who, city, crest in (("Anna", "Kansas City", "-6"), ("Ben", "San Francisco", "9")):
        expect(deliveries.get_by_role("radio", name=who)).to_be_checked()
        page.get_by_label("City").fill(city)
        page.get_by_label("Crest VP").fill(crest)
        page.get_by_role("button", name="Record the delivery").click()
        expect(page.locator("#log")).to_contain_text(f"{who} delivered to {city}")
    page.get_by_role("button", name="Undo the last entry").click()
    expect(page.get_by_text("Undone.")).to_be_visible()
    expect(page.locator("#log")).not_to_contain_text("San Francisco")
    expect(deliveries.get_by_role("radio", name="Ben")).to_be_checked()
    # another player is one tap
    deliveries.get_by_text("Cara").click()
    expect(deliveries.get_by_role("radio", name="Cara")).to_be_checked()
    expect(page.locator("table.scoreboard")).to_contain_text("-6")

    # the second phone joins with the code and opens the same play
    other.goto(url + "/")
    other.get_by_label("Join code").fill(join_code)
    other.get_by_role("button", name="Join").click()
    expect(other.get_by_role("heading", name="Trail night")).to_be_visible()
    other.get_by_role("link", name="Game-Night Companion").click()
    other.get_by_role("link", name="Continue Great Western Trail").click()
    other.get_by_role("link", name="Final tally").click()

    # Anna opens her card on the first phone; Ben fills in his on the second meanwhile
    page.get_by_role("link", name="Final tally").click()
    page.get_by_role("link", name="Fill in Anna's card").click()
    expect(page.get_by_label("Cities VP")).to_have_value("-6")
    other.get_by_role("link", name="Fill in Ben's card").click()
    hand_in_plain_card(other, "Ben", dollars="12", cattle_vp="30")
    expect(other.get_by_text("Ben's card is in.")).to_be_visible()
    expect(seat_card(other, "Ben")).to_contain_text("card in: 32 VP")

    page.get_by_label("Money ($)").fill("23")
    page.get_by_text("Row 2 by tile").click()  # the calculator opens in place
    page.get_by_label("10b · 11 VP").check()
    page.get_by_label("4a · 3 VP").check()
    page.get_by_label("Stations VP").fill("10")
    page.get_by_label("Hazards VP").fill("7")
    page.get_by_text("Row 6 by card").click()
    page.get_by_label("3-VP cards").fill("2")
    page.get_by_label("5-VP cards").fill("3")
    # the start card's row is empty while unticked; ticking it fills in its 3 VP, unticking takes them back
    start_vp, start_done = page.get_by_label("Card 1: VP"), page.get_by_label("Card 1: fulfilled")
    expect(start_vp).to_have_value("")
    start_done.check()
    expect(start_vp).to_have_value("3")
    start_done.uncheck()
    expect(start_vp).to_have_value("")
    start_done.check()
    page.get_by_label("Card 2: VP").fill("5")
    page.get_by_label("Card 2: penalty").fill("3")
    page.get_by_label("Card 2: fulfilled").check()
    station_master = page.get_by_label("Hazards: 3 VP per 2 hazard tiles")
    hazard_tiles = page.get_by_label("Hazard tiles", exact=True)
    page.get_by_text("Tick the station masters you hold").click()
    expect(hazard_tiles).to_be_hidden()  # asked for only once the station master is ticked
    station_master.check()
    hazard_tiles.fill("3")
    page.get_by_label("Cowboys").fill("5")
    page.get_by_label("Craftsmen").fill("6")
    page.get_by_label("Engineers").fill("1")
    page.get_by_label("I removed the disc from the 3-VP space (+3 VP)").check()
    assert fits_the_phone(page)
    page.get_by_role("button", name="Hand in Anna's card").click()
    # 4 $ + 14 buildings - 6 cities + 10 + 7 + 21 cattle + 8 objectives + 3 master + 12 workers + 3 disc
    expect(seat_card(page, "Anna")).to_contain_text("card in: 76 VP")
    expect(seat_card(page, "Ben")).to_contain_text("card in: 32 VP")

    # Cara claims the job-market token that Ben already holds: all cards in, but no result
    other.get_by_role("link", name="Change Ben's card").click()
    other.get_by_label("I hold the job-market token (+2 VP)").check()
    other.get_by_role("button", name="Hand in Ben's card").click()
    other.get_by_role("link", name="Fill in Cara's card").click()
    other.get_by_label("I hold the job-market token (+2 VP)").check()
    hand_in_plain_card(other, "Cara", dollars="9", cattle_vp="40")
    expect(other.get_by_role("alert")).to_contain_text(
        "Cara: Only one player holds the job-market token, and Ben already does.")
    # the first phone, still on the overview, sees the cards and the broken rule without a reload
    expect(page.get_by_text("All cards are in, but together they break the rules")).to_be_visible()

    # Cara takes the token off her card: the result appears
    other.get_by_role("link", name="Change Cara's card").click()
    expect(other.get_by_label("Money ($)")).to_have_value("9")
    expect(other.get_by_label("Engineers")).to_have_value("1")  # a saved card shows what was saved
    other.get_by_label("I hold the job-market token (+2 VP)").uncheck()
    other.get_by_role("button", name="Hand in Cara's card").click()
    expect(other.get_by_text("Anna wins!")).to_be_visible()
    expect(page.get_by_text("Anna wins!")).to_be_visible()  # the overview moved to the result by itself
    expect(other.locator(".ranking li.winner")).to_contain_text("Anna")
    expect(other.locator("table.breakdown")).to_contain_text("Station masters")
    expect(other.locator("table.breakdown tfoot")).to_contain_text("76")
    assert fits_the_phone(other)

    # the first phone's play page now leads to the result too
    page.goto(page.url.replace("/result", ""))
    expect(page.get_by_text("Anna wins!")).to_be_visible()
    expect(page.locator(".ranking")).to_contain_text("Cara")
    assert fits_the_phone(page)


def test_deliveries_without_javascript_start_on_the_next_player(live_server, browser):
    context = new_phone(browser, java_script_enabled=False)
    try:
        page = context.new_page()
        create_group_in_browser(page, live_server.url, "Trail night", ("Anna", "red"), ("Ben", "blue"))
        page.get_by_role("link", name="Great Western Trail").click()
        page.get_by_role("button", name="Start the play").click()
        deliveries = page.locator("form.gwt-delivery")
        expect(deliveries.get_by_role("radio", name="Anna")).to_be_checked()
        page.get_by_label("City").fill("Kansas City")  # its crest is fixed: left empty
        page.get_by_role("button", name="Record the delivery").click()
        expect(page.locator("#log")).to_contain_text("Anna delivered to Kansas City: -6 VP")
        expect(deliveries.get_by_role("radio", name="Ben")).to_be_checked()
        # Anna again: her button, then the city and the crest
        deliveries.get_by_text("Anna").click()
        page.get_by_label("City").fill("Wichita")
        page.get_by_label("Crest VP").fill("3")
        page.get_by_role("button", name="Record the delivery").click()
        expect(page.locator("#log")).to_contain_text("Anna delivered to Wichita: +3 VP")
        expect(page.locator("table.scoreboard tbody tr").first.locator("td.num")).to_have_text("-3")
        expect(deliveries.get_by_role("radio", name="Ben")).to_be_checked()
        assert fits_the_phone(page)
    finally:
        context.close()
