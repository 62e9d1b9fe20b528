"""The OpenAPI 3.1 document of the scoring API, built from the endpoints' own schemas."""

from functools import cache

from companion.api import ENDPOINTS
from companion.api.core import ERROR_SCHEMA
from companion.games import GAMES

GAMES_SCHEMA = {"type": "array", "items": {
    "type": "object", "required": ["slug", "name", "players"], "properties": {
        "slug": {"type": "string", "enum": list(GAMES)}, "name": {"type": "string"},
        "players": {"type": "object", "required": ["min", "max"],
                    "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}}}}


def _answer(description: str, schema: dict) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_BAD_REQUEST = _answer("The request is not valid: what is wrong, and where.",
                       {"$ref": "#/components/schemas/Error"})


@cache
def openapi_document() -> dict:
    """The whole document; built once, the endpoints do not change while the site runs."""
    paths: dict = {
        "/api/v1/games": {"get": {"operationId": "listGames",
                                  "summary": "The games the API scores, with their player counts.",
                                  "responses": {"200": _answer("The games.", GAMES_SCHEMA)}}},
        "/api/v1/openapi.json": {"get": {
            "operationId": "openapiDocument", "summary": "This document.",
            "responses": {"200": _answer("The OpenAPI document.", {"type": "object"})}}}}
    for endpoint in ENDPOINTS:
        paths["/api/v1" + endpoint.path] = {"post": {
            "operationId": endpoint.operation_id, "summary": endpoint.summary,
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": endpoint.request_schema}}},
            "responses": {"200": _answer("The scores.", endpoint.response_schema), "400": _BAD_REQUEST,
                          "413": _BAD_REQUEST}}}
    return {"openapi": "3.1.0",
            "info": {"title": "Game-Night Companion scoring API", "version": "1",
                     "description": "Stateless scoring for Carcassonne – Mayflower, Great Western Trail and "
                                    "Gold West. Numbers are whole numbers; unknown fields are refused."},
            "paths": paths, "components": {"schemas": {"Error": ERROR_SCHEMA}}}
