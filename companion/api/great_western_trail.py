"""The Great Western Trail final-score endpoint: ``POST /score/great-western-trail``."""

from companion.api import core
from companion.api.core import PLAYER_NAME, ApiError, checked_player_names, count
from companion.games import great_western_trail as gwt

OBJECTIVE_SCHEMA = {"type": "object", "required": ["vp", "fulfilled"], "additionalProperties": False,
                    "properties": {"vp": count(gwt.OBJECTIVE_VALUE_MAX,
                                               description="What the card is worth: 3, 4 or 5 VP."),
                                   "penalty": count(gwt.OBJECTIVE_VALUE_MAX, default=0, description=(
                                       "2 or 3; 0 only for a fulfilled card or the start card (3 VP), "
                                       "which a player has once.")),
                                   "fulfilled": {"type": "boolean"}}}
WORKERS_SCHEMA = {"type": "object", "additionalProperties": False,
                  "description": "Workers in each row, the printed first one included.", "properties": {
                      row: count(gwt.WORKER_ROW_MAX, gwt.WORKER_ROW_MIN, default=gwt.WORKER_ROW_MIN)
                      for row in gwt.WORKER_ROWS}}

_VP_FIELDS = ("dollars", "buildings_vp", "stations_vp", "hazards_vp", "cattle_vp")
_FLAG_FIELDS = ("disc_cleared", "job_market_token")

PLAYER_SCHEMA = {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
    "name": PLAYER_NAME,
    **{name: count(default=0) for name in _VP_FIELDS},
    "cities_vp": count(gwt.VP_MAX, gwt.CREST_VP_MIN, default=0),
    "objectives": {"type": "array", "maxItems": gwt.OBJECTIVE_CARDS_MAX, "items": OBJECTIVE_SCHEMA},
    "station_masters": {
        "type": "array", "maxItems": gwt.STATION_MASTERS_IN_PLAY,
        "items": {"type": "string", "enum": [master.key for master in gwt.STATION_MASTERS]},
        "description": "Keys of the station-master tiles the player holds. 5 tiles are in play (the 1st "
                       "edition's five; 5 of the 2nd edition's 9, the two none copies included), so all "
                       "players together hold at most 5, each key once, none at most twice."},
    "workers": WORKERS_SCHEMA,
    **{name: count(gwt.PIECES_MAX, default=0) for name in gwt.PIECE_COUNTS
       if name not in ("hazards", "buildings")},
    "buildings": count(len(gwt.BUILDING_NUMBERS), default=0, description=(
        "The player's private buildings on the map, for the buildings station master: each player has 10.")),
    "hazards": count(gwt.PIECES_MAX, default=0, description=(
        "Hazard tiles, for the hazards station master: its holder's hazards_vp is 2 to 4 VP a tile.")),
    **{name: {"type": "boolean", "default": False} for name in _FLAG_FIELDS}}}

REQUEST_SCHEMA = {"type": "object", "required": ["players"], "additionalProperties": False, "properties": {
    "edition": {"type": "integer", "enum": list(gwt.EDITIONS), "default": gwt.DEFAULT_EDITION},
    "players": {"type": "array", "minItems": 1, "maxItems": gwt.GAME.max_players, "items": PLAYER_SCHEMA}}}


def tally_from_player(player: dict, name: str) -> gwt.Tally:
    """A schema-valid ``players[]`` entry as the rules' tally, missing fields at their defaults."""
    return gwt.Tally(**{**player, "name": name, "workers": gwt.Workers(**player.get("workers", {})),
                        "objectives": tuple(gwt.Objective(**card) for card in player.get("objectives", ())),
                        "station_masters": tuple(player.get("station_masters", ()))})


def score_great_western_trail(body: dict) -> dict:
    """Rank the players of a schema-valid request; cross-field rules break as ApiError."""
    edition = body.get("edition", gwt.DEFAULT_EDITION)
    players = body["players"]
    names = checked_player_names([player["name"] for player in players], "players[{index}].name")
    tallies = [tally_from_player(player, name) for player, name in zip(players, names, strict=True)]
    if problems := gwt.tally_problems(edition, tallies):
        sentence, more = problems[0][1], len(problems) - 1
        if more:
            sentence += f" ({more} more problem{'s' if more > 1 else ''} below.)"
        raise ApiError(sentence, problems)
    return gwt.final_result(edition, tallies).to_json()


ENDPOINTS = (core.Endpoint(
    path="/score/great-western-trail", operation_id="scoreGreatWesternTrail",
    summary="Final score of a Great Western Trail play (1st or 2nd edition)", request_schema=REQUEST_SCHEMA,
    response_schema=core.final_score_response(gwt.GAME.rows, gwt.GAME.slug),
    answer=score_great_western_trail),)
