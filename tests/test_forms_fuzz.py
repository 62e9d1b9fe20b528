"""Random input in every form of the site: never a server error, and a refused form stores nothing.

Each POST route the app serves (walked from ``app.url_map`` at run time; the JSON API has its own
fuzz test) gets a joined phone's requests built from the real form on its page, then mangled:
fields missing, extra fields, random strings and numbers, huge values, bodies that are not a form.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from flask import Flask
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import make_app
from tests.test_isolation import (
    HtmlForm,
    SiteMap,
    Snapshot,
    cookie_domain,
    copy_database,
    dump,
    routes,
    take_snapshot,
)

EXAMPLES_PER_ROUTE = settings().max_examples  # the profile's budget: ``make fuzz`` searches deeper
# The one table a refused request may change: the join-code rate limit remembers wrong codes.
REFUSAL_MEMORY = {"/join": "join_failures"}


def _post_routes() -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        app = make_app(Path(folder))
        return [rule.rule for rule in routes(app, "POST") if not rule.rule.startswith("/api/")]


# Collected when the suite runs, so every form added to the app is fuzzed without editing this file.
POST_ROUTES = _post_routes()

EDGE_VALUES = ("", " ", "0", "-0", "-1", "00000000001", "1.5", "1e9", "1e999", "NaN", "inf", "-inf", "None",
               "null", "true", "[]", "{}", "\x00", "a\x00b", "\ufeff", "\ud7ff", "é", "👍🏽", "𝕏" * 50,
               "<script>alert(1)</script>", "' OR 1=1 --", "%s%n", "../../etc/passwd", "\r\n\r\n",
               "²", "١٢", "Ⅻ", "٣", str(2**63), str(-(2**63) - 1), "9" * 4301)


def field_value(choices: list[str], known: list[str]) -> st.SearchStrategy[str]:
    """A value for a field: one the page offers, one that means something in the sample, or junk."""
    return st.one_of(
        st.sampled_from(choices or [""]),
        st.sampled_from(known),
        st.text(max_size=40),
        st.integers(-(10**30), 10**30).map(str),
        st.sampled_from(EDGE_VALUES),
        # long text up to past the request size limit (that must be a 413, nothing else)
        st.integers(1, 300_000).map(lambda n: "9" * n),
    )


@st.composite
def form_bodies(draw, form: HtmlForm | None, known: list[str]) -> dict:
    """Keyword arguments for ``client.post``: the page's form mangled, or a body that is not a form."""
    shape = draw(st.sampled_from(["form"] * 6 + ["raw", "json", "multipart"]))
    if shape == "raw":
        return {"data": draw(st.binary(max_size=500)), "content_type": "application/x-www-form-urlencoded"}
    if shape == "json":
        return {"json": draw(st.dictionaries(st.text(max_size=10), st.integers() | st.text(max_size=10),
                                             max_size=4))}
    if shape == "multipart":
        return {"data": draw(st.binary(max_size=500)), "content_type": "multipart/form-data; boundary=x"}
    data: dict[str, list[str]] = {}
    fields = form.fields if form else {}
    names = sorted({*fields, *(form.options if form else {})})
    for name in names:
        choices = sorted({*fields.get(name, []), *(form.options.get(name, []) if form else [])})
        what = draw(st.sampled_from(["keep", "keep", "keep", "drop", "random", "two values"]))
        if what == "keep" and name in fields:
            data[name] = fields[name]
        elif what == "random":
            data[name] = [draw(field_value(choices, known))]
        elif what == "two values":
            data[name] = [draw(field_value(choices, known)), draw(field_value(choices, known))]
    extra = draw(st.dictionaries(st.text(min_size=1, max_size=20), field_value([], known), max_size=3))
    for name, value in extra.items():
        data.setdefault(name, [value])
    return {"data": data}


@pytest.fixture(scope="module")
def fuzz_snapshot(tmp_path_factory) -> Snapshot:
    players = ("Anna", "Ben", "Cara", "Dan")
    return take_snapshot(tmp_path_factory.mktemp("fuzz"), {"member": ("Fuzz night", players)})


