"""Gold West's reference game on one phone per seat: the ledger follows the turn order.

Each player taps their own turn on their own phone. The page opens on the player whose turn it is,
so every ledger event is one tap: the button of the choice itself (supply section, investment
value, shipping line or bonus, BoomTown office), then the terrain of the camp or settlement, or Loot,
which brings up the next player on every phone. The terrains and offices come from the reference
game's board (``gold-west-board.json``). Before a turn the acting phone must show that player's row
first (the other phones follow live), and after it every running score as the reference game
expects. The end scoring is typed on the first phone: only the numbers that differ from what the
ledger filled in.
"""

from __future__ import annotations

import json
import re

from bench.taps import REFERENCE_GAMES, Counter, Mismatch, Phone, Session, expect_text
from bench.taps_pages import expect_result, expect_scoreboard
from companion.games.gold_west import OFFICES_BY_KEY, SHIPPING_LINE_POINTS

GAME_NAME = "Gold West"
COLOURS = ("red", "blue", "green", "yellow")


def play(session: Session) -> str:
    """Set up the group and the play, play the reference game on one phone per seat; return the lines."""
    counter = play_game(session)
    return line(counter) + "\n" + end_line(counter, len(session.reference("gold-west")["players"]))


def with_board(game: dict) -> dict:
    """The reference game with its board: each camp's terrain (a settlement where marked ``S``) and,
    first in their turns, the influence tokens put on BoomTown offices."""
    board = json.loads((REFERENCE_GAMES / "gold-west-board.json").read_text(encoding="utf-8"))
    camps = [iter(board["camps"][name]) for name in game["players"]]
    steps = []
    for step in game["steps"]:
        if step["action"] == "turn":
            events = [dict(event) for event in step["events"]]
            if str(step["turn"]) in board["offices"]:
                events.insert(0, {"kind": "boomtown", "seat": step["seat"],
                                  "office": board["offices"][str(step["turn"])]})
            for event in events:
                if event["kind"] == "camp":
                    terrain, _, settlement = next(camps[event["seat"]]).partition(" ")
                    event.update(kind="settlement" if settlement else "camp", terrain=terrain)
            step = {**step, "events": events}
        steps.append(step)
    return {**game, "steps": steps}


def play_game(session: Session) -> Counter:
    """The reference game from setup to the result on every phone; the taps all phones counted."""
    game = with_board(session.reference("gold-west"))
    counter = Counter()
    phones = [session.new_phone(counter) for _ in game["players"]]
    group_url = session.create_group(phones[0], "Gold West night",
                                     list(zip(game["players"], COLOURS, strict=False)))
    for phone in phones[1:]:
        session.join(phone, phones[0])
    play_url = start_play(phones[0], group_url, game["setup"]["offices"])
    for phone in phones[1:]:
        phone.goto(play_url)
    play_reference_game(phones, game)
    return counter


def line(counter: Counter) -> str:
    """``taps gold-west: <total> (<per event> per event)``."""
    return f"taps gold-west: {counter.taps} ({counter.per('event'):.1f} per event)"


def end_line(counter: Counter, players: int) -> str:
    """``taps gold-west end: <per player> per player``: the end scoring's taps over the players."""
    return f"taps gold-west end: {sum(counter.entries('final tally')) / players:.1f} per player"


def start_play(phone: Phone, group_url: str, offices: list[str]) -> str:
    """The new play with the offices dealt ticked (setting up is not counted); returns its address."""
    page = phone.page
    page.goto(group_url)
    page.get_by_role("link", name=GAME_NAME).click()
    for office in offices:
        page.locator(f'input[name="options-offices"][value="{office}"]').check()
    page.get_by_role("button", name="Start the play").click()
    page.wait_for_url("**/plays/*")
    return page.url.split("#")[0]


