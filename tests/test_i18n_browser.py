"""A phone set to German: from a new group to a Mayflower play, all in German; English on request."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import PHONE, new_phone

pytestmark = pytest.mark.browser


@pytest.fixture
def german_phone(browser):
    context = new_phone(browser, locale="de-DE")
    yield context
    context.close()


def test_a_german_phone_sees_the_german_site(live_server, german_phone):
    page = german_phone.new_page()
    page.goto(live_server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="Deine Spieleabende")).to_be_visible()

    page.get_by_label("Name der Gruppe").fill("Freitagsrunde")
    page.get_by_role("button", name="Gruppe gründen").click()
    expect(page.get_by_role("heading", name="Freitagsrunde")).to_be_visible()
    for name, colour in (("Anna", "red"), ("Ben", "blue")):
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Farbe").select_option(colour)
        page.get_by_role("button", name="Spieler hinzufügen").click()
        expect(page.get_by_text(f"{name} ist der Gruppe beigetreten.")).to_be_visible()

    page.get_by_role("link", name="Carcassonne – Mayflower").click()
    expect(page.get_by_role("heading", name="Neue Partie Carcassonne – Mayflower")).to_be_visible()
    page.get_by_role("button", name="Partie starten").click()

    expect(page.get_by_role("heading", name="Punktetafel")).to_be_visible()
    play_url = page.url
    expect(page.locator("#mf-settlers")).to_contain_text("Landvermesser: Nord in Spalte 0, Süd in Spalte 0.")
    turn = page.get_by_role("group", name="Wer ist dran")
    expect(turn).to_contain_text("5 Siedler übrig")

    table = page.locator("#mf-table")
    # Anna's turn; Ben places out of turn with his own row's button, shown once the column is tapped
    table.get_by_label("Spalte 1", exact=True).check()
    expect(table).to_contain_text("Oder ein Siedler von jemand anderem:")
    table.get_by_role("button", name="Ben · Bandit", exact=True).click()
    expect(table.locator(".mf-strip")).to_contain_text("Ben · Bandit · Spalte 1")
    expect(turn.locator("label", has_text="Ben")).to_contain_text("4 Siedler übrig")

    # a role tapped before a column: the refusal in German, next to the strip
    table.get_by_role("button", name="Sheriff", exact=True).click()
    expect(table).to_contain_text("Tippe zuerst die Spalte des Plättchens auf der Karte an.")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # the header's switch: English from now on, although the phone asks for German
    page.goto(play_url)
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Scoreboard")).to_be_visible()
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Your game nights")).to_be_visible()
    page.get_by_role("button", name="Deutsch").click()
    expect(page.get_by_role("heading", name="Deine Spieleabende")).to_be_visible()
