"""The Great Western Trail final-score endpoint: ``POST /score/great-western-trail``."""

from __future__ import annotations

from companion.api.core import (
    PLAYER_NAME,
    ApiError,
    Endpoint,
    checked_player_names,
    count,
    final_score_response,
)
from companion.games import great_western_trail as gwt

MAX_OBJECTIVE_CARDS = 30  # start cards plus every objective card of the box, with room to spare
MAX_PIECES = 95  # teepee pairs, hazard tiles, certificates, stations and buildings on the table
MAX_STATION_MASTERS = gwt.STATION_MASTERS_IN_PLAY  # the 2nd edition draws 5 of its 9 tiles

OBJECTIVE_SCHEMA = {
    "type": "object",
    "required": ["vp", "fulfilled"],
    "additionalProperties": False,
    "properties": {
        "vp": count(9),
        "penalty": {**count(9), "default": 0},
        "fulfilled": {"type": "boolean"},
    },
}

WORKERS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "description": "Workers in each row, the printed first one included.",
    "properties": {row: {**count(gwt.WORKER_ROW_MAX, gwt.WORKER_ROW_MIN), "default": gwt.WORKER_ROW_MIN}
                   for row in gwt.WORKER_ROWS},
}

_VP_FIELDS = ("dollars", "buildings_vp", "stations_vp", "hazards_vp", "cattle_vp")
_PIECE_FIELDS = ("teepee_pairs", "hazards", "certificates", "stations", "buildings")
_FLAG_FIELDS = ("disc_cleared", "job_market_token")

PLAYER_SCHEMA = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": PLAYER_NAME,
        **{name: {**count(), "default": 0} for name in _VP_FIELDS},
        "cities_vp": {**count(999, -100), "default": 0},
        "objectives": {"type": "array", "maxItems": MAX_OBJECTIVE_CARDS, "items": OBJECTIVE_SCHEMA},
        "station_masters": {
            "type": "array",
            "maxItems": MAX_STATION_MASTERS,
            "items": {"type": "string", "enum": [master.key for master in gwt.STATION_MASTERS]},
            "description": "Keys of the station-master tiles the player holds. 5 tiles are in play (the 1st "
                           "edition's five; 5 of the 2nd edition's 9, the two none copies included), so "
                           "all players together hold at most 5, each key once, none at most twice.",
        },
        "workers": WORKERS_SCHEMA,
        **{name: {**count(MAX_PIECES), "default": 0} for name in _PIECE_FIELDS},
        **{name: {"type": "boolean", "default": False} for name in _FLAG_FIELDS},
    },
}

REQUEST_SCHEMA = {
    "type": "object",
    "required": ["players"],
    "additionalProperties": False,
    "properties": {
        "edition": {"type": "integer", "enum": list(gwt.EDITIONS), "default": gwt.DEFAULT_EDITION},
        "players": {"type": "array", "minItems": 1, "maxItems": gwt.GAME.max_players,
                    "items": PLAYER_SCHEMA},
    },
}


def tally_from_player(player: dict, name: str) -> gwt.Tally:
    """A schema-valid ``players[]`` entry as the rules' tally, missing fields at their defaults."""
    rows = player.get("workers", {})
    return gwt.Tally(
        name=name,
        cities_vp=player.get("cities_vp", 0),
        objectives=tuple(gwt.Objective(vp=card["vp"], penalty=card.get("penalty", 0),
                                       fulfilled=card["fulfilled"])
                         for card in player.get("objectives", ())),
        station_masters=tuple(player.get("station_masters", ())),
        workers=gwt.Workers(**{row: rows.get(row, gwt.WORKER_ROW_MIN) for row in gwt.WORKER_ROWS}),
        **{field: player.get(field, 0) for field in (*_VP_FIELDS, *_PIECE_FIELDS)},
        **{field: player.get(field, False) for field in _FLAG_FIELDS},
    )


def score_great_western_trail(body: dict) -> dict:
    """Rank the players of a schema-valid request; cross-field rules break as ApiError."""
    edition = body.get("edition", gwt.DEFAULT_EDITION)
    players = body["players"]
    names = checked_player_names([player["name"] for player in players], "players[{index}].name")
    tallies = [tally_from_player(player, name) for player, name in zip(players, names, strict=True)]
    problems = gwt.tally_problems(edition, tallies)
    if problems:
        sentence = problems[0][1]
        if len(problems) > 1:
            more = len(problems) - 1
            sentence += f" ({more} more problem{'s' if more > 1 else ''} below.)"
        raise ApiError(sentence, problems)
    return gwt.final_result(edition, tallies).to_json()


ENDPOINTS = (
    Endpoint(
        path="/score/great-western-trail",
        operation_id="scoreGreatWesternTrail",
        summary="Final score of a Great Western Trail play (1st or 2nd edition)",
        request_schema=REQUEST_SCHEMA,
        response_schema=final_score_response(gwt.GAME.rows, gwt.GAME.slug),
        answer=score_great_western_trail,
    ),
)
