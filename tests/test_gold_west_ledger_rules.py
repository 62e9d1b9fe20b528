"""Gold West's ledger knows the board: terrains of camps and settlements, offices, the majorities today,
and the end scoring it starts with its corrections kept (rules/gold-west.md, "End scoring")."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bench.taps import REFERENCE_GAMES
from bench.taps_gold_west import with_board
from companion.games import gold_west
from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.gold_west import OFFICE_KEYS, OfficeClaim, PlayerTally, apply_event, initial_state


def play(events, players=3, **options) -> gold_west.PlayState:
    names = ("Anna", "Ben", "Cara", "Dan")[:players]
    state = initial_state(PlaySetup("gold-west", tuple(Seat(name, "red") for name in names), options))
    for kind, payload in events:
        state = apply_event(state, kind, payload)
    return state


def rows(state, seat) -> dict[str, tuple[int, ...]]:
    """A seat's terrain rows as forest, gold, silver, copper."""
    return {name: tuple(row.values()) for name, row in gold_west.terrain_rows(state, seat).items()}


def camp(seat, terrain=None):
    return ("camp", {"seat": seat} if terrain is None else {"seat": seat, "terrain": terrain})


def settlement(seat, terrain):
    return ("settlement", {"seat": seat, "terrain": terrain})


def boomtown(seat, office):
    return ("boomtown", {"seat": seat, "office": office})


# --------------------------------------------------------------------------------------------------
# What the ledger knows per seat


@pytest.mark.parametrize(("events", "tokens", "settlements", "influence"), [
    pytest.param([], (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), id="nothing-built"),
    pytest.param([camp(0, "gold"), camp(1, "gold"), camp(2, "gold"), camp(0, "forest")],
                 (1, 1, 0, 0), (0, 0, 0, 0), (1, 1, 0, 0), id="a-camp-is-one-token-and-one-influence"),
    pytest.param([settlement(0, "copper")], (0, 0, 0, 1), (0, 0, 0, 1), (0, 0, 0, 2),
                 id="a-settlement-is-one-token-and-two-influence"),
    pytest.param([camp(0, "silver"), camp(1), camp(2), ("loot", {"seat": 0})], (0, 0, 1, 0), (0, 0, 0, 0),
                 (0, 0, 1, 0), id="a-loot-builds-nothing"),
    pytest.param([camp(0), camp(1), camp(2), camp(0)], (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0),
                 id="camps-stored-without-a-terrain"),
])
def test_camps_and_settlements_fill_the_seats_influence_track(events, tokens, settlements, influence):
    assert rows(play(events), 0) == {"mining_tokens": tokens, "settlements": settlements,
                                     "influence": influence}


def test_camps_without_a_terrain_still_count_as_turns_and_are_counted_apart():
    state = play([camp(0), camp(1, "gold"), settlement(2, "forest"), ("loot", {"seat": 0}), camp(1)])
    assert (state.camps_placed, state.buildings_without_terrain) == ((2, 2, 1), 2)
    assert state.next_seat == 2


def test_a_settlement_ends_the_turn_like_a_camp():
    state = play([settlement(0, "gold")])
    assert state.next_seat == 1
    assert gold_west.TURN_ENDS == ("camp", "settlement", "loot")


@pytest.mark.parametrize(("events", "kind", "payload", "path", "message"), [
    pytest.param([], "settlement", {"seat": 0}, "terrain", "Pick the terrain",
                 id="settlement-without-terrain"),
    pytest.param([], "camp", {"seat": 0, "terrain": "wood"}, "terrain", "forest, gold, silver or copper",
                 id="no-wood-terrain"),
    pytest.param([], "camp", {"seat": 0, "terrain": ["gold"]}, "terrain", "Pick the terrain",
                 id="terrain-not-text"),
    pytest.param([], "boomtown", {"seat": 0, "office": "bank"}, "office", "no BoomTown office called 'bank'",
                 id="unknown-office"),
    pytest.param([], "boomtown", {"seat": 0}, "office", "no BoomTown office called None",
                 id="office-missing"),
    pytest.param([], "boomtown", {"seat": 0, "office": "docks"}, "office", "The Docks office is not open",
                 id="office-not-dealt"),
    pytest.param([boomtown(0, "mayor"), boomtown(1, "mayor")], "boomtown", {"seat": 2, "office": "mayor"},
                 "office", "both its halves are taken", id="both-halves-taken"),
])
def test_refused_board_events(events, kind, payload, path, message):
    state = play(events, offices=["saloon", "mayor", "frontier", "deeds"])
    with pytest.raises(RulesError, match=message) as caught:
        apply_event(state, kind, payload)
    assert caught.value.path == path


