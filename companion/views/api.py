"""The JSON scoring API (version 1): stateless, the same rules as the pages."""

import json

from flask import Blueprint, jsonify, request

from companion.api import ENDPOINTS
from companion.api.core import ApiError, Endpoint, respond, rules_error_body
from companion.api.openapi import openapi_document
from companion.exchange.validation import RepeatedKey, unique_keys
from companion.games import GAMES
from companion.web.security import csrf

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)  # no cookies are read or set: the API is stateless and answers anyone


@bp.get("/games")
def games():
    return jsonify([{"slug": g.slug, "name": g.name, "players": {"min": g.min_players, "max": g.max_players}}
                    for g in GAMES.values()])


@bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


def _json_body() -> object:
    if not request.is_json:
        raise ApiError("Send the request as JSON with the header Content-Type: application/json.")
    try:
        return json.loads(request.get_data(), object_pairs_hook=unique_keys)
    except RepeatedKey as repeated:
        raise ApiError(f"The field {repeated.key!r} is given twice in one object of the request.") from None
    except ValueError:
        raise ApiError("The request body is not valid JSON.") from None


def _view(endpoint: Endpoint):
    def view():
        try:
            status, answer = respond(endpoint, _json_body())
        except ApiError as error:
            return jsonify(rules_error_body(error)), 400
        except RecursionError:  # a body nested deeper than the parser or the schema can follow
            return jsonify(rules_error_body(ApiError("The request body is nested too deeply."))), 400
        return jsonify(answer), status

    view.__name__ = endpoint.operation_id
    return view


for _endpoint in ENDPOINTS:
    bp.add_url_rule(_endpoint.path, view_func=_view(_endpoint), methods=["POST"])

