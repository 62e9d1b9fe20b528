"""The scoring API's plumbing: endpoint descriptions, strict JSON validation, the error body."""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

from companion.exchange.validation import StrictValidator, json_path
from companion.games.common import RulesError
from companion.names import NAME_MAX, NameProblem, clean_name, duplicate_name


class ApiError(RulesError):
    """A request the API answers with 400 and a list of details."""

    def __init__(self, message: str, details: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.details = [{"path": path, "message": text} for path, text in details]


@dataclass(frozen=True)
class Endpoint:
    """One POST endpoint: its path under /api/v1, its schemas and the function that answers it."""

    path: str
    operation_id: str
    summary: str
    request_schema: dict
    response_schema: dict
    answer: Callable[[dict], dict]  # takes a schema-valid body; may raise RulesError


_TYPE_WORDS = {"integer": "a whole number", "string": "a string", "boolean": "true or false",
               "object": "an object", "array": "a list", "null": "null"}
# the sentence of each bound: {0} is the bound, {s} and {entries} agree with it in number
_BOUNDS = {"minimum": "must be at least {0}", "maximum": "must be at most {0}",
           "minItems": "must have at least {0} item{s}", "maxItems": "must have at most {0} item{s}",
           "minLength": "must be at least {0} character{s} long",
           "maxLength": "must be at most {0} characters long",
           "minProperties": "must have at least {0} {entries}",
           "maxProperties": "must have at most {0} {entries}"}


def _describe(error: ValidationError) -> tuple[str, str]:
    """A path and a sentence a person can act on, for one schema violation."""
    path = json_path(error.absolute_path)
    kind, limit = error.validator, error.validator_value
    if kind == "type":
        kinds = [limit] if isinstance(limit, str) else limit
        return path, "must be " + " or ".join(_TYPE_WORDS.get(k, k) for k in kinds)
    if kind in _BOUNDS:
        one = limit == 1
        return path, _BOUNDS[kind].format(limit, s="" if one else "s", entries="entry" if one else "entries")
    if kind == "required":
        # one error per missing field, but the error names the field only in its message
        missing = next((name for name in limit if repr(name) in error.message), limit[0])
        return json_path([*error.absolute_path, missing]), "is required"
    if kind == "additionalProperties":
        extra = set(error.instance) - set(error.schema.get("properties", {}))
        return json_path([*error.absolute_path, min(extra)]), "is not a known field"
    if kind == "enum":
        return path, "must be one of " + ", ".join(map(_json_word, limit))
    if kind == "const":
        return path, f"must be {_json_word(limit)}"
    if kind == "pattern":
        return path, error.schema.get("x-rule", "is not in the expected form")
    if kind == "propertyNames":
        return path, "has a key that is not allowed"
    return path, error.message


def _json_word(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def validate_body(schema: dict, body: Any) -> None:
    """Raise ApiError listing every way ``body`` breaks ``schema`` (shallowest problems first)."""
    errors = sorted(StrictValidator(schema).iter_errors(body),
                    key=lambda e: (len(e.absolute_path), json_path(e.absolute_path)))
    if not errors:
        return
    # oneOf/anyOf report the alternatives' own errors as context; the best match is clearer.
    details = [_describe(best_match(error.context) if error.context else error) for error in errors]
    path, text = details[0]
    where = f"{path} " if path else "The request "
    more = f" ({len(details) - 1} more problem{'s' if len(details) > 2 else ''} below)" if details[1:] else ""
    raise ApiError(f"{where}{text}{more}.", details)


def rules_error_body(error: RulesError) -> dict:
    """The 400 body of a refused request: what is wrong, and where."""
    details = error.details if isinstance(error, ApiError) else (
        [{"path": error.path, "message": error.message}] if error.path else [])
    return {"error": error.message, "details": details}


ERROR_SCHEMA = {"type": "object", "required": ["error", "details"], "properties": {
    "error": {"type": "string"},
    "details": {"type": "array", "items": {"type": "object", "required": ["path", "message"], "properties": {
        "path": {"type": "string"}, "message": {"type": "string"}}}}}}

# Whitespace and "any character" spelled out: Python's \s and . differ from the ECMAScript regexes
# that schema-driven clients generate from, and the two must agree on which names are valid.
_SPACE, _INK, _ANY = r"[ \t\n\r\f\v]", r"[^ \t\n\r\f\v]", r"[^\n\r\u2028\u2029]"
PLAYER_NAME = {"type": "string", "pattern": f"^{_SPACE}*{_INK}({_ANY}{{0,{NAME_MAX - 2}}}{_INK})?{_SPACE}*$",
               "x-rule": f"must be 1–{NAME_MAX} characters after trimming spaces, on one line",
               "description": f"1–{NAME_MAX} characters after trimming spaces, without control or formatting "
                              "characters (NUL, BOM, bidirectional overrides …); unique within a request, "
                              "ignoring case, spacing and invisible characters."}


def count(maximum: int = 999, minimum: int = 0, **more: object) -> dict:
    """Schema of a whole number from ``minimum`` to ``maximum``, with ``more`` (a default, a description)."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum, **more}


def final_score_response(rows: Iterable[str], slug: str) -> dict:
    rows = list(rows)
    player = {"type": "object", "required": ["name", "total", "rank", "breakdown"], "properties": {
        "name": {"type": "string"}, "total": {"type": "integer"}, "rank": {"type": "integer", "minimum": 1},
        "breakdown": {"type": "object", "required": rows, "additionalProperties": False,
                      "properties": {row: {"type": "integer"} for row in rows}}}}
    return {"type": "object", "required": ["game", "players", "winners"], "properties": {
        "game": {"const": slug}, "players": {"type": "array", "items": player},
        "winners": {"type": "array", "items": {"type": "string"}}}}


def checked_player_names(names: list[str], path: str = "players[{index}]") -> list[str]:
    """The names as kept, refusing two names of one player; ``path``: the detail path of the ``{index}``th."""
    cleaned = []
    for index, raw in enumerate(names):
        where = path.format(index=index)
        try:
            cleaned.append(clean_name(raw, where))
        except NameProblem as problem:
            raise ApiError(f"{where}: {problem.message}", [(where, str(problem.message))]) from None
    repeated = duplicate_name(cleaned)
    if repeated is not None:
        raise ApiError(f"Player names must be unique: {cleaned[repeated]!r} appears twice.",
                       [(path.format(index=repeated), "repeats an earlier player's name")])
    return cleaned


def respond(endpoint: Endpoint, body: Any) -> tuple[int, dict]:
    """Answer a parsed JSON body: ``(200, response)`` or ``(400, error body)``; never raises RulesError."""
    try:
        validate_body(endpoint.request_schema, body)
        return 200, endpoint.answer(body)
    except RulesError as error:
        return 400, rules_error_body(error)
