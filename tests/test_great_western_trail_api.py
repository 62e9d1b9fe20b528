"""The Great Western Trail scoring endpoint: the contract's example, its 400s, and fuzzing."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.api import ENDPOINTS
from companion.api.core import StrictValidator, respond
from companion.api.great_western_trail import ENDPOINTS as GWT_ENDPOINTS
from companion.api.great_western_trail import REQUEST_SCHEMA
from companion.names import NameProblem, clean_name, duplicate_name

(ENDPOINT,) = GWT_ENDPOINTS
ROWS = ["money", "buildings", "cities", "stations", "hazards", "cattle", "objectives", "station_masters",
        "workers", "disc", "job_market"]
ED1_TILES = {"workers", "objectives", "hazards", "teepees", "certificates"}
ED2_TILES = ED1_TILES | {"stations", "buildings", "none"}

# The contract's example request, verbatim.
CONTRACT_EXAMPLE = json.loads("""
{"edition": 2,
 "players": [{"name": "Anna",
   "dollars": 23, "buildings_vp": 12, "cities_vp": 8, "stations_vp": 10, "hazards_vp": 7, "cattle_vp": 21,
   "objectives": [{"vp": 3, "penalty": 0, "fulfilled": true},
                  {"vp": 5, "penalty": 3, "fulfilled": true},
                  {"vp": 4, "penalty": 2, "fulfilled": false}],
   "station_masters": ["workers"],
   "workers": {"cowboys": 5, "craftsmen": 6, "engineers": 2},
   "disc_cleared": true, "job_market_token": false},
  {"name": "Ben", "dollars": 12, "cattle_vp": 30}]}
""")


def post(body: object) -> tuple[int, dict]:
    """Answer a body the way the web layer does, checking the answer against the endpoint's schemas."""
    status, answer = respond(ENDPOINT, body)
    if status == 200:
        assert StrictValidator(ENDPOINT.response_schema).is_valid(answer), answer
    else:
        assert status == 400
        assert isinstance(answer["error"], str) and answer["error"]
        assert all(set(detail) == {"path", "message"} for detail in answer["details"])
    return status, answer


def with_changes(base: dict, *changes: tuple[tuple, object]) -> dict:
    """A deep copy of ``base`` with each ``(path, value)`` set (value ``...`` deletes the key)."""
    body = copy.deepcopy(base)
    for path, value in changes:
        target = body
        for part in path[:-1]:
            target = target[part]
        if value is ...:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return body


def test_endpoint_is_registered_under_the_contract_names():
    assert ENDPOINT in ENDPOINTS
    assert ENDPOINT.path == "/score/great-western-trail"
    assert ENDPOINT.operation_id == "scoreGreatWesternTrail"


def test_contract_example_anna_scores_96():
    status, answer = post(CONTRACT_EXAMPLE)
    assert status == 200
    anna, ben = answer["players"]
    assert anna == {"name": "Anna", "total": 96, "rank": 1, "breakdown": {
        "money": 4, "buildings": 12, "cities": 8, "stations": 10, "hazards": 7, "cattle": 21,
        "objectives": 6, "station_masters": 13, "workers": 12, "disc": 3, "job_market": 0}}
    assert ben == {"name": "Ben", "total": 32, "rank": 2,
                   "breakdown": {row: {"money": 2, "cattle": 30}.get(row, 0) for row in ROWS}}
    assert answer["game"] == "great-western-trail"
    assert answer["winners"] == ["Anna"]


def test_missing_fields_default_to_zero_false_and_printed_workers():
    status, answer = post({"players": [{"name": "Solo", "station_masters": ["workers"]}]})
    assert status == 200
    (solo,) = answer["players"]
    # Edition 2 by default (solo play is allowed); three printed workers score 3 for the tile.
    assert solo["breakdown"] == {row: 3 if row == "station_masters" else 0 for row in ROWS}


