"""The Gold West scoring endpoint: contract, worked example, validation and fuzzing (api.md)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.api import ENDPOINTS
from companion.api.core import StrictValidator, respond
from companion.api.gold_west import ENDPOINTS as GOLD_WEST_ENDPOINTS
from companion.api.gold_west import REQUEST_SCHEMA, RESPONSE_SCHEMA
from companion.games.gold_west import GAME, OFFICE_KEYS, TERRAINS

ENDPOINT = GOLD_WEST_ENDPOINTS[0]
RESPONSE_VALIDATOR = StrictValidator(RESPONSE_SCHEMA)

# Worked example 7 of the rules: Cara has scored nothing at all.
EXAMPLE_7 = {
    "players": [
        {"name": "Anna", "track_vp": 41, "influence": {"forest": 4}, "largest_group": 5, "wanted": 2,
         "investments": 3, "offices": [{"office": "saloon"}]},
        {"name": "Ben", "track_vp": 50, "influence": {"forest": 2}, "largest_group": 4, "wanted": 1,
         "boomtown_tokens": 3, "offices": [{"office": "mayor", "tokens": 1}]},
        {"name": "Cara"},
    ],
}

# The request shown in the contract.
CONTRACT_EXAMPLE = {
    "trading_post": False,
    "players": [
        {"name": "Anna", "track_vp": 41,
         "influence": {"forest": 4, "gold": 0, "silver": 0, "copper": 0},
         "settlements": {"forest": 1},
         "mining_tokens": {"forest": 3},
         "largest_group": 5, "second_group": 0, "wanted": 2,
         "boomtown_tokens": 3, "investments": 3, "shipping_bonus_tiles": 0,
         "offices": [{"office": "saloon", "tokens": 1}, {"office": "frontier", "tokens": 1, "count": 2},
                     {"office": "docks", "tokens": 1, "camps": 1, "settlements": 0}],
         "supply_left": 2},
        {"name": "Ben", "track_vp": 50, "influence": {"forest": 2}, "largest_group": 4, "wanted": 1},
    ],
}


def score(body: dict) -> tuple[int, dict]:
    status, answer = respond(ENDPOINT, body)
    if status == 200:
        assert not list(RESPONSE_VALIDATOR.iter_errors(answer))
    return status, answer


def test_endpoint_is_served_under_its_contract_names():
    assert ENDPOINT.path == "/score/gold-west"
    assert ENDPOINT.operation_id == "scoreGoldWest"
    assert ENDPOINT in ENDPOINTS


def test_worked_example_7_through_the_api():
    status, answer = score(EXAMPLE_7)
    assert status == 200
    assert answer == {
        "game": "gold-west",
        "players": [
            {"name": "Anna", "total": 63, "rank": 2,
             "breakdown": {"track": 41, "largest_group": 10, "offices": 6, "wanted": -2, "influence": 8}},
            {"name": "Ben", "total": 65, "rank": 1,
             "breakdown": {"track": 50, "largest_group": 8, "offices": 3, "wanted": 0, "influence": 4}},
            {"name": "Cara", "total": 0, "rank": 3,
             "breakdown": {"track": 0, "largest_group": 0, "offices": 0, "wanted": 0, "influence": 0}},
        ],
        "winners": ["Ben"],
    }


def test_contract_example():
    status, answer = score(CONTRACT_EXAMPLE)
    assert status == 200
    anna, ben = answer["players"]
    # Two players: Anna holds the forest majority and takes its 2nd-place value.
    assert anna["breakdown"] == {"track": 41, "largest_group": 10, "offices": 6 + 2 + 1, "wanted": -2,
                                 "influence": 4}
    assert ben["breakdown"] == {"track": 50, "largest_group": 8, "offices": 0, "wanted": 0, "influence": 0}
    assert (anna["total"], ben["total"]) == (62, 58)
    assert answer["winners"] == ["Anna"]


@pytest.mark.parametrize(
    ("worked_example", "influence", "settlements", "points"),
    [
        pytest.param("1", {"forest": (4, 4, 2)}, {"forest": (1, 0, 0)}, (8, 4, 0), id="example-1"),
        pytest.param("2", {"gold": (3, 3, 1)}, {}, (7, 7, 0), id="example-2"),
        pytest.param("3", {"silver": (5, 2, 2)}, {}, (10, 3, 3), id="example-3"),
        pytest.param("4", {"copper": (3, 1)}, {}, (7, 0), id="example-4"),
    ],
)
def test_influence_worked_examples_through_the_api(worked_example, influence, settlements, points):
    names = ("Anna", "Ben", "Cara")[:len(points)]
    players = [{"name": name,
                "influence": {terrain: values[i] for terrain, values in influence.items()},
                "settlements": {terrain: values[i] for terrain, values in settlements.items()}}
               for i, name in enumerate(names)]
    status, answer = score({"players": players})
    assert status == 200
    assert tuple(p["breakdown"]["influence"] for p in answer["players"]) == points


@pytest.mark.parametrize(
    ("wanted", "penalties"),
    [
        pytest.param((3, 3, 2, 0), (-3, -3, 0, 0), id="example-5"),
        pytest.param((4, 3, 3), (-4, -1, -1), id="example-6"),
    ],
)
def test_wanted_worked_examples_through_the_api(wanted, penalties):
    players = [{"name": name, "wanted": camps} for name, camps in zip("ABCD", wanted, strict=False)]
    status, answer = score({"players": players})
    assert status == 200
    assert tuple(p["breakdown"]["wanted"] for p in answer["players"]) == penalties


@pytest.mark.parametrize(
    ("office", "tokens", "extra", "points"),
    [
        pytest.param("mayor", 2, {}, 6, id="mayor-tokens-default-to-office-tokens"),
        pytest.param("mayor", 2, {"boomtown_tokens": 5}, 12, id="mayor-with-more-boomtown-tokens"),
        pytest.param("homestead", 1, {"influence": {"forest": 3, "gold": 2, "silver": 4, "copper": 5}}, 4,
                     id="homestead-weakest-terrain"),
        pytest.param("courthouse", 1, {"mining_tokens": {"gold": 4, "copper": 2}}, 4, id="courthouse"),
        pytest.param("depot", 2, {"largest_group": 5, "second_group": 3}, 12, id="depot"),
        pytest.param("shipping", 1, {"shipping_bonus_tiles": 2}, 4, id="shipping"),
        pytest.param("town_hall", 1, {"settlements": {"forest": 1, "silver": 2},
                                      "influence": {"forest": 2, "silver": 4}}, 3, id="town-hall"),
        pytest.param("deeds", 1, {"influence": {"forest": 1, "gold": 1}}, 4, id="deeds"),
    ],
)
def test_offices_computed_from_the_players_other_fields(office, tokens, extra, points):
    body = {"players": [{"name": "Anna", "offices": [{"office": office, "tokens": tokens}], **extra},
                        {"name": "Ben"}]}
    status, answer = score(body)
    assert status == 200
    assert answer["players"][0]["breakdown"]["offices"] == points


@pytest.mark.parametrize(
    ("players", "ranks", "winners"),
    [
        pytest.param([{"name": "Anna", "track_vp": 12, "wanted": 2},
                      {"name": "Ben", "track_vp": 11, "wanted": 1}], [2, 1], ["Ben"], id="fewest-wanted"),
        pytest.param([{"name": "Anna", "track_vp": 10, "supply_left": 1},
                      {"name": "Ben", "track_vp": 10, "supply_left": 3}], [2, 1], ["Ben"],
                     id="most-supply-left"),
        pytest.param([{"name": "Anna", "track_vp": 10, "supply_left": 3},
                      {"name": "Ben", "track_vp": 10, "supply_left": 3},
                      {"name": "Cara", "track_vp": 9}], [1, 1, 3], ["Anna", "Ben"], id="shared-victory"),
    ],
)
def test_ranking_applies_the_tie_breakers(players, ranks, winners):
    status, answer = score({"players": players})
    assert status == 200
    assert [p["rank"] for p in answer["players"]] == ranks
    assert answer["winners"] == winners


def test_names_are_trimmed():
    status, answer = score({"players": [{"name": "  Anna "}, {"name": "Ben"}]})
    assert status == 200
    assert [p["name"] for p in answer["players"]] == ["Anna", "Ben"]


def test_largest_group_and_wanted_may_use_every_camp():
    assert score({"players": [{"name": "A", "largest_group": 10, "wanted": 2}, {"name": "B"}]})[0] == 200
    four = [{"name": "A", "largest_group": 8, "wanted": 2}, {"name": "B"}, {"name": "C"}, {"name": "D"}]
    assert score({"players": four})[0] == 200


def with_players(*players: dict, **body) -> dict:
    return {"players": [*players, {"name": "Zed"}], **body}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        pytest.param({"players": [{"name": "Anna"}]}, "players", id="one-player"),
        pytest.param({"players": [{"name": n} for n in "ABCDE"]}, "players", id="five-players"),
        pytest.param({}, "players", id="no-players"),
        pytest.param([], "", id="body-not-an-object"),
        pytest.param(with_players({"name": "Anna"}, colour="red"), "colour", id="unknown-body-field"),
        pytest.param(with_players({"name": "Anna"}, trading_post=1), "trading_post",
                     id="trading-post-number"),
        pytest.param(with_players({"name": "Anna", "score": 3}), "players[0].score",
                     id="unknown-player-field"),
        pytest.param(with_players({"name": "   "}), "players[0].name", id="blank-name"),
        pytest.param(with_players({"name": "A" * 41}), "players[0].name", id="name-too-long"),
        pytest.param(with_players({"name": "Anna", "track_vp": -51}), "players[0].track_vp",
                     id="track-below"),
        pytest.param(with_players({"name": "Anna", "track_vp": 1000}), "players[0].track_vp",
                     id="track-above"),
        pytest.param(with_players({"name": "Anna", "track_vp": 5.0}), "players[0].track_vp",
                     id="track-float"),
        pytest.param(with_players({"name": "Anna", "track_vp": "5"}), "players[0].track_vp", id="track-text"),
        pytest.param(with_players({"name": "Anna", "track_vp": True}), "players[0].track_vp",
                     id="track-bool"),
        pytest.param(with_players({"name": "Anna", "wanted": -1}), "players[0].wanted", id="wanted-negative"),
        pytest.param(with_players({"name": "Anna", "investments": 1000}), "players[0].investments",
                     id="count-above-999"),
        pytest.param(with_players({"name": "Anna", "influence": {"wood": 1}}), "players[0].influence.wood",
                     id="unknown-terrain"),
        pytest.param(with_players({"name": "Anna", "settlements": {"gold": -1}}),
                     "players[0].settlements.gold", id="negative-terrain-count"),
        pytest.param(with_players({"name": "Anna", "mining_tokens": [3]}), "players[0].mining_tokens",
                     id="terrain-map-not-an-object"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "bank"}]}),
                     "players[0].offices[0].office", id="unknown-office"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "saloon", "tokens": 3}]}),
                     "players[0].offices[0].tokens", id="three-tokens"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "saloon", "tokens": 0}]}),
                     "players[0].offices[0].tokens", id="zero-tokens"),
        pytest.param(with_players({"name": "Anna", "offices": [{"tokens": 1}]}),
                     "players[0].offices[0].office", id="office-missing"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": key} for key in OFFICE_KEYS[4:9]]}),
                     "players[0].offices", id="more-than-four-offices-listed"),
        # Rules across fields.
        pytest.param(with_players({"name": "Anna"}, {"name": " anna"}), "players[1].name",
                     id="names-not-unique"),
        pytest.param(with_players({"name": "Anna", "largest_group": 3, "second_group": 4}),
                     "players[0].second_group", id="second-group-larger"),
        pytest.param(with_players({"name": "Anna", "largest_group": 11, "wanted": 2}), "players[0].wanted",
                     id="more-camps-than-3-players-have"),
        pytest.param({"players": [{"name": "A", "largest_group": 9, "wanted": 2},
                                  {"name": "B"}, {"name": "C"}, {"name": "D"}]},
                     "players[0].wanted", id="more-camps-than-4-players-have"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "saloon"}, {"office": "saloon"}]}),
                     "players[0].offices[1].office", id="office-twice-for-one-player"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "saloon"}, {"office": "mayor"},
                                                               {"office": "depot"}]},
                                  {"name": "Ben", "offices": [{"office": "saloon"}, {"office": "deeds"},
                                                              {"office": "shipping"}]}),
                     "players[1].offices[2].office", id="five-offices-across-players"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "frontier"}]}),
                     "players[0].offices[0].count", id="frontier-needs-count"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "sheriff"}]}),
                     "players[0].offices[0].count", id="sheriff-needs-count"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "surveyor", "tokens": 2}]}),
                     "players[0].offices[0].count", id="surveyor-needs-count"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "saloon", "count": 2}]}),
                     "players[0].offices[0].count", id="count-refused-for-saloon"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "docks", "count": 2}]}),
                     "players[0].offices[0].count", id="count-refused-for-docks"),
        pytest.param(with_players({"name": "Anna",
                                   "offices": [{"office": "frontier", "count": 1, "camps": 1}]}),
                     "players[0].offices[0].camps", id="camps-only-for-docks"),
        pytest.param(with_players({"name": "Anna", "offices": [{"office": "mayor", "settlements": 0}]}),
                     "players[0].offices[0].settlements", id="settlements-only-for-docks"),
        pytest.param(with_players({"name": "Anna", "boomtown_tokens": 2,
                                   "offices": [{"office": "mayor", "tokens": 2}, {"office": "saloon"}]}),
                     "players[0].boomtown_tokens", id="boomtown-tokens-below-office-tokens"),
    ],
)
def test_bad_requests_are_400_with_the_field_named(body, path):
    status, answer = respond(ENDPOINT, body)
    assert status == 400
    assert answer["error"].endswith(".")
    assert path in [detail["path"] for detail in answer["details"]]


def test_cross_field_error_reads_as_a_sentence():
    status, answer = respond(ENDPOINT, with_players({"name": "Anna", "largest_group": 3, "second_group": 4}))
    sentence = "Anna's second-largest group (4) cannot be larger than the largest group (3)."
    assert status == 400
    assert answer == {"error": sentence,
                      "details": [{"path": "players[0].second_group", "message": sentence}]}


def test_count_is_accepted_for_frontier_and_docks_fields_for_docks():
    body = with_players({"name": "Anna", "offices": [{"office": "frontier", "count": 4},
                                                     {"office": "docks", "camps": 2, "settlements": 3}]})
    status, answer = score(body)
    assert status == 200
    assert answer["players"][0]["breakdown"]["offices"] == 4 + 2 + 6


# --------------------------------------------------------------------------------------------------
# Properties

NAMES = ("Anna", "Ben", "Cara", "Dan")


def maybe(draw, target: dict, key: str, strategy) -> None:
    """Include an optional field or leave it to its default."""
    if draw(st.booleans()):
        target[key] = draw(strategy)


@st.composite
def valid_bodies(draw) -> dict:
    """Schema-valid requests that also keep every rule across fields."""
    player_count = draw(st.integers(2, 4))
    camps = 10 if player_count == 4 else 12
    dealt = draw(st.lists(st.sampled_from(OFFICE_KEYS), max_size=4, unique=True))
    players = []
    spaces_left = dict.fromkeys(dealt, 2)  # an office has two halves, whoever holds them
    shipping_tiles_left = 6  # two per metal track
    for name in NAMES[:player_count]:
        player: dict = {"name": name}
        maybe(draw, player, "track_vp", st.integers(-50, 999))
        largest = draw(st.integers(0, camps))
        if draw(st.booleans()):
            player["largest_group"] = largest
        else:
            largest = 0
        maybe(draw, player, "second_group", st.integers(0, min(largest, camps - largest)))
        maybe(draw, player, "wanted", st.integers(0, camps - largest - player.get("second_group", 0)))
        # the buildings: each a camp with a mining token; a settlement puts 2 influence in its terrain
        camps_left = camps - player.get("wanted", 0)
        for terrain in TERRAINS:
            built = draw(st.integers(0, camps_left))
            camps_left -= built
            settled = draw(st.integers(0, built))
            influence = 2 * settled + draw(st.integers(0, 999 - 2 * settled))
            for key, value in (("settlements", settled), ("mining_tokens", built), ("influence", influence)):
                if value or draw(st.booleans()):
                    player.setdefault(key, {})[terrain] = value
        for key in ("investments", "supply_left"):
            maybe(draw, player, key, st.integers(0, 999))
        maybe(draw, player, "shipping_bonus_tiles", st.integers(0, min(3, shipping_tiles_left)))
        shipping_tiles_left -= player.get("shipping_bonus_tiles", 0)
        tokens = 0
        if any(spaces_left.values()) and draw(st.booleans()):
            offices = []
            for office in draw(st.lists(st.sampled_from([o for o in dealt if spaces_left[o]]), unique=True)):
                item: dict = {"office": office}
                maybe(draw, item, "tokens", st.integers(1, spaces_left[office]))
                tokens += item.get("tokens", 1)
                spaces_left[office] -= item.get("tokens", 1)
                # what an office counts are buildings on the map: each a camp, none of them Wanted
                on_map = camps - player.get("wanted", 0)
                if office in ("frontier", "sheriff", "surveyor"):
                    item["count"] = draw(st.integers(0, on_map))
                if office == "docks":
                    maybe(draw, item, "camps", st.integers(0, on_map))
                    maybe(draw, item, "settlements", st.integers(0, on_map - item.get("camps", 0)))
                offices.append(item)
            player["offices"] = offices
        maybe(draw, player, "boomtown_1x1_tokens", st.integers(0, 9))
        placed = tokens + player.get("boomtown_1x1_tokens", 0)
        maybe(draw, player, "boomtown_tokens", st.integers(placed, 999))
        players.append(player)
    body: dict = {"players": players}
    maybe(draw, body, "trading_post", st.booleans())
    return body


@settings(deadline=None)
@given(valid_bodies())
def test_valid_bodies_are_scored(body):
    assert not list(StrictValidator(REQUEST_SCHEMA).iter_errors(body))
    status, answer = score(body)
    assert status == 200, answer
    assert [p["name"] for p in answer["players"]] == [p["name"] for p in body["players"]]
    for player in answer["players"]:
        assert list(player["breakdown"]) == list(GAME.rows)
        assert sum(player["breakdown"].values()) == player["total"]
    assert answer["winners"] == [p["name"] for p in answer["players"] if p["rank"] == 1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 2000) | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@settings(deadline=None)
@given(json_values)
def test_arbitrary_json_is_answered_200_or_400(body):
    status, _ = score(body)
    assert status in (200, 400)


def locations(value, trail=()):
    """Every (container, key) inside a JSON value, for mutating one of them."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((value, key))
            found.extend(locations(inner))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.append((value, index))
            found.extend(locations(inner))
    return found


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_bodies(), st.data())
def test_mutated_bodies_are_answered_200_or_400(body, data):
    mutated = copy.deepcopy(body)
    spots = locations(mutated)
    container, key = data.draw(st.sampled_from(spots))
    action = data.draw(st.sampled_from(["replace", "delete", "add", "shift"]))
    if action == "replace":
        container[key] = data.draw(json_values | st.integers(-60, 1010))
    elif action == "delete":
        del container[key]
    elif action == "shift" and type(container[key]) is int:
        container[key] += data.draw(st.sampled_from([-1000, -13, -1, 1, 13, 1000]))
    elif isinstance(container[key], dict):
        container[key][data.draw(st.sampled_from(["office", "count", "camps", "wood", "name", "x"]))] = \
            data.draw(json_values)
    status, answer = score(mutated)
    assert status in (200, 400)
    if status == 400:
        assert answer["error"]
