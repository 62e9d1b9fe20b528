"""A player is retired and brought back from their page, in Chromium, with and without JavaScript."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import create_group_in_browser, new_phone

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "plain-forms"])
def test_a_player_is_retired_and_brought_back(live_server, browser, javascript):
    context = new_phone(browser, java_script_enabled=javascript)
    try:
        page = context.new_page()
        create_group_in_browser(page, live_server.url, "Friday night", ("Anna", "red"), ("Ben", "blue"))
        page.get_by_role("link", name="Edit Ben").click()
        page.get_by_role("button", name="Retire Ben").click()
        expect(page.get_by_text("Ben is retired: kept in the history")).to_be_visible()
        expect(page.get_by_text("Retired players (1)")).to_be_visible()
        expect(page.get_by_text("Reload the page")).to_have_count(0)

        page.get_by_text("Retired players (1)").click()
        page.get_by_role("link", name="Edit Ben").click()
        page.get_by_role("button", name="Bring Ben back to new plays").click()
        expect(page.get_by_text("Ben is back among the players for new plays.")).to_be_visible()
        expect(page.get_by_text("Retired players")).to_have_count(0)
    finally:
        context.close()
