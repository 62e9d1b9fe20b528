"""With CSRF on, as in production: every form of the site, as the app is at run time, needs its token.

Every POST route outside the JSON API is sent its own page's form without the token (and with
another phone's token): refused with 400, nothing stored. The same form with the token is not refused
for that reason, which shows the token is what matters. The JSON API under /api/v1 is exempt on
purpose: it is stateless, reads no cookie and sets none, so a forged request from another site
gains nothing a direct request would not.
"""

from __future__ import annotations

import pytest

from tests.test_isolation import Snapshot, cookie_domain, copy_database, dump, routes, take_snapshot

CSRF_REFUSAL = "came from another site"  # the sentence of the error page for a missing or bad token


def is_token(name: str) -> bool:
    """The token field: ``csrf_token``, or ``<prefix>-csrf_token`` in a form with a prefix."""
    return name == "csrf_token" or name.endswith("-csrf_token")


@pytest.fixture(scope="module")
def csrf_snapshot(tmp_path_factory) -> Snapshot:
    # built through the pages with their tokens: that the sample exists shows tokens are accepted
    group = ("Token night", ("Anna", "Ben", "Cara"))
    return take_snapshot(tmp_path_factory.mktemp("csrf"), {"member": group}, WTF_CSRF_ENABLED=True)


@pytest.fixture
def csrf_site(csrf_snapshot, tmp_path):
    """An app with CSRF on, the member's phone and what it reaches."""
    app, phones = csrf_snapshot.restore(tmp_path, WTF_CSRF_ENABLED=True)
    return app, phones["member"], csrf_snapshot.sites["member"]


def form_routes(app):
    return [rule for rule in routes(app, "POST") if not rule.rule.startswith("/api/")]


def test_every_form_without_its_token_is_refused_and_stores_nothing(csrf_site):
    csrf_app, member, site = csrf_site
    other_phone = csrf_app.test_client()
    other_phone.get("/")
    with other_phone.session_transaction() as other_session:
        foreign_token = other_session["csrf_token"]
    database = csrf_app.config["DATABASE"]
    before = dump(database)
    for rule in form_routes(csrf_app):
        paths = site.of(rule, "POST")
        assert paths, f"no way to reach {rule.rule} from the sample group's pages"
        for path in paths:
            form = site.forms.get(path)
            data = {name: values for name, values in (form.fields if form else {}).items()
                    if not is_token(name)}
            for token in ([], ["not a token"], [foreign_token]):
                refused = member.post(path, data={**data, "csrf_token": token} if token else data)
                assert refused.status_code == 400, (path, token, refused.status_code)
                assert CSRF_REFUSAL in refused.text, (path, token)
    assert dump(database) == before


def test_the_token_is_what_makes_the_difference(csrf_snapshot, csrf_site):
    csrf_app, _, site = csrf_site
    database = csrf_app.config["DATABASE"]
    for rule in form_routes(csrf_app):
        for path in site.of(rule, "POST"):
            form = site.forms.get(path)
            if form is None or not any(map(is_token, form.fields)):
                continue
            copy_database(csrf_snapshot.database, database)
            phone = csrf_app.test_client()
            phone.set_cookie("session", csrf_snapshot.cookies["member"], domain=cookie_domain(csrf_app))
            accepted = phone.post(path, data=form.fields)
            assert CSRF_REFUSAL not in accepted.text, path
            assert accepted.status_code < 500, (path, accepted.status_code)


def test_every_page_form_carries_a_token(csrf_site):
    _, _, site = csrf_site
    assert site.forms
    for action, form in site.forms.items():
        tokens = [values[0] for name, values in form.fields.items() if is_token(name)]
        assert tokens and all(tokens), f"the form posting to {action} has no CSRF token"


def api_post_paths(app) -> list[str]:
    return [rule.rule for rule in routes(app, "POST") if rule.rule.startswith("/api/")]


def test_the_json_api_is_exempt_stateless_and_reads_no_cookie(csrf_site):
    csrf_app, member, _ = csrf_site
    stranger = csrf_app.test_client()
    paths = api_post_paths(csrf_app)
    assert paths
    with member.session_transaction() as session:
        member_session = dict(session)
    for path in paths:
        # no token, no cookie: the API answers on the merits of the body (here: what is missing)
        answered = stranger.post(path, json={})
        assert answered.status_code == 400, path
        assert "csrf" not in answered.get_json()["error"].lower(), path
        assert answered.get_json()["details"], path
        assert "Set-Cookie" not in answered.headers, path
        assert "Cookie" not in answered.headers.get("Vary", ""), path
        # a joined phone's cookie changes neither the answer nor what the cookie holds (Flask may
        # re-send a long-lived session cookie to extend it; its content stays the same)
        with_cookie = member.post(path, json={})
        assert with_cookie.get_json() == answered.get_json(), path
        with member.session_transaction() as session:
            assert dict(session) == member_session, path
    scored = stranger.post("/api/v1/score/gold-west", json={"players": [{"name": "Anna"}, {"name": "Ben"}]})
    assert scored.status_code == 200
    assert [p["name"] for p in scored.get_json()["players"]] == ["Anna", "Ben"]