def test_worked_example_2_objectives_tile_through_the_api():
    cards = [{"vp": 3, "fulfilled": False}, {"vp": 4, "penalty": 2, "fulfilled": True},
             {"vp": 5, "penalty": 3, "fulfilled": False}, {"vp": 3, "penalty": 2, "fulfilled": True},
             {"vp": 4, "penalty": 3, "fulfilled": False}]
    body = {"players": [{"name": "Anna", "objectives": cards, "station_masters": ["objectives"]}]}
    status, answer = post(body)
    assert status == 200
    assert answer["players"][0]["breakdown"]["station_masters"] == 6
    assert answer["players"][0]["breakdown"]["objectives"] == 0 + 4 - 3 + 3 - 3


def test_worked_example_3_tie_on_80_shares_rank_1():
    body = {"edition": 1, "players": [{"name": "Anna", "dollars": 400}, {"name": "Ben", "cattle_vp": 80},
                                      {"name": "Cara", "cattle_vp": 79}]}
    status, answer = post(body)
    assert status == 200
    assert [(p["name"], p["total"], p["rank"]) for p in answer["players"]] == [
        ("Anna", 80, 1), ("Ben", 80, 1), ("Cara", 79, 3)]
    assert answer["winners"] == ["Anna", "Ben"]


@pytest.mark.parametrize(("dollars", "vp"), [pytest.param(4, 0, id="4"), pytest.param(5, 1, id="5"),
                                             pytest.param(29, 5, id="29")])
def test_worked_example_4_money_through_the_api(dollars, vp):
    status, answer = post({"players": [{"name": "Anna", "dollars": dollars}]})
    assert status == 200
    assert answer["players"][0]["breakdown"]["money"] == vp


def test_names_are_trimmed_and_negative_cities_allowed():
    status, answer = post({"players": [{"name": "  Anna ", "cities_vp": -100}]})
    assert status == 200
    assert answer["players"][0]["name"] == "Anna"
    assert answer["players"][0]["total"] == -100
    assert answer["winners"] == ["Anna"]


def test_edition_2_tiles_and_none_twice():
    body = {"players": [
        {"name": "Anna", "stations": 5, "station_masters": ["stations", "none"]},
        {"name": "Ben", "buildings": 4, "station_masters": ["buildings", "none"], "job_market_token": True}]}
    status, answer = post(body)
    assert status == 200
    assert [p["breakdown"]["station_masters"] for p in answer["players"]] == [6, 8]
    assert answer["players"][1]["breakdown"]["job_market"] == 2


# Requests the schema refuses.

@pytest.mark.parametrize(("change", "path"), [
    pytest.param((("players", 0, "dollars"), -1), "players[0].dollars", id="negative-dollars"),
    pytest.param((("players", 0, "dollars"), 5.0), "players[0].dollars", id="float-dollars"),
    pytest.param((("players", 0, "dollars"), "5"), "players[0].dollars", id="string-dollars"),
    pytest.param((("players", 0, "dollars"), True), "players[0].dollars", id="bool-dollars"),
    pytest.param((("players", 0, "cattle_vp"), 1000), "players[0].cattle_vp", id="cattle-1000"),
    pytest.param((("players", 0, "cities_vp"), -101), "players[0].cities_vp", id="cities-minus-101"),
    # a player has 10 private building tiles: 95 is a typing slip for 9, as the card page says
    pytest.param((("players", 0, "buildings"), 11), "players[0].buildings", id="buildings-11"),
    pytest.param((("players", 1, "hazards"), 96), "players[1].hazards", id="hazards-96"),
    pytest.param((("players", 0, "workers", "cowboys"), 7), "players[0].workers.cowboys", id="cowboys-7"),
    pytest.param((("players", 0, "workers", "engineers"), 0), "players[0].workers.engineers",
                 id="engineers-0"),
    pytest.param((("players", 0, "workers", "sheriffs"), 2), "players[0].workers.sheriffs", id="unknown-row"),
    pytest.param((("players", 0, "objectives", 1, "vp"), 10), "players[0].objectives[1].vp", id="vp-10"),
    pytest.param((("players", 0, "objectives", 1, "fulfilled"), ...), "players[0].objectives[1].fulfilled",
                 id="fulfilled-missing"),
    pytest.param((("players", 0, "objectives", 1, "penalty"), -3), "players[0].objectives[1].penalty",
                 id="negative-penalty"),
    pytest.param((("players", 0, "station_masters", 0), "sheriff"), "players[0].station_masters[0]",
                 id="unknown-tile"),
    pytest.param((("players", 0, "station_masters"), ["none"] * 10), "players[0].station_masters",
                 id="ten-tiles"),
    pytest.param((("players", 0, "disc_cleared"), 1), "players[0].disc_cleared", id="disc-number"),
    pytest.param((("players", 1, "colour"), "red"), "players[1].colour", id="unknown-player-field"),
    pytest.param((("players", 1, "name"), "   "), "players[1].name", id="blank-name"),
    pytest.param((("players", 1, "name"), "x" * 41), "players[1].name", id="name-41"),
    pytest.param((("players", 1, "name"), ...), "players[1].name", id="name-missing"),
    pytest.param((("edition",), 3), "edition", id="edition-3"),
    pytest.param((("edition",), True), "edition", id="edition-true"),
    pytest.param((("edition",), 2.0), "edition", id="edition-float"),
    pytest.param((("players",), []), "players", id="no-players"),
    pytest.param((("players",), [{"name": f"P{i}"} for i in range(5)]), "players", id="five-players"),
    pytest.param((("players",), ...), "players", id="players-missing"),
    pytest.param((("round",), 3), "round", id="unknown-top-field"),
])
def test_schema_refusals_name_the_field(change, path):
    status, answer = post(with_changes(CONTRACT_EXAMPLE, change))
    assert status == 400
    assert path in [detail["path"] for detail in answer["details"]]


