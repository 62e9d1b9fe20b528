"""The two Carcassonne – Mayflower scoring endpoints: contract examples, validation, fuzzing."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.api import ENDPOINTS as ALL_ENDPOINTS
from companion.api.core import ERROR_SCHEMA, StrictValidator, respond
from companion.api.mayflower import ENDPOINTS
from companion.names import clean_name, name_key

FEATURE, FINAL = ENDPOINTS

CONTRACT_FEATURE_REQUEST = {
    "players": ["Anna", "Ben", "Cara"],
    "surveyors": [2, 3],
    "west_edge": None,
    "feature": {"kind": "road", "tiles": 4, "trading_posts": 1},
    "settlers": [
        {"id": "a1", "player": "Anna", "role": "bandit", "column": 2, "on_feature": True},
        {"id": "b1", "player": "Ben", "role": "bandit", "column": 3, "on_feature": True},
        {"id": "c1", "player": "Cara", "role": "sheriff", "column": 2},
        {"id": "c2", "player": "Cara", "role": "trapper", "column": 1},
    ],
}
CONTRACT_FEATURE_RESPONSE = {
    "scored": True,
    "points": {"Anna": 10, "Ben": 10, "Cara": 0},
    "bonus": {"Anna": 4, "Ben": 4, "Cara": 0},
    "returned": ["a1", "b1"],
    "evicted": ["c1"],
    "surveyors": [3, 3],
    "moved": True,
}
CONTRACT_FINAL_REQUEST = {
    "players": ["Anna", "Ben"],
    "track_vp": {"Anna": 40, "Ben": 38},
    "features": [
        {"kind": "road", "tiles": 3, "trading_posts": 1, "settlers": {"Anna": 1}},
        {"kind": "city", "tiles": 3, "flags": 1, "settlers": {"Anna": 1, "Ben": 1}},
        {"kind": "farm", "neighbours": 5, "settlers": {"Ben": 1}},
        {"kind": "plain", "animals": 3, "settlers": {"Anna": 2, "Ben": 2}},
    ],
}


def ok(endpoint, body) -> dict:
    status, answer = respond(endpoint, body)
    assert status == 200, answer
    StrictValidator(endpoint.response_schema).validate(answer)
    return answer


def test_endpoints_are_registered():
    assert [(e.path, e.operation_id) for e in ENDPOINTS] == [
        ("/score/mayflower/feature", "scoreMayflowerFeature"),
        ("/score/mayflower/final", "scoreMayflowerFinal")]
    assert all(endpoint in ALL_ENDPOINTS for endpoint in ENDPOINTS)


def test_contract_feature_example():
    assert ok(FEATURE, CONTRACT_FEATURE_REQUEST) == CONTRACT_FEATURE_RESPONSE


def test_contract_final_example():
    # Anna: 40 + road 5 + city 4 (tied) + plain 3; Ben: 38 + city 4 + farm 6 + plain 3.
    assert ok(FINAL, CONTRACT_FINAL_REQUEST) == {
        "game": "mayflower",
        "players": [
            {"name": "Anna", "total": 52, "rank": 1,
             "breakdown": {"track": 40, "roads": 5, "cities": 4, "farms": 0, "plains": 3}},
            {"name": "Ben", "total": 51, "rank": 2,
             "breakdown": {"track": 38, "roads": 0, "cities": 4, "farms": 6, "plains": 3}},
        ],
        "winners": ["Anna"],
    }


def settler(settler_id, player, role, column, on_feature=None) -> dict:
    item = {"id": settler_id, "player": player, "role": role, "column": column}
    if on_feature is not None:
        item["on_feature"] = on_feature
    return item


@pytest.mark.parametrize(("request_body", "response"), [
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [4, 4], "feature": {"kind": "city", "tiles": 3, "flags": 1},
         "settlers": [settler("a1", "Anna", "sheriff", 4, True), settler("a2", "Anna", "sheriff", 5, True),
                      settler("b1", "Ben", "sheriff", 4, True)]},
        {"scored": True, "points": {"Anna": 16, "Ben": 0}, "bonus": {"Anna": 8, "Ben": 0},
         "returned": ["a1", "a2", "b1"], "evicted": [], "surveyors": [5, 4], "moved": True},
        id="example-2-city-majority",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [3, 2], "west_edge": 3, "feature": {"kind": "farm"},
         "settlers": [settler("a1", "Anna", "farmer", 1), settler("b1", "Ben", "bandit", 3, False)]},
        {"scored": False, "points": {"Anna": 0, "Ben": 0}, "bonus": {"Anna": 0, "Ben": 0},
         "returned": [], "evicted": [], "surveyors": [3, 2], "moved": False},
        id="example-3-farm-without-settler",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [7, 7], "west_edge": 7,
         "feature": {"kind": "road", "tiles": 2},
         "settlers": [settler("b1", "Ben", "bandit", 7, True), settler("a1", "Anna", "farmer", 6)]},
        {"scored": True, "points": {"Anna": 0, "Ben": 10}, "bonus": {"Anna": 0, "Ben": 8},
         "returned": ["b1"], "evicted": ["a1"], "surveyors": [7, 7], "moved": False},
        id="example-4-west-edge-blocks-the-move",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [2, 3], "west_edge": 6,
         "feature": {"kind": "road", "tiles": 3},
         "settlers": [settler("a1", "Anna", "bandit", 3, True), settler("b1", "Ben", "sheriff", 2)]},
        {"scored": True, "points": {"Anna": 7, "Ben": 0}, "bonus": {"Anna": 4, "Ben": 0},
         "returned": ["a1"], "evicted": ["b1"], "surveyors": [3, 3], "moved": True},
        id="example-5-road-first",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [3, 3], "west_edge": 6,
         "feature": {"kind": "city", "tiles": 2}, "settlers": []},
        {"scored": False, "points": {"Anna": 0, "Ben": 0}, "bonus": {"Anna": 0, "Ben": 0},
         "returned": [], "evicted": [], "surveyors": [3, 3], "moved": False},
        id="example-5-then-the-city-has-lost-its-sheriff",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [2, 3], "west_edge": 6,
         "feature": {"kind": "city", "tiles": 2, "flags": 0},
         "settlers": [settler("b1", "Ben", "sheriff", 2, True), settler("a1", "Anna", "bandit", 3)]},
        {"scored": True, "points": {"Anna": 0, "Ben": 8}, "bonus": {"Anna": 0, "Ben": 4},
         "returned": ["b1"], "evicted": [], "surveyors": [3, 3], "moved": True},
        id="example-5-city-first",
    ),
    pytest.param(
        {"players": ["Anna", "Ben"], "surveyors": [3, 3], "west_edge": 6,
         "feature": {"kind": "road", "tiles": 3},
         "settlers": [settler("a1", "Anna", "bandit", 3, True)]},
        {"scored": True, "points": {"Anna": 11, "Ben": 0}, "bonus": {"Anna": 8, "Ben": 0},
         "returned": ["a1"], "evicted": [], "surveyors": [4, 3], "moved": True},
        id="example-5-city-first-then-the-road",
    ),
    pytest.param(
        {"players": [" Anna ", "Ben"], "surveyors": [5, 4],
         "feature": {"kind": "road", "tiles": 1, "trading_posts": 0},
         "settlers": [settler("x", " Anna ", "trapper", 1), settler("y", "Ben", "sheriff", 5),
                      settler("z", " Anna ", "bandit", 9, True), settler("w", "Ben", "farmer", 3)]},
        {"scored": True, "points": {"Anna": 1, "Ben": 0}, "bonus": {"Anna": 0, "Ben": 0},
         "returned": ["z"], "evicted": ["w"], "surveyors": [5, 5], "moved": True},
        id="trapper-and-surveyor-column-stay-names-trimmed",
    ),
])
def test_feature_endpoint(request_body, response):
    assert ok(FEATURE, request_body) == response


def test_final_endpoint_example_6_and_shared_victory():
    body = {"players": ["Anna", " Ben"], "track_vp": {"Anna": 2},
            "features": [{"kind": "city", "tiles": 3, "flags": 1, "settlers": {"Anna": 1}},
                         {"kind": "farm", "neighbours": 5, "settlers": {" Ben": 1}},
                         {"kind": "plain", "animals": 3, "settlers": {"Anna": 2, " Ben": 2}}]}
    answer = ok(FINAL, body)
    assert [(p["name"], p["total"], p["rank"], p["breakdown"]) for p in answer["players"]] == [
        ("Anna", 9, 1, {"track": 2, "roads": 0, "cities": 4, "farms": 0, "plains": 3}),
        ("Ben", 9, 1, {"track": 0, "roads": 0, "cities": 0, "farms": 6, "plains": 3}),
    ]
    assert answer["winners"] == ["Anna", "Ben"]


def test_final_endpoint_minimal_body():
    answer = ok(FINAL, {"players": ["Anna", "Ben"]})
    assert [p["total"] for p in answer["players"]] == [0, 0]
    assert answer["winners"] == ["Anna", "Ben"]


def changed(base: dict, path: tuple, value=None, delete: bool = False) -> dict:
    body = copy.deepcopy(base)
    target = body
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


SIX_FOR_CARA = [*CONTRACT_FEATURE_REQUEST["settlers"],
                *(settler(f"c{i}", "Cara", "trapper", 1) for i in range(3, 7))]

FEATURE_ERRORS = [
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("players",), ["Anna"]), "players", id="one-player"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("players",), list("ABCDEF")), "players",
                 id="six-players"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("players", 1), "anna "), "players[1]",
                 id="duplicate-name-ignoring-case"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("players", 0), "   "), "players[0]", id="blank-name"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("surveyors",), [1, 3]), "surveyors",
                 id="surveyors-apart"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("surveyors",), [2]), "surveyors", id="one-surveyor"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("surveyors",), [-1, 0]), "surveyors[0]",
                 id="surveyor-in-the-sea"),
    pytest.param(changed(changed(CONTRACT_FEATURE_REQUEST, ("west_edge",), 4), ("settlers", 2, "column"), 5),
                 "west_edge", id="settler-beyond-west-edge"),
    pytest.param(changed(changed(CONTRACT_FEATURE_REQUEST, ("surveyors",), [4, 3]), ("west_edge",), 3),
                 "west_edge", id="surveyor-beyond-west-edge"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("west_edge",), 96), "west_edge", id="west-edge-too-far"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("west_edge",), "3"), "west_edge", id="west-edge-text"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "road"}), "feature.tiles",
                 id="road-without-tiles"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "road", "tiles": 0}),
                 "feature.tiles", id="road-of-no-tiles"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "road", "tiles": 4, "flags": 1}),
                 "feature.flags", id="road-with-flags"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "farm", "tiles": 1}),
                 "feature.tiles", id="farm-with-tiles"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "city", "tiles": 5.0}),
                 "feature.tiles", id="tiles-float"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "city", "tiles": True}),
                 "feature.tiles", id="tiles-boolean"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "city", "tiles": 96}),
                 "feature.tiles", id="tiles-beyond-95"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("feature",), {"kind": "plain"}), "feature.kind",
                 id="plain-is-not-completed"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 1, "id"), "a1"), "settlers[1].id",
                 id="duplicate-id"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "player"), "Zed"), "settlers[0].player",
                 id="unknown-player"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "player"), "anna"), "settlers[0].player",
                 id="player-name-not-exact"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("players", 0), " Anna"), "settlers[0].player",
                 id="player-name-not-as-in-players"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 2, "role"), "pirate"), "settlers[2].role",
                 id="unknown-role"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "role"), "sheriff"), "settlers[0].role",
                 id="sheriff-on-a-road"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "column"), 0), "settlers[0].column",
                 id="settler-on-the-coast"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "column"), 96), "settlers[0].column",
                 id="column-beyond-95"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "on_feature"), "yes"),
                 "settlers[0].on_feature", id="on-feature-text"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "id"), ""), "settlers[0].id",
                 id="empty-id"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers",), SIX_FOR_CARA), "settlers[7].player",
                 id="six-settlers-of-one-player"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers",), None, delete=True), "settlers",
                 id="settlers-missing"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("colour",), "red"), "colour", id="unknown-field"),
    pytest.param(changed(CONTRACT_FEATURE_REQUEST, ("settlers", 0, "colour"), "red"), "settlers[0].colour",
                 id="unknown-settler-field"),
    pytest.param([CONTRACT_FEATURE_REQUEST], "", id="not-an-object"),
]


@pytest.mark.parametrize(("body", "path"), FEATURE_ERRORS)
def test_feature_endpoint_refuses(body, path):
    status, answer = respond(FEATURE, body)
    assert status == 400
    StrictValidator(ERROR_SCHEMA).validate(answer)
    assert answer["details"][0]["path"] == path
    assert answer["error"].endswith(".")


FINAL_ERRORS = [
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("track_vp",), {"Zed": 1}), "track_vp.Zed",
                 id="track-of-unknown-player"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("track_vp", "Anna"), 1000), "track_vp.Anna",
                 id="track-above-999"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("track_vp", "Anna"), -1), "track_vp.Anna",
                 id="track-negative"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 0, "settlers"), {}), "features[0].settlers",
                 id="feature-without-settlers"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 0, "settlers"), {"Anna": 0}),
                 "features[0].settlers.Anna", id="zero-settlers"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("players", 1), "Ben "), "track_vp.Ben",
                 id="track-name-not-as-in-players"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 1, "settlers"), {"Zed": 1}),
                 "features[1].settlers.Zed", id="settlers-of-unknown-player"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 3, "settlers", "Anna"), 4),
                 "features[3].settlers.Anna", id="six-settlers-over-all-features"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 2, "neighbours"), 8), "features[2].neighbours",
                 id="eight-neighbours"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 3, "tiles"), 2), "features[3].tiles",
                 id="plain-with-tiles"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 0, "tiles"), None, delete=True),
                 "features[0].tiles", id="road-without-tiles"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 1, "trading_posts"), 1),
                 "features[1].trading_posts", id="city-with-trading-post"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 3, "animals"), -1), "features[3].animals",
                 id="negative-animals"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("features", 0, "kind"), "castle"), "features[0].kind",
                 id="unknown-kind"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("players",), ["Anna"]), "players", id="one-player"),
    pytest.param(changed(CONTRACT_FINAL_REQUEST, ("players",), None, delete=True), "players",
                 id="players-missing"),
]


@pytest.mark.parametrize(("body", "path"), FINAL_ERRORS)
def test_final_endpoint_refuses(body, path):
    status, answer = respond(FINAL, body)
    assert status == 400
    StrictValidator(ERROR_SCHEMA).validate(answer)
    assert answer["details"][0]["path"] == path


# --- properties ---------------------------------------------------------------------------------------

NAMES = st.from_regex(r"[A-Za-zÄÖÜäöüßé][A-Za-zÄÖÜäöüßé .'-]{0,10}[A-Za-zé]", fullmatch=True)
ROLE_OF_KIND = {"road": "bandit", "city": "sheriff", "farm": "farmer"}


@st.composite
def feature_bodies(draw) -> dict:
    """A request the feature endpoint must answer with 200: schema-valid, keeping every cross-field rule."""
    players = draw(st.lists(NAMES, min_size=2, max_size=5, unique_by=lambda n: name_key(clean_name(n))))
    north = draw(st.integers(0, 95))
    south = draw(st.sampled_from([c for c in (north - 1, north, north + 1) if 0 <= c <= 95]))
    kind = draw(st.sampled_from(["road", "city", "farm"]))
    feature = {"kind": kind}
    if kind != "farm":
        feature["tiles"] = draw(st.integers(1, 95))
        extra = "trading_posts" if kind == "road" else "flags"
        if draw(st.booleans()):
            # a city has at most one flag per tile
            feature[extra] = draw(st.integers(0, 95 if kind == "road" else feature["tiles"]))
    settlers = []
    # Columns next to the surveyors are where bonuses and evictions happen.
    near = sorted({c for c in (north - 1, north, south, south + 1) if 1 <= c <= 95}) or [1]
    columns = st.integers(1, 95) | st.sampled_from(near)
    if draw(st.booleans()):  # a map that ends at the surveyors, where a shared column cannot move on
        columns = st.integers(1, max(1, north, south)) | st.sampled_from([max(1, north, south)])
    for player in players:
        for _ in range(draw(st.integers(0, 5))):
            role = draw(st.sampled_from(["bandit", "sheriff", "trapper", "farmer"]))
            item = settler(f"s{len(settlers)}", player, role, draw(columns))
            # at most one settler per tile (a farm is one tile: one farmer)
            full = sum(bool(s.get("on_feature")) for s in settlers) >= feature.get("tiles", 1)
            if role == ROLE_OF_KIND[kind] and not full and draw(st.booleans()):
                item["on_feature"] = True
            elif draw(st.booleans()):
                item["on_feature"] = False
            settlers.append(item)
    settlers = draw(st.permutations(settlers))
    body = {"players": players, "surveyors": [north, south], "feature": feature, "settlers": settlers}
    edge = max([north, south, *(s["column"] for s in settlers)])
    choice = draw(st.sampled_from(["absent", "null", "edge"]))
    if choice == "null":
        body["west_edge"] = None
    elif choice == "edge":
        body["west_edge"] = draw(st.just(edge) | st.integers(edge, 95))
    return body


def expected_feature_answer(body: dict) -> dict:
    """The rules of the feature scoring written out once more, plainly, to check the endpoint against."""
    names = [clean_name(name) for name in body["players"]]
    owner = {s["id"]: clean_name(s["player"]) for s in body["settlers"]}
    on = [s for s in body["settlers"] if s.get("on_feature")]
    north, south = body["surveyors"]
    zero = dict.fromkeys(names, 0)
    if not on:
        return {"scored": False, "points": zero, "bonus": dict(zero), "returned": [], "evicted": [],
                "surveyors": [north, south], "moved": False}
    counts = {name: sum(owner[s["id"]] == name for s in on) for name in names}
    most = max(counts.values())
    feature = body["feature"]
    value = {"road": feature.get("tiles", 0) + 2 * feature.get("trading_posts", 0),
             "city": 2 * feature.get("tiles", 0) + 2 * feature.get("flags", 0), "farm": 9}[feature["kind"]]
    bonus = {name: 4 * sum((s["column"] == north) + (s["column"] == south) for s in on
                           if owner[s["id"]] == name) if counts[name] == most else 0 for name in names}
    points = {name: (value if counts[name] == most else 0) + bonus[name] for name in names}
    edge = 95 if body.get("west_edge") is None else body["west_edge"]
    if north != south:
        after = [north + (north < south), south + (south < north)]
    elif north < edge:
        after = [north + 1, south]
    else:
        after = [north, south]
    evicted = [s["id"] for s in body["settlers"] if not s.get("on_feature") and s["role"] != "trapper"
               and s["column"] < min(after)]
    return {"scored": True, "points": points, "bonus": bonus, "returned": [s["id"] for s in on],
            "evicted": evicted, "surveyors": after, "moved": after != [north, south]}


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feature_bodies())
def test_valid_feature_bodies_are_scored(body):
    StrictValidator(FEATURE.request_schema).validate(body)
    assert ok(FEATURE, body) == expected_feature_answer(body)


@st.composite
def final_bodies(draw) -> dict:
    """A request the final endpoint must answer with 200."""
    players = draw(st.lists(NAMES, min_size=2, max_size=5, unique_by=lambda n: name_key(clean_name(n))))
    body: dict = {"players": players}
    if draw(st.booleans()):
        body["track_vp"] = {name: draw(st.integers(0, 999))
                            for name in draw(st.lists(st.sampled_from(players), unique=True))}
    left = dict.fromkeys(players, 5)
    features = []
    for _ in range(draw(st.integers(0, 8))):
        owners = [name for name in players if left[name]]
        if not owners:
            break
        kind = draw(st.sampled_from(["road", "city", "farm", "plain"]))
        # a farm is one tile and holds one farmer
        chosen = draw(st.lists(st.sampled_from(owners), min_size=1, max_size=1 if kind == "farm" else None,
                               unique=True))
        settlers = {}
        for name in chosen:
            settlers[name] = 1 if kind == "farm" else draw(st.integers(1, left[name]))
            left[name] -= settlers[name]
        feature = {"kind": kind, "settlers": settlers}
        if kind in ("road", "city"):  # at least one tile per settler on it
            feature["tiles"] = draw(st.integers(sum(settlers.values()), 95))
        sizes = {"road": ("trading_posts", 95), "city": ("flags", feature.get("tiles")),
                 "farm": ("neighbours", 7), "plain": ("animals", 999)}
        if draw(st.booleans()):
            name, most = sizes[kind]
            feature[name] = draw(st.integers(0, most))
        features.append(feature)
    if features or draw(st.booleans()):
        body["features"] = features
    return body


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(final_bodies())
def test_valid_final_bodies_are_ranked(body):
    StrictValidator(FINAL.request_schema).validate(body)
    answer = ok(FINAL, body)
    assert [p["name"] for p in answer["players"]] == [clean_name(name) for name in body["players"]]
    for player in answer["players"]:
        assert sum(player["breakdown"].values()) == player["total"]
        raw = next(n for n in body["players"] if clean_name(n) == player["name"])
        assert player["breakdown"]["track"] == body.get("track_vp", {}).get(raw, 0)
    best = max(p["total"] for p in answer["players"])
    assert answer["winners"] == [p["name"] for p in answer["players"] if p["total"] == best]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


def assert_answered(endpoint, body) -> tuple[int, dict]:
    status, answer = respond(endpoint, body)
    assert status in (200, 400)
    StrictValidator(endpoint.response_schema if status == 200 else ERROR_SCHEMA).validate(answer)
    return status, answer


@settings(deadline=None)
@given(endpoint=st.sampled_from(ENDPOINTS), body=JSON)
def test_arbitrary_json_is_answered_200_or_400(endpoint, body):
    assert_answered(endpoint, body)


@st.composite
def mutated(draw, bodies) -> dict:
    """A valid body with one value somewhere replaced, removed, or a field added."""
    body = copy.deepcopy(draw(bodies))
    parent, key = None, None
    node = body
    while isinstance(node, (dict, list)) and node and draw(st.booleans()):
        parent = node
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        node = node[key]
    action = draw(st.sampled_from(["replace", "remove", "add"]))
    if parent is None or action == "add":
        target = node if isinstance(node, dict) else body
        target[draw(st.text(max_size=8))] = draw(JSON)
    elif action == "remove":
        del parent[key]
    else:
        parent[key] = draw(JSON | st.integers(-5, 100))
    return body


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_bodies_are_answered_200_or_400(data):
    endpoint, bodies = data.draw(st.sampled_from([(FEATURE, feature_bodies()), (FINAL, final_bodies())]))
    assert_answered(endpoint, data.draw(mutated(bodies)))


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.operation_id)
def test_schema_generated_bodies_are_answered(endpoint):
    """The schema as a schema-driven fuzzer reads it: what it generates is answered, some of it with 200."""
    builder = pytest.importorskip("schemathesis.generation.jsonschema.builder")
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    strategy = builder.build(endpoint.request_schema, draft=jsonschema_rs.Draft202012, formats={})
    statuses = set()

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def check(body):
        status, _ = assert_answered(endpoint, body)
        statuses.add(status)

    check()
    assert 200 in statuses  # the schema lets the fuzzer reach real scoring, not only refusals
