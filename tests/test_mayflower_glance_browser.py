"""Carcassonne – Mayflower at a glance on a phone: before each scoring of the reference game the strip
marks the settlers its eviction sends home, and the filled-in form says what Score will do."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bench.taps import Counter, Phone
from bench.taps_mayflower import play_reference_game
from tests.test_mayflower_browser import REFERENCE, start_the_reference_play

pytestmark = pytest.mark.browser

NAMES = REFERENCE["players"]
# every settler of the reference game by id: "Ben's bandit in column 1", as the pages name it
SETTLERS = {step["id"]: f"{NAMES[step['seat']]}'s {step['role']} in column {step['column']}"
            for step in REFERENCE["steps"] if step["action"] == "place"}


def test_the_marks_and_the_preview_match_every_scoring_of_the_reference_game(live_server, phone):
    page = phone.new_page()
    start_the_reference_play(page, live_server.url)
    looked = []

    def before_score(step: dict) -> None:
        strip = page.locator("#mf-table .mf-strip")
        marked = {box.get_attribute("value") for box in strip.locator(".mf-leaving input").all()}
        first = step["expect"]["features"][0]
        # the first feature's surveyor move is the next one: everyone it evicts is marked, and every
        # marked settler goes home with it (evicted, or from the feature itself)
        assert set(first["evicted"]) <= marked <= set(first["evicted"]) | set(first["returned"]), step
        note = page.locator("#mf-table .mf-leaving-note")
        if marked:
            for settler in marked:
                expect(note).to_contain_text(SETTLERS[settler])
                expect(strip.locator(f'label:has(input[value="{settler}"])')).to_contain_text(
                    "goes home at the next scoring")
        else:
            expect(note).to_have_count(0)
        preview = page.locator("#mf-preview")
        points = ", ".join(f"{name} +{step['expect']['points'][name]}" for name in NAMES)
        expect(preview).to_contain_text(f"If you score now: {points}.")
        if step["expect"]["evicted"]:
            expect(preview).to_contain_text("Goes home: ")
        else:
            expect(preview).not_to_contain_text("Goes home")
        for settler in step["expect"]["evicted"]:
            expect(preview).to_contain_text(SETTLERS[settler])
        looked.append(step)

    play_reference_game(Phone(page, Counter()), REFERENCE, before_score)  # checks each scoring after Score
    expect(page.locator(".winner-banner")).to_have_text("Anna wins!")
    assert len(looked) == REFERENCE["summary"]["completions"]
