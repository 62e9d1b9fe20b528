"""Security headers on every answer, cookie flags, the request size limit and the join-code rate limit.

The pages are walked as the app is at run time (every GET route filled in from a sample group, then
every link found), and Chromium loads each of them to prove that the Content-Security-Policy, which
forbids inline scripts and style attributes, is not violated by any page.
"""

from __future__ import annotations

import time
from http.cookies import SimpleCookie

import jsonschema
import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient

from app import create_app
from companion import store
from companion.api.core import ERROR_SCHEMA
from tests.conftest import LiveServer, make_app, new_phone
from tests.test_isolation import Snapshot, build_sample_group, crawl, dump, routes, take_snapshot

EXPECTED_POLICY = {
    "default-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "style-src": ["'self'"],
    "script-src": ["'self'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
}


def policy_of(header: str) -> dict[str, list[str]]:
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


def assert_security_headers(response, where: str) -> None:
    headers = response.headers
    assert policy_of(headers.get("Content-Security-Policy", "")) == EXPECTED_POLICY, where
    assert "unsafe" not in headers["Content-Security-Policy"], where
    assert headers.get("X-Content-Type-Options") == "nosniff", where
    assert headers.get("Referrer-Policy") in ("same-origin", "no-referrer"), where
    assert headers.get("X-Frame-Options") == "DENY", where


@pytest.fixture(scope="module")
def headers_snapshot(tmp_path_factory) -> Snapshot:
    return take_snapshot(tmp_path_factory.mktemp("headers"), {"member": ("Header night", ("Anna", "Ben"))})


@pytest.fixture
def member_site(headers_snapshot, tmp_path):
    """An app on a copy of the sample, the member's phone, its group and what it reaches."""
    app, phones = headers_snapshot.restore(tmp_path)
    return app, phones["member"], headers_snapshot.groups["member"], headers_snapshot.sites["member"]


def test_every_answer_carries_the_security_headers(member_site):
    app, member, group, site = member_site
    stranger = app.test_client()
    answers = []
    for (method, _rule), paths in sorted(site.paths.items()):
        if method == "GET":
            answers += [(path, member.get(path)) for path in sorted(paths)]
    assert len(answers) >= 20
    with app.test_request_context():
        style = url_for("static", filename="style.css")
    answers += [
        ("a static file", member.get(style)),
        ("a 404 page", stranger.get(f"/groups/{group.group_id}")),
        ("a 405 page", member.delete("/")),
        ("a redirect after a form", member.post("/groups", data={"name": "Another"})),
        ("a refused form", member.post("/groups", data={"name": ""})),
        ("the API's 400", member.post("/api/v1/score/gold-west", json={})),
        ("the API's 404", member.get("/api/v1/nothing-here")),
    ]
    for where, response in answers:
        assert response.status_code < 500, (where, response.status_code)
        assert_security_headers(response, where)


def set_cookies(response) -> dict[str, str]:
    """Each Set-Cookie header of the response: name → the whole header."""
    found = {}
    for header in response.headers.getlist("Set-Cookie"):
        found[next(iter(SimpleCookie(header)))] = header
    return found


def flags(header: str) -> set[str]:
    return {part.strip().lower() for part in header.split(";")[1:]}


def cookies_the_site_sets(app) -> dict[str, str]:
    """Create a group, change the language, join by code: every cookie those answers set."""
    phone = app.test_client()
    found = set_cookies(phone.post("/groups", data={"name": "Cookie night"}))
    found |= set_cookies(phone.post("/language", data={"lang": "de", "next": "/"}))
    db = store.connect(app.config["DATABASE"])
    code = db.execute("SELECT join_code FROM groups").fetchone()[0]
    db.close()
    found |= set_cookies(app.test_client().post("/join", data={"code": code}))
    assert {"session", "lang"} <= set(found)
    return found


def test_cookies_are_httponly_and_samesite_lax_and_not_secure_over_plain_http(app):
    for name, header in cookies_the_site_sets(app).items():
        assert {"httponly", "samesite=lax"} <= flags(header), name
        # the usual laptop-on-the-Wi-Fi setup is plain HTTP: a Secure cookie would never come back
        assert "secure" not in flags(header), name


@pytest.mark.parametrize("how", ["config", "environment"])
def test_cookies_are_secure_when_the_site_is_served_over_https(tmp_path, monkeypatch, how):
    if how == "environment":
        monkeypatch.setenv("COMPANION_HTTPS", "1")
        app = make_app(tmp_path)
    else:
        app = make_app(tmp_path, COMPANION_HTTPS=True)
    assert app.config["SESSION_COOKIE_SECURE"] is True
    for name, header in cookies_the_site_sets(app).items():
        assert {"httponly", "samesite=lax", "secure"} <= flags(header), name


@pytest.mark.parametrize("value", ["", "0", "no", "false"])
def test_https_stays_off_unless_switched_on(tmp_path, monkeypatch, value):
    monkeypatch.setenv("COMPANION_HTTPS", value)
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(tmp_path / "db.sqlite3")})
    assert not app.config["SESSION_COOKIE_SECURE"]


def too_large(app) -> int:
    return app.config["MAX_CONTENT_LENGTH"] + 1


