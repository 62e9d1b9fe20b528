"""A new user plays a short 3-player Carcassonne – Mayflower on a phone, from the group page to the result."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import create_group_in_browser

pytestmark = pytest.mark.browser

PHONE_WIDTH = 390


def place(page: Page, player: str, role: str, column: int) -> None:
    form = page.locator("#mf-place")
    form.get_by_label("Player").select_option(label=player)
    form.get_by_label("Role").select_option(role)
    form.get_by_label("Column").fill(str(column))
    form.get_by_role("button", name="Place the settler").click()
    expect(page.locator("#mf-map")).to_be_visible()


def describe_feature(page: Page, number: int, kind: str, tiles: int, settler: str) -> None:
    """Fill one feature of the completion form: open it if folded, kind, tiles, tick its settler."""
    feature = page.locator("#mf-complete details.mf-feature").nth(number - 1)
    if feature.get_attribute("open") is None:
        feature.locator("summary").click()
    feature.get_by_label("Kind").select_option(kind)
    feature.get_by_label("Tiles").fill(str(tiles))
    feature.get_by_label(settler).check()


def fits_the_phone(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def test_a_short_game_on_a_phone(live_server, phone):
    page = phone.new_page()
    create_group_in_browser(page, live_server.url, "Friday night",
                            ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    page.get_by_role("link", name="Carcassonne – Mayflower").click()
    page.get_by_role("button", name="Start the play").click()

    # the empty table: both surveyors on the coast, every settler in the supply
    strip = page.get_by_role("img", name="Surveyors in columns 0 and 0.")
    expect(strip).to_be_visible()
    expect(page.locator("#mf-settlers")).to_contain_text("5 settlers in the supply")

    # tiles already lie three columns west of the coast; three bandits go onto column 1
    page.locator("#mf-west").get_by_label("Westernmost column with a tile").fill("3")
    page.locator("#mf-west").get_by_role("button", name="Update the map").click()
    for player in ("Anna", "Ben", "Cara"):
        place(page, player, "bandit", 1)
    expect(page.get_by_role("img", name="Anna: bandit in column 1.")).to_be_visible()
    expect(page.locator(".mf-strip circle.c-green")).to_have_count(1)

    # one tile completes three roads; the active player scores them in this order
    describe_feature(page, 1, "road", 2, "Anna · bandit · column 1")
    describe_feature(page, 2, "road", 1, "Ben · bandit · column 1")
    describe_feature(page, 3, "road", 1, "Cara · bandit · column 1")
    page.locator("#mf-complete").get_by_role("button", name="Score").click()
    report = page.locator("#mf-report")
    expect(report).to_contain_text("Ben: 5 points (1 + 4 surveyor bonus)")
    expect(report).to_contain_text("Cara: 9 points (1 + 8 surveyor bonus)")
    expect(page.locator("#mf-map")).to_contain_text("north in column 2, south in column 1")

    # a farmer east of the surveyors, a bandit with the north one, and a sheriff placed by mistake
    place(page, "Ben", "farmer", 1)
    place(page, "Anna", "bandit", 2)
    place(page, "Cara", "sheriff", 3)
    page.get_by_role("button", name="Undo the last entry").click()
    expect(page.get_by_text("Undone.")).to_be_visible()
    expect(page.locator(".mf-strip circle.c-green")).to_have_count(0)

    # Anna's road: her bonus, the south surveyor's move, and Ben's farmer sent home
    describe_feature(page, 1, "road", 3, "Anna · bandit · column 2")
    page.locator("#mf-complete").get_by_role("button", name="Score").click()
    expect(report).to_contain_text("Anna: 7 points (3 + 4 surveyor bonus)")
    expect(report).to_contain_text("The south surveyor moved west to column 2.")
    expect(report.locator(".mf-evicted")).to_contain_text("Ben (blue) · farmer · column 1")
    expect(page.locator("#mf-settlers")).to_contain_text("5 settlers in the supply")
    fits_the_phone(page)
    box = page.locator(".mf-strip").bounding_box()
    assert box is not None and box["width"] <= PHONE_WIDTH

    # two trappers lie on one plain until the end
    place(page, "Cara", "trapper", 1)
    place(page, "Anna", "trapper", 2)
    page.get_by_role("link", name="Final tally").click()
    expect(page.get_by_role("heading", name="Plains (trappers)")).to_be_visible()
    page.get_by_label("Cara · trapper · column 1").select_option("A")
    page.get_by_role("group", name="Feature A: plain").get_by_label("Animals").fill("3")
    fits_the_phone(page)
    page.get_by_role("button", name="Show the result").click()

    expect(page.get_by_text("Shared victory: Anna, Cara")).to_be_visible()
    breakdown = page.locator("table.breakdown")
    expect(breakdown).to_contain_text("Plains")
    expect(breakdown.locator("tfoot")).to_contain_text("12")
    fits_the_phone(page)
