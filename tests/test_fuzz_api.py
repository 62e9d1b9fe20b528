"""The scoring API against its own OpenAPI document: fuzzing never finds a 5xx or an undocumented answer.

Schemathesis loads GET /api/v1/openapi.json from the app in-process, generates valid and invalid
requests for every operation the document lists, and checks each answer: no server error, and a
status code, content type and body that the document declares. A second test throws bytes that are
not JSON at every API route the app serves, and a third keeps the document and the routes in step.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import jsonschema
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from companion.api.core import ERROR_SCHEMA
from tests.conftest import make_app

# Small for the suite; ``make fuzz`` sets API_FUZZ_EXAMPLES far higher and loads the deep Hypothesis profile.
EXAMPLES_PER_OPERATION = int(os.environ.get("API_FUZZ_EXAMPLES", "60"))
NOT_JSON_EXAMPLES = 6 * settings().max_examples

# The API is stateless, so one app serves every generated case; the folder lives as long as the run.
_INSTANCE = tempfile.TemporaryDirectory(prefix="companion-api-fuzz-")
app = make_app(Path(_INSTANCE.name))

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
# Deterministic generation: the same cases on every run, so a failure in CI fails on every machine.
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES_PER_OPERATION,
    deterministic=True,
)


@schema.parametrize()
def test_every_answer_matches_the_document(case):
    # positive_data_acceptance expects every schema-valid body to be answered 2xx. Cross-field rules
    # that JSON Schema cannot express (unique player names, a settler or map key naming a player of
    # the request, at most one job market token, second group ≤ largest group …) make some
    # schema-valid bodies a legitimate 400, so that single check is left out. Every other check stays
    # on: no 5xx, invalid bodies refused, documented status codes, content types and bodies (the 400s
    # included), and 405 with an Allow header for methods the document does not list.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


def api_post_paths() -> list[str]:
    return sorted(rule.rule for rule in app.url_map.iter_rules()
                  if rule.rule.startswith("/api/") and "POST" in rule.methods)


def test_the_document_lists_every_api_route_the_app_serves():
    documented = app.test_client().get("/api/v1/openapi.json").get_json()["paths"]
    served = {rule.rule for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/")}
    assert served == set(documented), "every API route must be in the OpenAPI document, and only those"


# Bodies a careless client sends: not JSON at all, JSON with the wrong content type, broken UTF-8.
CONTENT_TYPES = ("application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data", "application/json; charset=latin-1", "")
NOT_JSON = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"{", b"[1,", b'{"players": [}', b"\xff\xfe{}", b"NaN", b"Infinity",
                     b'{"players": 1e999}', b'{"a": "\\ud800"}', b"[" * 5000 + b"]" * 5000]),
)


@settings(max_examples=NOT_JSON_EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(api_post_paths()), body=NOT_JSON, content_type=st.sampled_from(CONTENT_TYPES))
def test_bodies_that_are_not_a_request_get_the_documented_400(path, body, content_type):
    response = app.test_client().post(path, data=body, content_type=content_type or None)
    assert response.status_code in (200, 400), (path, body[:80], response.status_code)
    assert response.mimetype == "application/json"
    answer = json.loads(response.data)
    if response.status_code == 400:
        jsonschema.validate(answer, ERROR_SCHEMA)
        assert answer["error"].strip()


# Well-formed or nearly well-formed JSON that has broken parsers and validators elsewhere.
HOSTILE_JSON = {
    "deeply nested arrays": b"[" * 100_000 + b"]" * 100_000,
    "deeply nested objects": b'{"a": ' * 5_000 + b"1" + b"}" * 5_000,
    "nested just under the recursion limit": b"[" * 900 + b"]" * 900,
    "an integer with 5000 digits": b'{"players": [{"name": "A", "dollars": ' + b"9" * 5000 + b"}]}",
    "NaN": b'{"players": [{"name": "A", "dollars": NaN}, {"name": "B"}]}',
    "a number beyond float": b'{"players": [{"name": "A", "dollars": 1e999}, {"name": "B"}]}',
    "a lone surrogate in a name": b'{"players": [{"name": "\\ud800"}, {"name": "B"}]}',
    "a NUL in a name": b'{"players": [{"name": "A\\u0000"}, {"name": "B"}]}',
    "a duplicate key": b'{"players": [{"name": "A"}, {"name": "B"}], "players": 3}',
    "10000 players": b'{"players": [' + b",".join([b'{"name": "A"}'] * 10_000) + b"]}",
}


@pytest.mark.parametrize("body", HOSTILE_JSON.values(), ids=HOSTILE_JSON.keys())
@pytest.mark.parametrize("path", api_post_paths())
def test_hostile_json_is_answered_without_a_server_error(path, body):
    response = app.test_client().post(path, data=body, content_type="application/json")
    assert response.status_code in (200, 400, 413), response.status_code
    if response.status_code != 200:
        jsonschema.validate(response.get_json(), ERROR_SCHEMA)


# A field named twice in one object: Python's parser would keep the last value without a word.
@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/v1/score/great-western-trail", '{"players": [{"name": "Anna", "dollars": 23, "dollars": 2}]}',
     "dollars"),
    ("/api/v1/score/mayflower/final", '{"players": ["Anna", "Ben"], "track_vp": {"Anna": 40, "Anna": 3}}',
     "Anna"),
    ("/api/v1/score/gold-west",
     '{"players": [{"name": "Anna", "track_vp": 41, "track_vp": 4}, {"name": "B"}]}', "track_vp"),
], ids=["great-western-trail", "mayflower", "gold-west"])
def test_a_field_given_twice_is_refused_not_read_as_the_last(path, body, field):
    response = app.test_client().post(path, data=body, content_type="application/json")
    assert response.status_code == 400
    answer = response.get_json()
    jsonschema.validate(answer, ERROR_SCHEMA)
    assert answer["error"] == f"The field '{field}' is given twice in one object of the request."
