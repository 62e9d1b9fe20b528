"""Carcassonne – Mayflower endpoints: score one completed feature, and the final scoring."""

from collections.abc import Mapping

from companion.api import core
from companion.api.core import PLAYER_NAME, ApiError, checked_player_names, count
from companion.games import mayflower
from companion.games.common import RulesError
from companion.games.mayflower import GAME, MAX_COLUMN, SETTLERS_PER_PLAYER

MAX_SETTLERS = SETTLERS_PER_PLAYER * GAME.max_players  # every settler of five players on the map
PLAYERS = {"type": "array", "minItems": GAME.min_players, "maxItems": GAME.max_players, "items": PLAYER_NAME,
           "description": f"{GAME.min_players}–{GAME.max_players} players."}
COLUMN = count(MAX_COLUMN, 1)
_TILES_HOLD = ("at least the settlers on the feature: a settler goes only onto the tile just played, so a "
               "feature holds at most one settler per tile.")
_POSTS_AND_FLAGS = {"trading_posts": count(MAX_COLUMN, default=0, description="road only"),
                    "flags": count(MAX_COLUMN, default=0, description="city only; at most one per tile")}


def _by_kind(sizes: Mapping[str, tuple[str, ...]], extra: tuple[str, ...] = ()) -> list[dict]:
    """``allOf`` branches allowing each ``kind`` its own sizes (a road's or city's tiles required) and
    ``extra`` only: if/then pairs, not a oneOf, so a wrong field is named as such, not as another kind's."""
    return [{"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
             "then": {"properties": {"kind": {"const": kind}, **{name: {} for name in (*own, *extra)}},
                      "required": ["kind", *(name for name in own if name == "tiles")],
                      "additionalProperties": False}}
            for kind, own in sizes.items()]


_SETTLER = {"type": "object", "additionalProperties": False, "required": ["id", "player", "role", "column"],
            "properties": {"id": {"type": "string", "minLength": 1, "maxLength": 40}, "player": PLAYER_NAME,
                           "role": {"enum": list(mayflower.ROLES)}, "column": COLUMN,
                           "on_feature": {"type": "boolean", "default": False, "description": "On the "
                                          "completed feature; its role must fit the kind."}}}
FEATURE_REQUEST = {"type": "object", "additionalProperties": False,
                   "required": ["players", "surveyors", "feature", "settlers"], "properties": {
    "players": PLAYERS,
    "surveyors": {"type": "array", "minItems": 2, "maxItems": 2, "items": count(MAX_COLUMN),
                  "description": "[north, south] columns, 0 = the coast; at most one column apart."},
    "west_edge": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_COLUMN,
                  "description": "Westernmost column holding a tile, at least every settler's and surveyor's "
                                 "column; null or absent: tiles lie further west."},
    "feature": {"type": "object", "required": ["kind"], "additionalProperties": False,
                "properties": {"kind": {"enum": ["road", "city", "farm"]},
                               "tiles": count(MAX_COLUMN, 1, description=_TILES_HOLD), **_POSTS_AND_FLAGS},
                "allOf": _by_kind(mayflower.COMPLETED_SIZES),
                "description": "road: tiles (≥ 1) and trading_posts; city: tiles (≥ 1) and flags (at most "
                               "tiles); farm: nothing else, and exactly one farmer on it (a farm is one "
                               "tile). At most one settler per tile: settlers with on_feature are at most "
                               "tiles."},
    "settlers": {"type": "array", "maxItems": MAX_SETTLERS,
                 "description": "Every settler on the map; ids unique, at most 5 per player.",
                 "items": _SETTLER}}}

_PER_PLAYER_POINTS = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
_IDS = {"type": "array", "items": {"type": "string"}}

FEATURE_RESPONSE = {
    "type": "object", "additionalProperties": False,
    "required": ["scored", "points", "bonus", "returned", "evicted", "surveyors", "moved"],
    "properties": {"scored": {"type": "boolean"}, "points": _PER_PLAYER_POINTS, "bonus": _PER_PLAYER_POINTS,
                   "returned": _IDS, "evicted": _IDS,
                   "surveyors": {"type": "array", "minItems": 2, "maxItems": 2, "items": count(MAX_COLUMN)},
                   "moved": {"type": "boolean"}}}

_SETTLER_COUNTS = {
    "type": "object", "minProperties": 1, "maxProperties": GAME.max_players, "propertyNames": PLAYER_NAME,
    "additionalProperties": count(SETTLERS_PER_PLAYER, 1),
    "description": "Player → settlers on this feature (at least 1); at most 5 per player over all features; "
                   "a farm holds one farmer, a road or city at most one settler per tile."}

_FINAL_FEATURE = {
    "type": "object", "required": ["kind", "settlers"], "additionalProperties": False, "properties": {
        "kind": {"enum": ["road", "city", "farm", "plain"]}, "settlers": _SETTLER_COUNTS,
        "tiles": count(MAX_COLUMN, 1, description="road and city; " + _TILES_HOLD), **_POSTS_AND_FLAGS,
        "neighbours": count(7, default=0, description="farm only: filled spaces around it"),
        "animals": count(default=0, description="plain only")},
    "allOf": _by_kind(mayflower.FINAL_SIZES, ("settlers",))}
