"""The one registry of games: every game module meets the protocol, and turn order is a rule."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from companion.games import GAMES, RULES, GameRules, get_game, gold_west, mayflower
from companion.games.common import PlaySetup, RulesError, Seat, UnknownGame


@pytest.mark.parametrize("slug", ["mayflower", "great-western-trail", "gold-west"])
def test_every_game_module_meets_the_protocol(slug):
    rules = RULES[slug]
    assert isinstance(rules, GameRules)
    assert get_game(slug) is rules.GAME is GAMES[slug]
    state = rules.initial_state(PlaySetup(slug, (Seat("Anna", "red"), Seat("Ben", "blue"))))
    assert rules.running_scores(state) == (0, 0)
    assert rules.EVENT_KINDS and all(isinstance(kind, str) for kind in rules.EVENT_KINDS)


def test_the_registry_lists_the_three_games_once():
    assert list(RULES) == list(GAMES) == ["mayflower", "great-western-trail", "gold-west"]


def test_a_module_without_a_rule_the_table_calls_does_not_meet_the_protocol():
    class Halfway:
        GAME = GAMES["mayflower"]
        EVENT_KINDS = ()
        LOWEST_SCORE = None
        KNOWN_AS = MappingProxyType({})
        BGG_IDS = MappingProxyType({})

        def initial_state(self, setup):
            return None

    assert not isinstance(Halfway(), GameRules)


def test_an_unknown_slug_is_refused():
    with pytest.raises(UnknownGame, match="no game called 'chess'"):
        get_game("chess")


# --- turn order -----------------------------------------------------------------------------------

def gold_west_state(players: int, camps: dict[int, int]):
    names = ("Anna", "Ben", "Cara", "Dan")[:players]
    setup = PlaySetup("gold-west", tuple(Seat(name, "red") for name in names))
    state = gold_west.initial_state(setup)
    for seat, count in camps.items():
        for _ in range(count):
            state = gold_west.apply_event(state, "camp", {"seat": seat})
    return state


@pytest.mark.parametrize(("players", "camps", "turn", "others"), [
    pytest.param(3, {}, 0, (1, 2), id="first-turn"),
    pytest.param(3, {0: 1}, 1, (2, 0), id="second-seat-then-round-the-table"),
    pytest.param(4, {0: 1, 1: 1, 2: 1}, 3, (0, 1, 2), id="last-seat-of-the-round"),
    pytest.param(2, {0: 12, 1: 12}, None, (0, 1), id="last-turn-everybody"),
])
def test_gold_west_seats_in_turn_order(players, camps, turn, others):
    screen = gold_west.ledger_screen(gold_west_state(players, camps))
    assert (screen.turn, screen.others) == (turn, others)


@pytest.mark.parametrize(("events", "seat", "kind", "refused"), [
    pytest.param([], 0, "camp", False, id="the-player-whose-turn-it-is"),
    pytest.param([], 1, "supply", True, id="the-next-player-too-early"),
    pytest.param([("supply", {"seat": 1, "section": 2})], 1, "camp", False, id="already-entered-this-turn"),
    pytest.param([("supply", {"seat": 1, "section": 2}), ("camp", {"seat": 2})], 1, "camp", True,
                 id="an-entry-of-an-earlier-turn-counts-not"),
    # the rulebook's order: the camp, then its mining token's resources onto the supply track
    pytest.param([("camp", {"seat": 2})], 2, "supply", False, id="the-supply-track-after-the-own-camp"),
    pytest.param([("loot", {"seat": 2}), ("boomtown_1x1", {"seat": 2})], 2, "supply", False,
                 id="the-supply-track-after-the-own-loot"),
    pytest.param([("camp", {"seat": 2})], 2, "investment", True, id="nothing-else-after-the-own-camp"),
    pytest.param([("camp", {"seat": 2}), ("supply", {"seat": 2, "section": 1})], 2, "investment", True,
                 id="nor-after-the-camps-token"),
    pytest.param([("camp", {"seat": 2}), ("supply", {"seat": 2, "section": 1})], 2, "supply", False,
                 id="a-second-token-is-asked-as-once-a-turn"),
    pytest.param([("camp", {"seat": 2}), ("supply", {"seat": 0, "section": 1})], 2, "supply", True,
                 id="the-next-player-entered-since"),
    pytest.param([("camp", {"seat": 1})], 2, "supply", True, id="another-players-camp"),
])
def test_gold_west_refuses_a_tap_out_of_turn_once(events, seat, kind, refused):
    state = gold_west_state(3, {})
    for entered, payload in events:
        state = gold_west.apply_event(state, entered, payload)
    if refused:
        with pytest.raises(gold_west.OutOfTurn) as caught:
            gold_west.check_turn(state, events, seat, kind)
        assert (caught.value.seat, caught.value.turn) == (seat, 0)
        assert isinstance(caught.value, RulesError)
    else:
        gold_west.check_turn(state, events, seat, kind)


def test_nobody_is_out_of_turn_in_gold_wests_last_turn():
    gold_west.check_turn(gold_west_state(2, {0: 12, 1: 12}), [], 1, "camp")


@pytest.mark.parametrize(("placed", "turn"), [
    pytest.param([], 0, id="first-seat-begins"),
    pytest.param([0], 1, id="after-the-first"),
    pytest.param([0, 1, 2], 0, id="round-the-table"),
    pytest.param([0, 2], 0, id="after-the-last-placed"),
])
def test_mayflower_next_turn_follows_the_last_settler_placed(placed, turn):
    state = mayflower.initial_state(PlaySetup("mayflower", tuple(Seat(n, "red") for n in ("A", "B", "C"))))
    for seat in placed:
        state = mayflower.apply_event(state, "place", {"seat": seat, "role": "trapper", "column": 1})
    assert mayflower.next_turn(state) == turn