@pytest.mark.parametrize("route", POST_ROUTES)
def test_random_input_never_breaks_a_form(fuzz_snapshot, tmp_path, route):
    app, _ = fuzz_snapshot.restore(tmp_path)
    group, site = fuzz_snapshot.groups["member"], fuzz_snapshot.sites["member"]
    rule = next(rule for rule in routes(app, "POST") if rule.rule == route)
    paths = site.of(rule, "POST")
    assert paths, f"no way to reach {route} from the sample group's pages"
    database = app.config["DATABASE"]
    refusal_table = REFUSAL_MEMORY.get(route)
    # values that mean something in the sample: small numbers, ids of its players and plays, its code
    known = sorted({*map(str, range(6)), group.join_code, *map(str, group.player_ids),
                    *map(str, group.play_ids)})
    pristine = dump(fuzz_snapshot.database)

    @settings(max_examples=EXAMPLES_PER_ROUTE, derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def send_random_form(data):
        copy_database(fuzz_snapshot.database, database)  # every example starts from the same group
        phone = app.test_client()
        phone.set_cookie("session", fuzz_snapshot.cookies["member"], domain=cookie_domain(app))
        path = data.draw(st.sampled_from(paths), label="path")
        body = data.draw(form_bodies(site.forms.get(path), known), label="body")
        response = phone.post(path, **body)
        event(f"answered {response.status_code}")  # shown by --hypothesis-show-statistics
        assert response.status_code < 500, (path, response.status_code)
        if 300 <= response.status_code < 400:
            # accepted: whatever it stored must still display
            shown = phone.get(response.headers["Location"])
            assert shown.status_code < 500, (path, response.headers["Location"], shown.status_code)
            return
        # refused, or re-rendered with errors (a POST that is answered without a redirect stores nothing)
        after, before = dump(database), dict(pristine)
        if refusal_table:
            remembered = len(after.pop(refusal_table)) - len(before.pop(refusal_table))
            assert remembered in (0, 1)
        assert after == before, (path, response.status_code, "a refused form changed the database")

    send_random_form()


# Values that have broken form handling elsewhere: past Python's int() digit limit, past the float
# range WTForms' NumberRange converts to, digits that str.isdigit() accepts and int() refuses, a NUL.
NASTY_VALUES = ("9" * 4301, "9" * 309, "²", "١٢", "a\x00b", "-" + "9" * 20)
# The request id the site's script gives every form: a refused form must leave it unused.
SENT_ID = "nasty-values-00000001"


# URL values that say whom a form is for, not what it changes
WHO = {"seat", "player_id"}


def field_shapes(names) -> dict[str, str]:
    """One field of each kind, by its kind: ``p2-wanted`` stands for every player's ``wanted``."""
    shapes: dict[str, str] = {}
    for name in sorted(names):
        shapes.setdefault(re.sub(r"\d+", "#", name), name)
    return shapes


@pytest.mark.parametrize("route", POST_ROUTES)
def test_every_field_refuses_nasty_values_cleanly(fuzz_snapshot, tmp_path, route):
    """Table-driven companion of the random test: each field, one nasty value at a time."""
    app, _ = fuzz_snapshot.restore(tmp_path)
    site = fuzz_snapshot.sites["member"]
    rule = next(rule for rule in routes(app, "POST") if rule.rule == route)
    database = app.config["DATABASE"]
    pristine = dump(fuzz_snapshot.database)
    refusal_table = REFUSAL_MEMORY.get(route)
    phone = app.test_client()
    urls = app.url_map.bind(app.config["SERVER_NAME"])
    tried = []
    for path in site.of(rule, "POST"):
        form = site.forms.get(path)
        if form is None:
            continue
        shapes = field_shapes({*form.fields, *form.options})
        # another player's copy of a form (a seat's card, a player's page) is the same form
        what = sorted((name, value) for name, value in urls.match(path, method="POST")[1].items()
                      if name not in WHO)
        if (what, sorted(shapes)) in tried:
            continue
        tried.append((what, sorted(shapes)))
        for name in sorted(shapes.values()):
            for value in NASTY_VALUES:
                phone.set_cookie("session", fuzz_snapshot.cookies["member"], domain=cookie_domain(app))
                response = phone.post(path, data={**form.fields, "request_id": [SENT_ID], name: [value]})
                where = (path, name, value[:12], response.status_code)
                assert response.status_code < 500, where
                if 300 <= response.status_code < 400:
                    assert phone.get(response.headers["Location"]).status_code < 500, where
                    copy_database(fuzz_snapshot.database, database)
                    continue
                after, before = dump(database), dict(pristine)
                if refusal_table:
                    after.pop(refusal_table), before.pop(refusal_table)
                assert after == before, where


# What scripts and paging add to the pages' query strings (the crawl reads only links and forms).
SCRIPT_QUERIES = {"live.state": {"since"}, "plays.log": {"before"}, "history.index": {"page"}}
# A GET that a script sends a POST form's fields to, as they stand: its endpoint → the form's endpoint
PREVIEWS = {"mayflower.preview": "mayflower.complete"}
QUERY_VALUES = (*NASTY_VALUES, "", "  ", "-1", "1e3", "0x10", "１２", "9" * 17, "2024-02-30", "\ufeff1")


def query_parameters(app: Flask, site: SiteMap) -> dict[str, dict[str, set[str]]]:
    """GET path → each parameter its page's links, forms and scripts send → the values they send."""
    urls = app.url_map.bind(app.config["SERVER_NAME"])
    sent = SiteMap({}, {}, {})
    for path, query in site.queries.items():
        sent.add_query(path, query.items())
    for rule in routes(app, "GET"):
        for path in site.of(rule, "GET"):
            sent.add_query(path, ((name, ()) for name in SCRIPT_QUERIES.get(rule.endpoint, ())))
            if rule.endpoint in PREVIEWS:
                form = site.forms.get(urls.build(PREVIEWS[rule.endpoint], urls.match(path)[1]))
                sent.add_query(path, (*form.fields.items(), *form.options.items()) if form else ())
    queries = {path: query for path, query in sent.queries.items() if query}
    assert any(path.endswith("/preview") for path in queries)
    assert {"since", "before", "page", "players", "until"} <= {name for q in queries.values() for name in q}
    return queries


def test_every_query_parameter_refuses_nasty_values_cleanly(fuzz_snapshot, tmp_path):
    """The GET side: each parameter a page's links, forms and scripts send, one odd value at a time."""
    app, phones = fuzz_snapshot.restore(tmp_path)
    phone, urls = phones["member"], app.url_map.bind(app.config["SERVER_NAME"])
    tried = set()
    for path, query in sorted(query_parameters(app, fuzz_snapshot.sites["member"]).items()):
        rule, _ = urls.match(path, return_rule=True)
        for name in sorted(field_shapes(query).values()):
            if (rule.rule, name) in tried:
                continue
            tried.add((rule.rule, name))
            for value in QUERY_VALUES:
                response = phone.get(path, query_string={name: value})
                assert response.status_code < 500, (path, name, value[:12], response.status_code)


def test_random_query_strings_never_break_a_page(fuzz_snapshot, tmp_path):
    """Several parameters at once: the pages' own values, ones that mean something in the sample, junk."""
    app, phones = fuzz_snapshot.restore(tmp_path)
    group, phone = fuzz_snapshot.groups["member"], phones["member"]
    sent = query_parameters(app, fuzz_snapshot.sites["member"])
    known = sorted({*map(str, range(6)), *map(str, group.player_ids), *map(str, group.play_ids)})
    paths = sorted(sent)
    urls = app.url_map.bind(app.config["SERVER_NAME"])
    rules = {urls.match(path, return_rule=True)[0].rule for path in paths}

    @settings(max_examples=EXAMPLES_PER_ROUTE * len(rules), derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def send_random_query(data):
        path = data.draw(st.sampled_from(paths), label="path")
        query = {}
        for name, values in sorted(sent[path].items()):
            if data.draw(st.booleans()):
                query[name] = data.draw(st.lists(field_value(sorted(values), known), min_size=1, max_size=2))
        response = phone.get(path, query_string=query)
        assert response.status_code < 500, (path, query, response.status_code)

    send_random_query()