FINAL_REQUEST = {"type": "object", "additionalProperties": False, "required": ["players"], "properties": {
    "players": PLAYERS,
    "track_vp": {"type": "object", "maxProperties": GAME.max_players, "propertyNames": PLAYER_NAME,
                 "additionalProperties": count(),
                 "description": "Points scored during play, for some or all players (default 0)."},
    "features": {"type": "array", "maxItems": MAX_SETTLERS,
                 "description": "Incomplete roads, cities and farms and all plains that hold settlers.",
                 "items": _FINAL_FEATURE}}}


def _seat_of(seats: Mapping[str, int], name: str, path: str) -> int:
    """The seat of a player the request names at ``path``, refusing anyone else."""
    if name not in seats:
        raise ApiError(f"{path} names {name!r}, who is not one of the players.",
                       [(path, "must be one of the players")])
    return seats[name]


def _prefixed(error: RulesError, prefix: str) -> ApiError:
    """A rules error about one part of the request, with that part's path in front of its own."""
    path = f"{prefix}.{error.path}" if error.path else prefix
    return ApiError(error.message, [(path, error.message)])


def answer_feature(body: dict) -> dict:
    names = checked_player_names(body["players"])
    seats = {name: index for index, name in enumerate(body["players"])}  # as given; unique, checked above
    north, south = body["surveyors"]
    west_edge = body.get("west_edge")
    if west_edge is not None and west_edge < max(north, south):
        raise ApiError(f"west_edge is {west_edge}, but a surveyor stands in column {max(north, south)}.",
                       [("west_edge", f"must be at least {max(north, south)}, the surveyors' column")])
    kind = body["feature"]["kind"]
    try:
        feature = mayflower.CompletedFeature(**body["feature"])  # the schema allows its fields only
    except RulesError as error:
        raise _prefixed(error, "feature") from None
    on_feature: list[mayflower.Settler] = []
    elsewhere: list[mayflower.Settler] = []
    seen_ids: set[str] = set()
    per_seat = [0] * len(names)
    for index, item in enumerate(body["settlers"]):
        path = f"settlers[{index}]"
        if item["id"] in seen_ids:
            raise ApiError(f"Settler id {item['id']!r} is used twice.",
                           [(f"{path}.id", "repeats an earlier id")])
        seen_ids.add(item["id"])
        seat = _seat_of(seats, item["player"], f"{path}.player")
        per_seat[seat] += 1
        mayflower.check_settlers_held(per_seat[seat], names[seat], f"{path}.player")
        if west_edge is not None and item["column"] > west_edge:
            raise ApiError(f"{path} stands in column {item['column']}, west of west_edge {west_edge}.",
                           [("west_edge", f"must be at least {item['column']}, the column of {path}")])
        settler = mayflower.Settler(id=item["id"], seat=seat, role=item["role"], column=item["column"])
        if item.get("on_feature", False):
            role = mayflower.ROLE_OF_KIND[kind]
            if settler.role != role:
                raise ApiError(f"{path} is a {settler.role}, but a {kind} holds {role}s only.",
                               [(f"{path}.role", f"must be {role} for a settler on a {kind}")])
            on_feature.append(settler)
            mayflower.check_one_farmer(kind, len(on_feature), f"{path}.on_feature")
            mayflower.check_settlers_on_tiles(kind, feature.tiles, len(on_feature), f"{path}.on_feature")
        else:
            elsewhere.append(settler)
    scoring = mayflower.score_completed_feature(feature, on_feature, elsewhere,
                                                mayflower.Surveyors(north, south), west_edge, len(names))
    return {"scored": scoring.scored, "points": dict(zip(names, scoring.points, strict=True)),
            "bonus": dict(zip(names, scoring.bonus, strict=True)), "returned": list(scoring.returned),
            "evicted": list(scoring.evicted), "surveyors": scoring.surveyors.as_list(),
            "moved": scoring.moved}


def answer_final(body: dict) -> dict:
    names = checked_player_names(body["players"])
    seats = {name: index for index, name in enumerate(body["players"])}  # as given; unique, checked above
    track = [0] * len(names)
    for name, points in body.get("track_vp", {}).items():
        track[_seat_of(seats, name, f"track_vp.{name}")] = points
    features = []
    used = [0] * len(names)
    for index, item in enumerate(body.get("features", [])):
        path = f"features[{index}]"
        counts = {_seat_of(seats, name, f"{path}.settlers.{name}"): number
                  for name, number in item["settlers"].items()}
        for name, number in item["settlers"].items():
            used[seats[name]] += number
            mayflower.check_settlers_held(used[seats[name]], names[seats[name]], f"{path}.settlers.{name}")
        sizes = {key: value for key, value in item.items() if key not in ("kind", "settlers")}
        try:
            features.append(mayflower.FinalFeature(kind=item["kind"], settlers=counts, **sizes))
        except RulesError as error:
            raise _prefixed(error, path) from None
    return mayflower.final_result(names, track, features).to_json()


ENDPOINTS = (
    core.Endpoint(
        path="/score/mayflower/feature", operation_id="scoreMayflowerFeature",
        summary="Carcassonne – Mayflower: score one completed road, city or farm, move a surveyor, evict.",
        request_schema=FEATURE_REQUEST, response_schema=FEATURE_RESPONSE, answer=answer_feature),
    core.Endpoint(
        path="/score/mayflower/final", operation_id="scoreMayflowerFinal",
        summary="Carcassonne – Mayflower: final scoring of incomplete features and plains, ranks, winners.",
        request_schema=FINAL_REQUEST, response_schema=core.final_score_response(GAME.rows, GAME.slug),
        answer=answer_final),
)
