"""Carcassonne – Mayflower on a phone: the reference game played to the end through the pages.

The game is played by the tap-count benchmark's own code (bench/taps_mayflower.py), which checks every
running score against the reference game after each scoring and the result page at the end; here
the taps it counted are held to the issue's targets, the game at a glance (the settlers the next
scoring sends home, the preview of Score) is checked before each scoring of the same play, and the
same pages are played without JavaScript.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from bench.taps import Counter, Phone
from bench.taps_mayflower import COLOURS, GAME_NAME, completion_target, play_reference_game
from tests.conftest import create_group_in_browser, new_phone

pytestmark = pytest.mark.browser

REFERENCE = json.loads((Path(__file__).parent / "reference_games" / "mayflower.json").read_text("utf-8"))
PHONE_WIDTH = 390
NAMES = REFERENCE["players"]
# every settler of the reference game by id: "Ben's bandit in column 1", as the pages name it
SETTLERS = {step["id"]: f"{NAMES[step['seat']]}'s {step['role']} in column {step['column']}"
            for step in REFERENCE["steps"] if step["action"] == "place"}


def start_the_reference_play(page, url: str) -> None:
    create_group_in_browser(page, url, "Friday night", *zip(REFERENCE["players"], COLOURS, strict=False))
    page.get_by_role("link", name=GAME_NAME).click()
    page.get_by_role("button", name="Start the play").click()
    expect(page.get_by_role("group", name="Whose turn")).to_be_visible()


def fits_the_phone(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def at_a_glance(page, looked: list[dict]):
    """What ``play_reference_game`` looks at before each Score: the strip marks the settlers the first
    feature's surveyor move sends home, and the preview says what Score will do."""

    def before_score(step: dict) -> None:
        strip = page.locator("#mf-table .mf-strip")
        marked = {box.get_attribute("value") for box in strip.locator(".mf-leaving input").all()}
        first = step["expect"]["features"][0]
        # everyone the next surveyor move evicts is marked, and every marked settler goes home with it
        # (evicted, or from the feature itself)
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

    return before_score


def test_the_reference_game_in_two_taps_a_placement_no_scrolling_every_scoring_foreseen(live_server, phone):
    page = phone.new_page()
    start_the_reference_play(page, live_server.url)
    counter, looked = Counter(), []
    # checks each scoring and the result; looking at the page before Score costs no tap
    play_reference_game(Phone(page, counter), REFERENCE, at_a_glance(page, looked))
    assert len(looked) == REFERENCE["summary"]["completions"]

    expect(page.locator(".winner-banner")).to_have_text("Anna wins!")
    expect(page.locator("table.breakdown tfoot")).to_contain_text("86")
    fits_the_phone(page)
    steps = REFERENCE["steps"]
    placements = counter.entries("placement")
    assert len(placements) == REFERENCE["summary"]["placements"]
    # column and role, out of turn too (some players in the reference game place out of turn)
    assert placements == [2] * len(placements)
    targets = [completion_target(step) for step in steps if step["action"] == "complete"]
    for taps, target in zip(counter.entries("completion"), targets, strict=True):
        assert taps <= target
    assert counter.entries("west edge") == [1, 1, 1]
    # the final tally like a completion: per feature (in the page's order) the settlers on it but the one
    # the page names it by, its sizes changed, one more tap
    final = steps[-1]["features"]
    presets = {"tiles": 1, "trading_posts": 0, "flags": 0, "neighbours": 0, "animals": 0}
    changed = [sum(f.get(name, preset) != preset for name, preset in presets.items()) for f in final]
    taps = [len(f["settler_ids"]) + sizes for f, sizes in zip(final, changed, strict=True)]
    assert sorted(counter.entries("final feature")) == sorted(taps)
    assert counter.scrolls == 0


