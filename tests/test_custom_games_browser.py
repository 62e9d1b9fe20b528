"""A group's own game with rows, in Chromium at 390×844: define it, play it on two phones, finish, correct,
export and import."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import create_group_in_browser, new_phone

pytestmark = pytest.mark.browser

LIVE_TIMEOUT_MS = 6000  # the other phone asks every 1.5 s; the margin is for a loaded machine


def fits_the_phone(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_game_with_rows_from_its_sheet_to_an_imported_backup(live_server, browser, tmp_path):
    first_phone, second_phone = new_phone(browser), new_phone(browser)
    try:
        page = first_phone.new_page()
        create_group_in_browser(page, live_server.url, "Friday night", ("Anna", "red"), ("Ben", "blue"))

        # define the game and its sheet
        page.get_by_role("link", name="Add another game").click()
        expect(page.get_by_role("heading", name="Add a game")).to_be_visible()
        fits_the_phone(page)
        page.get_by_label("Name of the game").fill("7 Wonders")
        page.locator('[name="rows-0-name"]').fill("Military")
        page.locator('[name="rows-0-negative"]').check()
        page.locator('[name="rows-1-name"]').fill("Coins")
        page.locator('[name="rows-1-tie_breaker"]').check()
        page.locator('[name="rows-2-name"]').fill("Science")
        page.get_by_role("button", name="Add the game").click()
        expect(page.get_by_text("7 Wonders was added.")).to_be_visible()
        invite = page.locator("#invite-link").input_value()

        # start it; the second phone joins and opens the play
        page.locator("#new-h ~ ul.choices").get_by_role("link", name="7 Wonders", exact=True).click()
        page.get_by_role("button", name="Start the play").click()
        expect(page.get_by_role("heading", name="Scoreboard")).to_be_visible()
        play_url = page.url
        other = second_phone.new_page()
        other.goto(invite)
        other.get_by_role("button", name="Join the group").click()
        other.goto(play_url)
        expect(other.get_by_role("heading", name="Scoreboard")).to_be_visible()

        # the second phone enters the sheet; the first one follows to the result
        other.get_by_role("link", name="Final tally").click()
        expect(other.get_by_text("Equal totals: Coins decides, most wins.")).to_be_visible()
        fits_the_phone(other)
        for seat, points in enumerate([(-2, 5, 10), (6, 3, 4)]):
            for row, value in enumerate(points):
                other.locator(f'[name="points-{seat}-{row}"]').fill(str(value))
        other.get_by_role("button", name="Show the result").click()
        expect(other.get_by_text("Anna wins!")).to_be_visible()  # 13 each, Anna has more Coins
        expect(page.get_by_text("Anna wins!")).to_be_visible(timeout=LIVE_TIMEOUT_MS)

        # correct it on the first phone: Ben had two more Coins
        page.goto(play_url + "/record")
        page.get_by_role("link", name="Correct the scores").click()
        page.locator('[name="seat1-Coins"]').fill("5")
        page.get_by_role("button", name="Save the correction").click()
        expect(page.get_by_text("Corrected. The totals and ranks were computed again.")).to_be_visible()
        expect(page.locator("ol.ranking li").first).to_contain_text("Ben")

        # the exports name the game; the backup becomes a new group on the second phone
        page.get_by_role("link", name=re.compile("^History of")).click()
        with page.expect_download() as csv_download:
            page.get_by_role("link", name="Plays and scores as CSV (spreadsheet)").click()
        assert "7 Wonders" in csv_download.value.path().read_text(encoding="utf-8-sig")
        with page.expect_download() as backup_download:
            page.get_by_role("link", name="Download a backup of the whole group").click()
        backup = tmp_path / "backup.json"
        backup_download.value.save_as(backup)

        other.goto(f"{live_server.url}/groups/import")
        other.get_by_label("Backup file").set_input_files(str(backup))
        other.get_by_role("button", name="Import as a new group").click()
        imported = re.compile(r"Imported Friday night \(players: 2, plays: 1\)\.")
        expect(other.get_by_text(imported)).to_be_visible()
        new_plays = other.locator("#new-h ~ ul.choices")
        expect(new_plays.get_by_role("link", name="7 Wonders", exact=True)).to_be_visible()
        other.get_by_role("link", name="History and statistics").click()
        expect(other.get_by_role("link", name="7 Wonders", exact=True)).to_be_visible()
        fits_the_phone(other)
    finally:
        first_phone.close()
        second_phone.close()

