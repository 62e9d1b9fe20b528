"""The fast path for an entry (``POST /plays/<id>/adjust``, a running score adjusted), before Flask runs.

At a table every phone sends an entry after each turn, and each entry is a write, so the framework's
per-request work (session, language, the form classes, the request hooks) costs more than the write
itself. This WSGI middleware stores a plain, valid entry with the same store and
rules functions as the view (``views.plays.adjust``) and answers the same redirect; everything else
falls through to the views, with the request body given back to them unread:

- Only a form with exactly the adjust form's fields, each once, in the plainest spelling: a seat
  number, points of at most three digits (an optional minus), a note of at most 80 characters after
  its spaces are folded. Any other spelling (a plus sign, the typographic minus, blanks) is left to
  the form, which knows the messages.
- The phone's cookie is verified (its signature, and remembered for a minute) and its CSRF token
  checked as Flask-WTF checks it, including the referrer over HTTPS. A token that fails falls through:
  the views answer 400.
- A request id is noted with the entry as ``claim_request_id`` does; one seen before stores nothing
  and falls through to its "already saved" answer.
- An entry that adds points needs no look at the table (``games.table.accepted_on_every_table``):
  it is stored in one statement that also asks everything the views ask first
  (``store.SeatOfMember``): the play going on and outside the trash, the phone a member of its group,
  the seat one of its seats: the entry's one call into SQLite before its answer. An entry for a
  finished play, one in the trash, a phone not in the group, a seat the play does not have store
  nothing and fall through (404, the result page, or the form's message).
- An entry that takes points away is checked against the table, as the view stores it
  (``TableCache.append``), after the play, its seats and the membership are read in one query
  (``active_play_of_member``). One the rules or the store refuse has stored nothing and falls
  through: the view refuses it again and shows why (409).
"""

from __future__ import annotations

import hmac
import io
import re
import time
from collections.abc import Callable, Iterable
from urllib.parse import unquote_plus

from flask import Flask
from flask_wtf.csrf import same_origin
from itsdangerous import BadData, URLSafeTimedSerializer
from werkzeug.utils import redirect
from werkzeug.wsgi import get_host

from companion import store
from companion.forms import collapse_spaces
from companion.games.table import ADJUST, adds_points
from companion.store.plays import active_play_of_member
from companion.views.common import REQUEST_ID, play_setup
from companion.views.tables import app_tables
from companion.web.database import connections_of
from companion.web.lru import Lru
from companion.web.security import add_security_headers, session_in_cookie, tokens_in

_ADJUST = re.compile(r"/plays/[1-9][0-9]{0,15}/adjust")
_SEAT = re.compile(r"[0-9]{1,2}")
_POINTS = re.compile(r"-?[0-9]{1,3}")  # within the form's range, -999 to 999
_FIELDS = {"seat", "points", "note", "csrf_token", "request_id"}
_REQUIRED = {"seat", "points"}
NOTE_MAX = 80  # AdjustForm's note: Length(max=80)
# what the app's routing reads of a request to find its view and build an address (bind_to_environ)
_ROUTING = ("wsgi.url_scheme", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "SCRIPT_NAME", "PATH_INFO",
            "QUERY_STRING", "HTTP_CONNECTION", "HTTP_UPGRADE")
BODY_MAX = 4096  # far above a plain entry; a larger body goes to the views
VERIFIED_SECONDS = 60  # a verified cookie or token is checked again after this


class _FallThrough(Exception):
    """Not a plain entry: the views answer it."""