def test_every_camp_placed_refuses_a_settlement_too():
    state = play([camp(seat, "gold") for _ in range(12) for seat in (0, 1)], players=2)
    with pytest.raises(RulesError, match="placed all 12 camps"):
        apply_event(state, "settlement", {"seat": 0, "terrain": "gold"})


@pytest.mark.parametrize(("dealt", "events", "open_offices"), [
    pytest.param(["saloon", "mayor", "frontier", "deeds"], [], ("saloon", "mayor", "frontier", "deeds"),
                 id="the-four-dealt"),
    pytest.param(["saloon", "mayor", "frontier", "deeds"], [boomtown(1, "mayor"), boomtown(1, "mayor")],
                 ("saloon", "frontier", "deeds"), id="one-player-on-both-halves"),
    pytest.param([], [boomtown(0, "docks")], OFFICE_KEYS, id="not-recorded-any-office"),
    pytest.param([], [boomtown(0, key) for key in ("docks", "depot", "sheriff", "surveyor", "docks")],
                 ("depot", "sheriff", "surveyor"), id="not-recorded-until-four-have-tokens"),
])
def test_offices_open_to_influence_tokens(dealt, events, open_offices):
    assert gold_west.offices_open(play(events, offices=dealt)) == open_offices


# --------------------------------------------------------------------------------------------------
# The majorities today: who is 1st and 2nd, and by how much


@pytest.mark.parametrize(("events", "terrain", "first", "second", "leads", "points"), [
    pytest.param([], "forest", (), (), (0, 0), (0, 0, 0), id="nobody-yet"),
    pytest.param([camp(0, "gold"), settlement(1, "gold"), camp(2, "gold")], "gold", (1,), (0, 2), (1, 1),
                 (2, 9, 2), id="ahead-by-one-and-a-shared-second"),
    pytest.param([settlement(0, "silver"), camp(1, "silver"), camp(2, "silver"), camp(1, "silver")], "silver",
                 (0,), (1,), (0, 1), (10, 6, 0), id="first-on-settlements-second-ahead-by-one"),
    pytest.param([camp(0, "copper"), camp(1, "copper")], "copper", (0, 1), (), (1, 0), (9, 9, 0),
                 id="tied-first-shares-first-and-second"),
])
def test_majorities_today(events, terrain, first, second, leads, points):
    [majority] = [m for m in gold_west.ledger_screen(play(events)).majorities if m.terrain == terrain]
    assert (majority.first, majority.second, majority.leads) == (first, second, leads)
    assert majority.points == points


def test_the_ledger_screen_carries_the_majorities_and_the_open_offices():
    dealt = ["saloon", "mayor", "frontier", "deeds"]
    screen = gold_west.ledger_screen(play([camp(0, "forest")], offices=dealt))
    assert [m.terrain for m in screen.majorities] == ["forest", "gold", "silver", "copper"]
    assert screen.majorities[0].first == (0,)
    assert screen.offices_open == tuple(dealt)


# --------------------------------------------------------------------------------------------------
# The end scoring starts from the ledger, and corrections of it are kept


def test_the_final_tally_starts_with_the_terrains_and_the_offices():
    state = play([settlement(0, "gold"), camp(1, "forest"), camp(2, "gold"), camp(0, "silver"),
                  boomtown(0, "mayor"), boomtown(0, "mayor"), boomtown(2, "saloon")],
                 offices=["saloon", "mayor", "frontier", "deeds"])
    anna, ben, cara = gold_west.tallies_from_play(state)
    assert anna.influence == {"forest": 0, "gold": 2, "silver": 1, "copper": 0}
    assert (anna.settlements["gold"], anna.mining_tokens["gold"], anna.mining_tokens["silver"]) == (1, 1, 1)
    assert anna.offices == (OfficeClaim("mayor", 2),)
    assert (ben.offices, cara.offices) == ((), (OfficeClaim("saloon", 1),))
    assert anna.tokens_in_boomtown == 2


LEDGER = PlayerTally("Anna", track_vp=40, wanted=1, investments=2, influence={"gold": 2, "silver": 1},
                     settlements={"gold": 1}, mining_tokens={"gold": 1, "silver": 1},
                     offices=(OfficeClaim("mayor", 2),))
ENTERED = replace(LEDGER, track_vp=41, largest_group=5, supply_left=2, influence={"gold": 2, "silver": 2},
                  offices=(OfficeClaim("mayor", 2), OfficeClaim("frontier", 1, count=4)))