def test_a_request_body_over_the_limit_gets_413_as_json_under_the_api(app):
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert limit <= 1024 * 1024, "the limit should stay small: a phone sends a few hundred bytes"
    client = app.test_client()
    for rule in routes(app, "POST"):
        if not rule.rule.startswith("/api/"):
            continue
        body = b'{"players": [{"name": "' + b"x" * too_large(app) + b'"}]}'
        response = client.post(rule.rule, data=body, content_type="application/json")
        assert response.status_code == 413, rule.rule
        assert response.mimetype == "application/json", rule.rule
        jsonschema.validate(response.get_json(), ERROR_SCHEMA)


def test_a_form_over_the_limit_gets_413_and_stores_nothing(member_site):
    app, member, group, _ = member_site
    before = dump(app.config["DATABASE"])
    for path, data in ((f"/groups/{group.group_id}/players", {"name": "x" * too_large(app), "colour": "red"}),
                       ("/groups", {"name": "y" * too_large(app)})):
        response = member.post(path, data=data)
        assert response.status_code == 413, path
        assert response.mimetype == "text/html", path
    assert dump(app.config["DATABASE"]) == before


def test_a_form_sent_as_json_gets_415_and_stores_nothing(member_site):
    app, member, group, _ = member_site
    play_id = group.play_ids[0]
    before = dump(app.config["DATABASE"])
    for path, body in ((f"/plays/{play_id}/undo", {"version": 1}),
                       (f"/groups/{group.group_id}/players", {"name": "Cara", "colour": ["red"]}),
                       ("/groups", {"name": 7})):
        response = member.post(path, json=body)
        assert response.status_code == 415, path
        assert "takes a form sent from the companion" in response.text, path
    assert dump(app.config["DATABASE"]) == before


def phone_at(app: Flask, address: str) -> FlaskClient:
    """A phone with its own network address (the rate limit counts per client address)."""
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = address
    return phone


def test_wrong_join_codes_are_rate_limited_per_client(app):
    owner = app.test_client()
    owner.post("/groups", data={"name": "Locked"})
    db = store.connect(app.config["DATABASE"])
    code = db.execute("SELECT join_code FROM groups").fetchone()[0]
    wrong = "".join(reversed(code)) if code != code[::-1] else "ABCDEFGH"
    guesser = phone_at(app, "192.0.2.7")
    for _ in range(app.config["JOIN_FAILURES_ALLOWED"]):
        assert guesser.post("/join", data={"code": wrong}).status_code == 400
    # from now on even the right code is refused for this client …
    assert guesser.post("/join", data={"code": code}).status_code == 429
    assert guesser.post("/join", data={"code": wrong}).status_code == 429
    # … but not for another phone at the table
    neighbour = phone_at(app, "192.0.2.8")
    assert neighbour.post("/join", data={"code": code}).status_code == 302
    db.close()


def test_failures_older_than_the_window_do_not_count(app):
    owner = app.test_client()
    owner.post("/groups", data={"name": "Patient"})
    db = store.connect(app.config["DATABASE"])
    code = db.execute("SELECT join_code FROM groups").fetchone()[0]
    long_ago = time.time() - app.config["JOIN_FAILURE_WINDOW_SECONDS"] - 5
    db["join_failures"].insert_all([{"client": "192.0.2.9", "at": long_ago}]
                                   * (app.config["JOIN_FAILURES_ALLOWED"] * 2))
    db.close()
    phone = phone_at(app, "192.0.2.9")
    assert phone.post("/join", data={"code": code}).status_code == 302


# --- the policy in a real browser ---------------------------------------------------------------

# Chromium reports some violations (a blocked eval) only as the page's own event, not on the console.
VIOLATIONS_TO_CONSOLE = """document.addEventListener("securitypolicyviolation", event =>
    console.error(`Content Security Policy: ${event.violatedDirective} ${event.blockedURI}`));"""


@pytest.mark.browser
def test_no_page_violates_the_content_security_policy(browser, tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, SERVER_NAME=None)
    member = app.test_client()
    group = build_sample_group(app, member, "Policy night", ("Anna", "Ben", "Cara", "Dan"))
    site = crawl(app, member, group)
    # pages only: downloads (backups, exports) and JSON are no documents a policy applies to; each page
    # once (another path redirecting to a page walked, or another error page, shows nothing new)
    pages: dict[tuple[str | None, int, bool], str] = {}
    found = sorted(path for (method, _), paths in site.paths.items() if method == "GET" for path in paths)
    for path in found:
        answer = member.get(path, follow_redirects=True)
        if answer.mimetype == "text/html":
            shown = answer.request.path if answer.status_code < 400 else None
            pages.setdefault((shown, answer.status_code, bool(answer.history)), path)
    assert len(pages) >= 15
    cookie = member.get_cookie("session", domain="localhost").value
    with LiveServer(app) as server:
        context = new_phone(browser)
        try:
            context.add_cookies([{"name": "session", "value": cookie, "url": server.url}])
            context.add_init_script(VIOLATIONS_TO_CONSOLE)
            page = context.new_page()
            problems: list[str] = []
            page.on("console", lambda message: problems.append(f"{page.url}: {message.text}")
                    if "Content Security Policy" in message.text or message.text.startswith("Refused to")
                    else None)
            page.on("pageerror", lambda error: problems.append(f"{page.url}: {error}"))
            for path in pages.values():
                response = page.goto(server.url + path, wait_until="load")
                assert response is not None and response.status < 500, path
                # a script may add content after load: its next frame and task run before the next page
                page.evaluate("() => new Promise(done => requestAnimationFrame(() => setTimeout(done)))")
            assert not problems, "\n".join(problems)
        finally:
            context.close()