@pytest.mark.parametrize("body", [None, [], "players", 7, {"players": None}, {"players": [None]}],
                         ids=["null", "list", "string", "number", "players-null", "player-null"])
def test_non_object_bodies_are_400(body):
    assert post(body)[0] == 400


# Requests the schema allows but the rules refuse.

@pytest.mark.parametrize(("body", "paths"), [
    pytest.param({"edition": 1, "players": [{"name": "Anna"}]}, ["players"], id="ed1-solo"),
    pytest.param({"edition": 1, "players": [{"name": "Anna", "station_masters": ["buildings"]},
                                            {"name": "Ben"}]},
                 ["players[0].station_masters[0]"], id="ed2-tile-in-ed1"),
    pytest.param({"edition": 1, "players": [{"name": "Anna"}, {"name": "Ben", "station_masters": ["none"]}]},
                 ["players[1].station_masters[0]"], id="none-in-ed1"),
    pytest.param({"players": [{"name": "Anna", "station_masters": ["teepees"]},
                              {"name": "Ben", "station_masters": ["hazards", "teepees"]}]},
                 ["players[1].station_masters[1]"], id="tile-twice"),
    pytest.param({"players": [{"name": "Anna", "station_masters": ["none", "none", "none"]}]},
                 ["players[0].station_masters[2]"], id="none-three-times"),
    pytest.param({"players": [{"name": "Anna", "job_market_token": True}, {"name": "Ben"},
                              {"name": "Cara", "job_market_token": True}]},
                 ["players[2].job_market_token"], id="two-token-holders"),
    pytest.param({"edition": 1, "players": [{"name": "Anna", "station_masters": ["stations"],
                                             "job_market_token": True},
                                            {"name": "Ben", "job_market_token": True}]},
                 ["players[0].station_masters[0]", "players[1].job_market_token"], id="two-problems"),
    pytest.param({"players": [{"name": "Anna", "objectives": [{"vp": 3, "fulfilled": True},
                                                              {"vp": 5, "fulfilled": False}]}]},
                 ["players[0].objectives[1].penalty"], id="unfulfilled-card-without-penalty"),
    pytest.param({"players": [{"name": "Anna", "objectives": [{"vp": 4, "penalty": 0, "fulfilled": False},
                                                              {"vp": 4, "penalty": 1, "fulfilled": True}]}]},
                 ["players[0].objectives[0].penalty", "players[0].objectives[1].penalty"],
                 id="penalties-that-fit-no-card"),
    pytest.param({"players": [{"name": "Anna", "objectives": [{"vp": 2, "penalty": 2, "fulfilled": True}]}]},
                 ["players[0].objectives[0].vp"], id="no-card-is-worth-2"),
])
def test_cross_field_rules_are_400_with_paths(body, paths):
    status, answer = post(body)
    assert status == 400
    assert [detail["path"] for detail in answer["details"]] == paths
    assert answer["error"].startswith(answer["details"][0]["message"].rstrip("."))