def play_reference_game(phones: list[Phone], game: dict) -> None:
    """Every turn on its player's phone, then the end scoring and the result on every phone."""
    players = game["players"]
    for number, step in enumerate(game["steps"], start=1):
        try:
            if step["action"] == "turn":
                take_turn(phones[step["seat"]], players, step)
            elif step["action"] == "final":
                with phones[0].action("final tally", scrolls=False):
                    final_tally(phones[0], step)
                expect_result(phones, players, step["expect"])
                expect_ranks(phones[0], players, step["expect"]["ranks"])
            else:
                raise Mismatch(f"unknown action {step['action']!r}")
        except Mismatch as error:
            raise Mismatch(f"step {number} ({step['action']}): {error}") from error


def expect_ranks(phone: Phone, players: list[str], ranks: list[int]) -> None:
    """The result page ranks each player as the reference game does (after its tie-breakers)."""
    ranking = phone.page.locator("ol.ranking")
    for name, rank in zip(players, ranks, strict=True):
        expect_text(ranking.locator("li", has_text=name).locator(".rank"), f"{rank}.")


def take_turn(phone: Phone, players: list[str], step: dict) -> None:
    """The player's taps, each in their own row; the page must offer that row open before the turn."""
    seat = step["seat"]
    page = phone.page
    row = page.locator(f"section#gw-seat-{seat}")
    if not step["last_turn"]:
        # the ledger opens on the player whose turn it is: first on the page, open
        expect_text(page.locator(".gw-seat").first.locator("h3"), players[seat])
    for event in step["events"]:
        with phone.action("event", scrolls=False):
            phone.submit(event_button(row, event))
    expect_scoreboard(phone, players, step["expect"]["scores_after"])


def event_button(row, event: dict):
    """The one button that records this ledger event."""
    kind = event["kind"]
    if kind == "supply":
        name = f"Supply section {event['section']}"
    elif kind in ("camp", "settlement"):
        name = f"{kind.capitalize()} in {event['terrain'].capitalize()}"
    elif kind == "boomtown":
        name = OFFICES_BY_KEY[event["office"]].label
    elif kind == "loot":
        name = "Loot (-1)"
    elif kind == "investment":
        name = f"Investment card {event['vp']} VP"
    elif kind == "boomtown_1x1":
        name = "BoomTown 1×1 (+4)"
    elif kind == "shipping_line":
        metal, number = event["metal"].capitalize(), event["line"]
        name = f"{metal} line {number} (+{SHIPPING_LINE_POINTS[number]})"
    elif kind == "shipping_bonus":
        return row.get_by_role("button", name=re.compile(rf"^{event['metal'].capitalize()} bonus \(\+\d+\)$"))
    else:
        raise Mismatch(f"unknown ledger event {kind!r}")
    return row.get_by_role("button", name=name, exact=True)


def final_tally(phone: Phone, step: dict) -> None:
    """Open the end scoring; type each number that differs from what the page filled in; the result."""
    page = phone.page
    phone.submit(page.get_by_role("link", name="Final tally"))
    for seat, player in enumerate(step["players"]):
        for name, value in tally_fields(seat, player).items():
            box = page.locator(f'[name="{name}"]')
            if box.input_value() != str(value):
                phone.fill(box, str(value))
    phone.submit(page.get_by_role("button", name="Show the result"))


def tally_fields(seat: int, player: dict) -> dict[str, int]:
    """The final-tally form's fields of one player and the reference game's values for them."""
    prefix = f"p{seat}-"
    fields = {prefix + name: player[name] for name in (
        "track_vp", "wanted", "largest_group", "second_group", "investments", "shipping_bonus_tiles",
        "supply_left")}
    for group in ("influence", "settlements", "mining_tokens"):
        fields.update({f"{prefix}{group}-{terrain}": count for terrain, count in player[group].items()})
    for claim in player["offices"]:
        office = f"{prefix}office_{claim['office']}-"
        fields.update({office + name: value for name, value in claim.items() if name != "office"})
    return fields
