"""The Gold West final-score endpoint: ``POST /score/gold-west`` (spec: api.md, "Gold West")."""

from companion.api import core
from companion.api.core import PLAYER_NAME, ApiError, checked_player_names, count
from companion.games import gold_west
from companion.games.gold_west import GAME, OFFICE_KEYS, OFFICES_BY_KEY, TERRAINS, OfficeClaim, PlayerTally

_MOST_CAMPS = max(gold_west.CAMPS_BY_PLAYER_COUNT.values())


def _terrain_map(most: int, description: str) -> dict:
    return {"type": "object", "additionalProperties": False,
            "properties": {terrain: count(most) for terrain in TERRAINS},
            "description": f"Per terrain; a missing key is 0. {description}"}


_BUILDINGS = ("Each building (camp or settlement) took one mining token into its terrain's row, so per "
              "terrain the buildings are the larger of mining_tokens and settlements; over all terrains "
              "they and wanted are at most the camps per player (12 with 2–3 players, 10 with 4).")

_OFFICE_CLAIM = {"type": "object", "additionalProperties": False, "required": ["office"], "properties": {
    "office": {"enum": list(OFFICE_KEYS)},
    "tokens": count(gold_west.MAX_TOKENS_PER_OFFICE, 1,
                    description="1, or 2 for a token on each half of the office (default 1)."),
    "count": count(description="What the formula counts; frontier, sheriff and surveyor only "
                               "(required for them). Buildings: at most the player's camps off the Wanted "
                               "area, as for the docks' camps and settlements together."),
    "camps": count(description="Docks only: camps touching water (default 0)."),
    "settlements": count(description="Docks only: settlements touching water (default 0).")}}

_PLAYER = {"type": "object", "additionalProperties": False, "required": ["name"], "properties": {
    "name": PLAYER_NAME,
    "track_vp": count(gold_west.TRACK_VP_HIGHEST, gold_west.TRACK_VP_LOWEST,
                      description="Points on the score track at the end of play."),
    "influence": _terrain_map(999, "Per terrain at least 2 × settlements there (rules: influence = camps + "
                                   "2 × settlements + investment cards), so 3 settlements need 6."),
    "settlements": _terrain_map(_MOST_CAMPS, _BUILDINGS),
    "mining_tokens": _terrain_map(_MOST_CAMPS, _BUILDINGS),
    "largest_group": count(), "second_group": count(description="At most largest_group."),
    "wanted": count(description="Camps in the Wanted area; largest_group + second_group + wanted is at most "
                                "the camps per player (12 with 2–3 players, 10 with 4)."),
    "boomtown_tokens": count(description="Influence tokens in BoomTown; defaults to the sum of the office "
                                         "tokens and boomtown_1x1_tokens and may not be smaller."),
    "boomtown_1x1_tokens": count(description="Influence tokens on the BoomTown 1×1 space (default 0); they "
                                             "count for the Mayor."),
    "investments": count(),
    "shipping_bonus_tiles": count(gold_west.MAX_SHIPPING_BONUS_TILES, description="One per metal track at "
                                  "most; each track has 2 tiles, so all players together hold at most 6."),
    "offices": {"type": "array", "maxItems": gold_west.OFFICES_DEALT, "items": _OFFICE_CLAIM,
                "description": "Each office at most once per player; at most 4 different offices across all "
                               "players; an office has two halves, so its tokens of all players together are "
                               "at most 2."},
    "supply_left": count(description="Resources left on the supply track (a tie-breaker).")}}

REQUEST_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["players"], "properties": {
    "trading_post": {"type": "boolean", "description": "The Trading Post mini expansion (default false); "
                                                       "it changes no end scoring."},
    "players": {"type": "array", "minItems": GAME.min_players, "maxItems": GAME.max_players,
                "items": _PLAYER}}}

RESPONSE_SCHEMA = core.final_score_response(GAME.rows, GAME.slug)


def _office_claim(item: dict, path: str) -> OfficeClaim:
    office = OFFICES_BY_KEY[item["office"]]
    if office.asks == "count" and "count" not in item:
        raise ApiError(f"{path}.count is required: say how many the {office.label} office counts.",
                       [(f"{path}.count", f"is required for {office.key}")])
    if office.asks == "docks" and "count" in item:
        raise ApiError(f"{path}.count is not for the docks office: it takes camps and settlements (those "
                       f"touching water).",
                       [(f"{path}.count", "is not for docks; use camps and settlements")])
    if office.asks != "count" and "count" in item:
        raise ApiError(f"{path}.count is only for frontier, sheriff and surveyor; the {office.label} office "
                       f"is computed from the player's other fields.",
                       [(f"{path}.count", "is only for frontier, sheriff and surveyor")])
    for name in ("camps", "settlements"):
        if office.asks != "docks" and name in item:
            raise ApiError(f"{path}.{name} is only for the docks office.",
                           [(f"{path}.{name}", "is only for docks")])
    return OfficeClaim(**item)  # the schema allows its fields only; a missing one has its default


def answer(body: dict) -> dict:
    """Score a schema-valid request: the final-score response; a broken rule is refused naming its field."""
    players = body["players"]
    names = checked_player_names([player["name"] for player in players], "players[{index}].name")
    tallies = []
    for index, (player, name) in enumerate(zip(players, names, strict=True)):
        offices = tuple(_office_claim(item, f"players[{index}].offices[{position}]")
                        for position, item in enumerate(player.get("offices", [])))
        tallies.append(PlayerTally(**{**player, "name": name, "offices": offices}))
    return gold_west.final_result(tallies).to_json()


ENDPOINTS = (core.Endpoint(
    path="/score/gold-west", operation_id="scoreGoldWest",
    summary="Gold West final score: score track, largest group, BoomTown offices, Wanted and terrain "
            "majorities, ranked with the tie-breakers.",
    request_schema=REQUEST_SCHEMA, response_schema=RESPONSE_SCHEMA, answer=answer),)
