"""A new user on a phone: create a group, add players, play, finish, see the result."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import create_group_in_browser

pytestmark = pytest.mark.browser


def test_create_play_and_finish_on_a_phone(live_server, phone):
    page = phone.new_page()
    create_group_in_browser(page, live_server.url, "Friday night", ("Anna", "red"), ("Ben", "blue"))
    expect(page.get_by_role("heading", name="Friday night")).to_be_visible()
    code = page.locator("figure.qr img")
    expect(code).to_be_visible()
    code.evaluate("image => image.decode()")  # rejects unless the browser could draw the image

    page.get_by_role("link", name="Gold West").click()
    expect(page.get_by_role("heading", name="New play of Gold West")).to_be_visible()
    page.get_by_role("button", name="Start the play").click()

    expect(page.get_by_role("heading", name="Scoreboard")).to_be_visible()
    page.get_by_label("Player", exact=True).select_option(label="Ben")
    page.get_by_label("Points", exact=True).fill("4")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator("table.scoreboard")).to_contain_text("4")

    page.get_by_role("link", name="Totals only (scored on paper)").click()
    page.get_by_label("Anna", exact=True).fill("65")
    page.get_by_label("Ben", exact=True).fill("65")
    page.get_by_role("button", name="Show the result").click()
    # tied on points and on Wanted camps: the resources left decide, asked right there
    expect(page.get_by_role("alert")).to_contain_text("Enter them for Anna and Ben.")
    page.get_by_label("Anna: Resources left on the supply track").fill("1")
    page.get_by_label("Ben: Resources left on the supply track").fill("2")
    page.get_by_role("button", name="Show the result").click()

    expect(page.get_by_text("Ben wins!")).to_be_visible()
    expect(page.locator("table.breakdown")).to_contain_text("65")
    # nothing on the page is wider than the phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_role("link", name="Back to the group").click()
    expect(page.get_by_role("heading", name="Recent results")).to_be_visible()