@pytest.mark.parametrize(("entered", "changes"), [
    pytest.param(LEDGER, {}, id="nothing-corrected"),
    pytest.param(replace(LEDGER, largest_group=6, supply_left=3), {}, id="what-the-ledger-cannot-know"),
    pytest.param(ENTERED, {"track_vp": 1, "influence.silver": 1, "offices.frontier": 1},
                 id="track-investment-influence-and-an-office"),
    pytest.param(replace(LEDGER, offices=(), wanted=0), {"offices.mayor": -2, "wanted": -1},
                 id="taken-away"),
])
def test_corrections_are_what_differs_from_the_ledger(entered, changes):
    assert gold_west.corrections(entered, LEDGER) == changes


def test_a_correction_is_kept_over_a_ledger_that_changed():
    later = replace(LEDGER, track_vp=45, influence={"gold": 2, "silver": 1, "copper": 1},
                    mining_tokens={"gold": 1, "silver": 1, "copper": 1})
    start = gold_west.corrected(later, ENTERED, gold_west.corrections(ENTERED, LEDGER))
    assert (start.track_vp, start.largest_group, start.supply_left) == (46, 5, 2)
    assert start.influence == {"forest": 0, "gold": 2, "silver": 2, "copper": 1}
    assert start.mining_tokens == {"forest": 0, "gold": 1, "silver": 1, "copper": 1}
    assert start.offices == (OfficeClaim("mayor", 2), OfficeClaim("frontier", 1, count=4))


@pytest.mark.parametrize("changes", [
    pytest.param({"track_vp": "1", "influence.wood": 3, "offices.bank": 1, "mayor": 1}, id="not-corrections"),
    pytest.param({"track_vp": None, "offices.mayor": 1.5}, id="not-whole-numbers"),
])
def test_stored_corrections_that_are_not_ones_are_left_out(changes):
    values = gold_west.ledger_values(gold_west.corrected(LEDGER, LEDGER, changes))
    assert values == gold_west.ledger_values(LEDGER)


@pytest.mark.parametrize(("changes", "track_vp", "influence"), [
    pytest.param([{"track_vp": 1, "influence.silver": 1}], 46,
                 {"forest": 0, "gold": 2, "silver": 2, "copper": 1}, id="stored-corrections"),
    pytest.param(None, 45, {"forest": 0, "gold": 2, "silver": 2, "copper": 0},
                 id="kept-before-corrections-were-stored-keeps-its-terrains"),
    pytest.param(["not a mapping"], 45, {"forest": 0, "gold": 2, "silver": 1, "copper": 1},
                 id="a-seat-without-a-mapping"),
])
def test_a_reopened_tally_starts_from_the_new_ledger(changes, track_vp, influence):
    later = replace(LEDGER, track_vp=45, influence={"gold": 2, "silver": 1, "copper": 1})
    [start] = gold_west.tallies_kept([later], [ENTERED], changes)
    assert (start.track_vp, start.influence, start.largest_group) == (track_vp, influence, 5)


def test_the_stored_tally_keeps_its_corrections_and_reads_back():
    payload = gold_west.tally_payload([ENTERED], [LEDGER])
    assert payload["corrections"] == [{"track_vp": 1, "influence.silver": 1, "offices.frontier": 1}]
    assert gold_west.tallies_from_payload(payload, ["Anna"])[0].influence == ENTERED.influence
    assert "corrections" not in gold_west.tally_payload([ENTERED])


# --------------------------------------------------------------------------------------------------
# The reference game: its ledger with the board gives the final table


def reference_game() -> dict:
    return with_board(json.loads((REFERENCE_GAMES / "gold-west.json").read_text(encoding="utf-8")))


def test_the_reference_ledger_knows_the_final_table_but_investment_influence():
    game = reference_game()
    state = play([(event["kind"], {k: v for k, v in event.items() if k not in ("kind", "expect")})
                  for step in game["steps"] if step["action"] == "turn" for event in step["events"]],
                 offices=game["setup"]["offices"])
    final = game["steps"][-1]
    extra = final["table"]["influence_from_investments"]
    for ledger, player in zip(gold_west.tallies_from_play(state), final["players"], strict=True):
        for name in ("track_vp", "wanted", "investments", "shipping_bonus_tiles", "settlements",
                     "mining_tokens"):
            assert getattr(ledger, name) == player[name], (player["name"], name)
        assert {terrain: value + extra[player["name"]].get(terrain, 0)
                for terrain, value in ledger.influence.items()} == player["influence"]
        assert [(c.office, c.tokens) for c in ledger.offices] == [(c["office"], c["tokens"])
                                                                   for c in player["offices"]]
        assert ledger.tokens_in_boomtown == player["boomtown_tokens"]
    assert state.buildings_without_terrain == 0