class EntryPath:
    """WSGI middleware in front of the app: see the module's description."""

    def __init__(self, app: Flask, wsgi_app: Callable, size: int = 512) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.verified = Lru(size)  # (cookie header, token) → (session, when verified)
        self.routes = Lru(size)  # address → (play id, where the answer leads)
        self.redirects = Lru(size)  # location → (status, headers, body)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if (environ.get("REQUEST_METHOD") != "POST" or not _ADJUST.fullmatch(environ.get("PATH_INFO", ""))
                or not self.app.config.get("FAST_PATH", True)):
            return self.wsgi_app(environ, start_response)
        body = _form_body(environ)
        if body is None:
            return self.wsgi_app(environ, start_response)
        # no app context: everything here names the app it uses, which saves a tenth of an entry's time
        try:
            location = self._store(environ, body)
        except Exception:  # nothing was stored: the views answer, and meet any error themselves
            connections_of(self.app).end_request()  # a transaction left open holds no lock meanwhile
            location = None
        if location is not None:
            status, headers, answer = self._redirect(location)
            start_response(status, list(headers))
            return [answer]
        environ["wsgi.input"] = io.BytesIO(body)
        return self.wsgi_app(environ, start_response)

    def _store(self, environ: dict, body: bytes) -> str:
        """Store the entry and return where the view redirects; an exception (nothing stored) if not plain."""
        if self.app.config.get("TRUSTED_HOSTS"):
            raise _FallThrough  # the views check the host against them
        play_id, location = self._route(environ)
        fields = _fields(body)
        session = self._session(environ, fields.get("csrf_token"))
        tokens = tokens_in(session)
        payload = _payload(fields)
        request_id = fields.get("request_id")
        if request_id is not None and not REQUEST_ID.fullmatch(request_id):
            raise _FallThrough
        db = connections_of(self.app).get()
        tables = app_tables(self.app)
        pending = store.PendingRequest(request_id, None, play_id) if request_id is not None else None
        with store.requests_once(pending):
            if adds_points(ADJUST, payload):  # accepted on every table: no look at it before the write
                member = store.SeatOfMember(tokens, payload["seat"])
                if store.append_to_active_play(db, play_id, ADJUST, payload, member) is None:
                    raise _FallThrough
                tables.stored_unseen(db, play_id)
            else:
                play = active_play_of_member(db, play_id, tokens)
                if play is None:
                    raise _FallThrough
                tables.append(db, play, play_setup(play), ADJUST, payload)
        return location

    def _route(self, environ: dict) -> tuple[int, str]:
        """The play id, if the app's routing takes the address to the adjust view, and where it redirects.

        The routing's answer depends only on the parts of the address kept in the key, so it is kept.
        """
        key = tuple(environ.get(name) for name in _ROUTING)
        known = self.routes.get(key)
        if known is None:
            adapter = self.app.url_map.bind_to_environ(environ, server_name=self.app.config["SERVER_NAME"])
            endpoint, args = adapter.match(method="POST")
            if endpoint != "plays.adjust":
                raise _FallThrough
            play_id = args["play_id"]
            known = (play_id, adapter.build("plays.show", {"play_id": play_id}) + "#scoreboard")
            self.routes.put(key, known)
        return known

    def _redirect(self, location: str) -> tuple[str, list[tuple[str, str]], bytes]:
        """The view's redirect to ``location``, made once by the app's response class and then kept."""
        kept = self.redirects.get(location)
        if kept is None:
            with self.app.app_context():  # once per address: the headers read the app's settings
                response = add_security_headers(redirect(location, Response=self.app.response_class))
            response.vary.add("Cookie")  # the view read the session
            kept = (response.status, response.headers.to_wsgi_list(), response.get_data())
            self.redirects.put(location, kept)
        return kept

    def _session(self, environ: dict, csrf_token: str | None) -> dict:
        """The phone's session, its signature and the form's CSRF token verified as the views verify them."""
        config = self.app.config
        csrf = config.get("WTF_CSRF_ENABLED", True)
        if csrf and environ.get("wsgi.url_scheme") == "https" and config.get("WTF_CSRF_SSL_STRICT", True):
            referrer = environ.get("HTTP_REFERER")
            if not referrer or not same_origin(referrer, f"https://{get_host(environ)}/"):
                raise _FallThrough
        cookie_header = environ.get("HTTP_COOKIE", "")
        key = (cookie_header, csrf_token if csrf else None)
        known = self.verified.get(key)
        if known is not None and time.monotonic() - known[1] < VERIFIED_SECONDS:
            return known[0]
        session = session_in_cookie(self.app, cookie_header)
        if session is None:
            raise _FallThrough
        if csrf:
            self._check_csrf(session, csrf_token)
        if config.get("WTF_CSRF_TIME_LIMIT", 3600) is None:  # a token that cannot expire may be kept
            self.verified.put(key, (session, time.monotonic()))
        return session

    def _check_csrf(self, session: dict, csrf_token: str | None) -> None:
        """Flask-WTF's check (``flask_wtf.csrf.validate_csrf``) of the token against the session's secret."""
        config = self.app.config
        field = config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
        secret = session.get(field)
        if not csrf_token or not isinstance(secret, str):
            raise _FallThrough
        serializer = URLSafeTimedSerializer(config.get("WTF_CSRF_SECRET_KEY") or self.app.secret_key,
                                            salt="wtf-csrf-token")
        try:
            token = serializer.loads(csrf_token, max_age=config.get("WTF_CSRF_TIME_LIMIT", 3600))
        except BadData:
            raise _FallThrough from None
        if not isinstance(token, str) or not hmac.compare_digest(secret, token):
            raise _FallThrough


def _form_body(environ: dict) -> bytes | None:
    """The body of a small url-encoded form, read whole; None for anything else (left unread)."""
    if environ.get("CONTENT_TYPE", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        return None
    try:
        length = int(environ.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None
    if not 0 < length <= BODY_MAX:
        return None
    body = environ["wsgi.input"].read(length)
    return body if len(body) == length else None


def _fields(body: bytes) -> dict[str, str]:
    """The form's fields: each known one at most once, the required ones present.

    As ``parse_qsl`` with strict parsing reads them, for a fifth of its time: a name is never escaped
    in a plain entry, and only a note or a token is.
    """
    fields = {}
    try:
        for pair in body.decode("ascii").split("&"):
            name, equals, value = pair.partition("=")
            if not equals or name not in _FIELDS or name in fields:
                raise _FallThrough
            fields[name] = unquote_plus(value, errors="strict") if "%" in value or "+" in value else value
    except UnicodeDecodeError:
        raise _FallThrough from None
    if not fields.keys() >= _REQUIRED:
        raise _FallThrough
    return fields


def _payload(fields: dict[str, str]) -> dict:
    """The event the view would store, for a plain spelling of an entry the form accepts; whether
    its seat is one of the play's is asked with the write."""
    seat, points = fields["seat"], fields["points"]
    note = collapse_spaces(fields.get("note", "")) or ""
    if not (_SEAT.fullmatch(seat) and _POINTS.fullmatch(points) and len(note) <= NOTE_MAX):
        raise _FallThrough
    return {"seat": int(seat), "points": int(points), "note": note}


def init_app(app: Flask) -> None:
    app.wsgi_app = EntryPath(app, app.wsgi_app)