@pytest.mark.parametrize("names", [["Anna", "anna"], ["Anna", " Anna  "], ["Ben", "Anna", "ANNA"]])
def test_player_names_must_be_unique_ignoring_case_and_spaces(names):
    status, answer = post({"players": [{"name": name} for name in names]})
    assert status == 400
    assert answer["details"][0]["path"] == f"players[{len(names) - 1}].name"


# Fuzzing: bodies built from the request schema itself.

_KNOWN_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
                   "minimum", "maximum", "enum", "pattern", "default", "description", "x-rule"}
_SAMPLE_NAMES = ["Anna", "anna", " Ben ", "Cara", "Dana", "Émile"]


def from_schema(schema: dict) -> st.SearchStrategy:
    """Values the schema allows (for the keywords the request schema uses; any other one fails loudly)."""
    unknown = set(schema) - _KNOWN_KEYWORDS
    if unknown:
        raise NotImplementedError(f"extend from_schema for {sorted(unknown)}")
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema["type"]
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return st.sampled_from(_SAMPLE_NAMES) | st.from_regex(schema["pattern"], fullmatch=True)
    if kind == "array":
        return st.lists(from_schema(schema["items"]), min_size=schema.get("minItems", 0),
                        max_size=schema["maxItems"])
    if kind == "object":
        required = set(schema.get("required", ()))
        fields = schema["properties"]

        @st.composite
        def objects(draw) -> dict:
            present = [key for key in fields if key in required or draw(st.booleans())]
            return {key: draw(from_schema(fields[key])) for key in present}

        return objects()
    raise NotImplementedError(kind)


SCHEMA_BODIES = from_schema(REQUEST_SCHEMA)


def card_fits(card: dict) -> bool:
    """A card is worth 3, 4 or 5 VP; start cards have 3 VP and no penalty, the others a penalty of 2 or 3,
    which a fulfilled card may leave out (0)."""
    penalty = card.get("penalty", 0)
    return card["vp"] in (3, 4, 5) and (
        penalty in (2, 3) or (penalty == 0 and (card["vp"] == 3 or card["fulfilled"])))


def start_cards(player: dict) -> list[dict]:
    """The player's cards only a start card can be (3 VP, no penalty, not fulfilled): a player has one."""
    return [card for card in player.get("objectives", [])
            if card["vp"] == 3 and not card.get("penalty") and not card["fulfilled"]]


def hazards_fit(player: dict) -> bool:
    """Hazard tiles are worth 2 to 4 VP each: their count, which the Hazards station master asks for,
    and the hazards row agree."""
    count = player.get("hazards", 0)
    return "hazards" not in player.get("station_masters", []) or \
        2 * count <= player.get("hazards_vp", 0) <= 4 * count


def breaks_cross_field_rules(body: dict) -> bool:
    """Whether the contract's rules beyond the schema refuse this schema-valid body."""
    edition = body.get("edition", 2)
    players = body["players"]
    if not all(card_fits(card) for player in players for card in player.get("objectives", [])):
        return True
    if any(len(start_cards(player)) > 1 or not hazards_fit(player) for player in players):
        return True
    if edition == 1 and len(players) < 2:
        return True
    try:
        names = [clean_name(player["name"]) for player in players]
    except NameProblem:
        return True
    if duplicate_name(names) is not None:
        return True
    tiles = [tile for player in players for tile in player.get("station_masters", [])]
    if any(tile not in (ED1_TILES if edition == 1 else ED2_TILES) for tile in tiles):
        return True
    if any(tiles.count(tile) > (2 if tile == "none" else 1) for tile in tiles):
        return True
    if len(tiles) > 5:  # 5 station-master tiles are in play
        return True
    return sum(player.get("job_market_token", False) for player in players) > 1