def test_without_edge_taps_the_page_asks_where_the_map_ends_at_one_tap(live_server, phone):
    page = phone.new_page()
    start_the_reference_play(page, live_server.url)
    asked = []  # entries answered with a question instead of being stored
    page.on("response", lambda response: asked.append(response.url)
            if response.request.method == "POST" and response.status == 400 else None)
    counter = Counter()
    # up to step 18's completion, whose surveyor move needs what the edge tap of step 17 told the
    # reference table; the whole game without edge taps is played in test_mayflower_table_web
    steps = [step for step in REFERENCE["steps"][:18] if step["action"] != "west_edge"]
    play_reference_game(Phone(page, counter), {**REFERENCE, "steps": steps})  # checks every score
    assert len(asked) == 1 and asked[0].endswith("/mayflower/complete")
    completions = counter.entries("completion")
    targets = [completion_target(step) for step in steps if step["action"] == "complete"]
    assert sum(completions) - sum(targets) <= 1  # the answer is one tap
    assert counter.scrolls == 0


def test_without_javascript_every_action_is_a_plain_form(live_server, browser):
    context = new_phone(browser, java_script_enabled=False)
    try:
        page = context.new_page()
        start_the_reference_play(page, live_server.url)
        # up to the tile that completes two features (step 23): its second feature from the short list
        steps = REFERENCE["steps"][:23]
        assert len(steps[-1]["features"]) == 2
        play_reference_game(Phone(page, Counter()), {**REFERENCE, "steps": steps})
        fits_the_phone(page)

        page.locator("#mf-table").get_by_role("button", name="Trapper", exact=True).click()
        expect(page.locator("#mf-table")).to_contain_text("Tap the tile's column on the map first.")
        page.get_by_role("button", name="Undo the last entry").click()
        expect(page.get_by_text("Undone.")).to_be_visible()
        expect(page.locator("#log li").first).to_contain_text("Bandit placed in column 4", ignore_case=True)
    finally:
        context.close()


def test_the_two_phone_race_on_trapper_asks_instead_of_giving_cara_a_second_one(live_server, browser):
    table, anna = new_phone(browser), new_phone(browser)
    try:
        shared = table.new_page()
        create_group_in_browser(shared, live_server.url, "Friday night",
                                *zip(REFERENCE["players"], COLOURS, strict=False))
        invite = shared.locator("#invite-link").input_value()
        shared.get_by_role("link", name=GAME_NAME).click()
        shared.get_by_role("button", name="Start the play").click()
        strip = shared.locator("#mf-table")
        for _ in ("Anna", "Ben"):  # each a bandit in column 1: now it is Cara's turn
            strip.locator('label.mf-colpick:has(input[value="1"])').click()
            strip.get_by_role("button", name="Bandit", exact=True).click()
        expect(strip.locator(".mf-strip")).to_contain_text("Ben · bandit · column 1")

        own = anna.new_page()
        own.goto(invite)
        own.get_by_role("button", name="Join").click()
        own.wait_for_url("**/groups/*")
        own.goto(shared.url.split("#")[0])
        # Anna's phone does not follow the play in the moment that matters: its asks answer "no change"
        # (an ask that failed would make it think the companion is gone, and keep her tap for later)
        own.route("**/state.json*", lambda route: route.fulfill(json={
            "play": int(shared.url.split("#")[0].rsplit("/", 1)[1]), "status": "active", "changed": False,
            "version": int(parse_qs(urlsplit(route.request.url).query)["since"][0])}))
        expect(own.locator(".mf-turn input[value='2']")).to_be_checked()

        strip.locator('label.mf-colpick:has(input[value="1"])').click()
        strip.get_by_role("button", name="Trapper", exact=True).click()  # Cara places
        expect(strip.locator(".mf-strip")).to_contain_text("Cara · trapper · column 1")

        mine = own.locator("#mf-table")
        mine.locator('label.mf-colpick:has(input[value="1"])').click()
        mine.get_by_role("button", name="Trapper", exact=True).click()  # Anna, 0.4 s later
        asked = own.locator("#mf-turn-moved")
        expect(asked).to_contain_text("Cara just placed. Place this trapper for Anna?")
        expect(mine.locator(".mf-strip")).not_to_contain_text("Anna · trapper")
        asked.get_by_role("button", name="Yes, for Anna").click()  # the answer: one tap
        expect(mine.locator(".mf-strip")).to_contain_text("Anna · trapper · column 1")
        assert mine.locator(".mf-strip").get_by_text("Cara · trapper · column 1").count() == 1
    finally:
        table.close()
        anna.close()