def made_consistent(body: dict) -> dict:
    """The body with whatever the cross-field rules refuse taken out."""
    players = copy.deepcopy(body["players"])
    edition = body.get("edition", 2) if len(players) > 1 else 2
    allowed = {tile: 1 for tile in (ED1_TILES if edition == 1 else ED2_TILES)}
    if edition == 2:
        allowed["none"] = 2
    token_taken = False
    for index, player in enumerate(players):
        player["name"] = f"Player {index}"
        kept = []
        for tile in player.get("station_masters", []):
            if allowed.get(tile, 0) > 0 and sum(len(p["station_masters"]) for p in players[:index]) \
                    + len(kept) < 5:  # 5 station-master tiles are in play
                allowed[tile] -= 1
                kept.append(tile)
        player["station_masters"] = kept
        if player.get("job_market_token"):
            player["job_market_token"] = not token_taken
            token_taken = True
        for card in player.get("objectives", []):
            if not card_fits(card):
                card["vp"], card["penalty"] = 4, 2
        for card in start_cards(player)[1:]:
            card["penalty"] = 2
        if not hazards_fit(player):
            player["hazards_vp"] = 3 * player.get("hazards", 0)
    return {"edition": edition, "players": players}


FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(SCHEMA_BODIES)
def test_schema_valid_bodies_get_200_exactly_when_the_cross_field_rules_hold(body):
    assert StrictValidator(REQUEST_SCHEMA).is_valid(body)
    status, answer = post(body)
    assert status == (400 if breaks_cross_field_rules(body) else 200), answer


@FUZZ
@given(SCHEMA_BODIES.map(made_consistent))
def test_consistent_bodies_get_200_and_breakdowns_add_up(body):
    status, answer = post(body)
    assert status == 200, answer
    totals = [player["total"] for player in answer["players"]]
    for player in answer["players"]:
        assert list(player["breakdown"]) == ROWS
        assert sum(player["breakdown"].values()) == player["total"]
        assert player["rank"] == 1 + sum(total > player["total"] for total in totals)
    assert [player["name"] for player in answer["players"]] == [p["name"] for p in body["players"]]


_FIELD_NAMES = sorted({"edition", "players", *REQUEST_SCHEMA["properties"]["players"]["items"]["properties"],
                       "vp", "penalty", "fulfilled", "cowboys", "craftsmen", "engineers"})
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2000, 2000) | st.floats() | st.text(max_size=45)
    | st.sampled_from(sorted(ED2_TILES)),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(_FIELD_NAMES) | st.text(max_size=8), children, max_size=6),
    max_leaves=25,
)


@FUZZ
@given(JSON_VALUES)
def test_arbitrary_json_gets_200_or_400(body):
    status, _ = post(body)
    assert status in (200, 400)


@FUZZ
@given(JSON_VALUES.map(lambda players: {"players": players}))
def test_arbitrary_players_get_200_or_400(body):
    status, _ = post(body)
    assert status in (200, 400)


def _places(value: object, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON value, the value itself first."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_places(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_places(item, (*path, index)))
    return found


@FUZZ
@given(SCHEMA_BODIES, st.data())
def test_mutated_valid_bodies_get_200_or_400(body, data):
    place = data.draw(st.sampled_from(_places(body)[1:]))
    mutation = data.draw(st.sampled_from(["replace", "delete", "add-field"]))
    if mutation == "replace":
        body = with_changes(body, (place, data.draw(JSON_VALUES)))
    elif mutation == "delete":
        body = with_changes(body, (place, ...))
    else:
        container = body
        for part in place[:-1]:
            container = container[part]
        if isinstance(container, dict):
            container[data.draw(st.sampled_from(_FIELD_NAMES) | st.text(max_size=8))] = data.draw(JSON_VALUES)
    status, _ = post(body)
    assert status in (200, 400)
