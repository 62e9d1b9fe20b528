"""The fast path for what phones ask most: the play page and the live poll, answered before Flask runs.

Every phone at the table polls ``/plays/<id>/state.json`` every couple of seconds and opens the play
page after every entry. Both only change when the play does, so this WSGI middleware answers them
from one indexed query, without the framework's per-request work (session, language, CSRF, views):

- The phone's cookie is verified once (its signature) and then remembered; its membership tokens are
  checked against the database on every request, in the same query that reads the play's version
  stamp. A removed phone, a deleted group or a cookie without a membership falls through to the views,
  which answer 404 as before.
- An unchanged poll (``since`` = the play's version) is answered at once, with the bytes the view
  would send.
- The play page is kept as the views answered it (compressed if the phone accepts gzip), per phone
  (the whole Cookie header: the page carries the phone's own CSRF token and language), per address
  and per version stamp: the play's version and everything else the page shows that can change
  without it (group name, seats and players, the game's name). A page with a message, or an answer
  that sets a cookie, is never kept.
- Every answer is checked first, so nothing stale is served: a change of the stamp makes a new key.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from http.cookies import CookieError, SimpleCookie

from flask import Flask
from itsdangerous import BadSignature

from companion.database import connections_of
from companion.security import LAST_SEEN_EVERY_SECONDS, SECURITY_HEADERS, tokens_in

_PLAY = re.compile(r"/plays/([1-9][0-9]{0,15})(/state\.json)?")
_SINCE = re.compile(r"since=([0-9]{1,16})")
# what else a kept page depends on: its address as the phone wrote it, its language and encoding
_PAGE_HEADERS = ("QUERY_STRING", "HTTP_HOST", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO",
                 "HTTP_ACCEPT_LANGUAGE", "HTTP_ACCEPT_ENCODING")
VERIFIED_COOKIE_SECONDS = 60  # a verified cookie is checked again (its signature and age) after this

# The version stamp: the play and everything else its page shows, for a phone with one of these
# memberships of the play's group (no row: not a member, or no such play).
_STAMP = """
SELECT p.version, p.status, p.deleted_at, g.name, m.last_seen,
       (SELECT group_concat(s.seat || ':' || s.player_id || ':' || pl.name || ':' || s.colour, '|')
        FROM seats s JOIN players pl ON pl.id = s.player_id WHERE s.play_id = p.id),
       (SELECT gg.name FROM group_games gg WHERE 'custom-' || gg.id = p.game)
FROM plays p JOIN groups g ON g.id = p.group_id AND g.deleted_at IS NULL
JOIN memberships m ON m.group_id = p.group_id AND m.token IN ({marks})
WHERE p.id = ? LIMIT 1
"""


class _Lru:
    """A small thread-safe LRU map."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key, item) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


class FastPath:
    """WSGI middleware in front of the app: see the module's description."""

    def __init__(self, app: Flask, wsgi_app: Callable, size: int = 512) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.pages = _Lru(size)
        self.cookies = _Lru(size)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        match = _PLAY.fullmatch(environ.get("PATH_INFO", ""))
        if environ.get("REQUEST_METHOD") != "GET" or match is None or not self.app.config.get(
                "FAST_PATH", True):
            return self.wsgi_app(environ, start_response)
        cookie_header = environ.get("HTTP_COOKIE", "")
        tokens = self._tokens(cookie_header)
        stamp = self._stamp(int(match.group(1)), tokens) if tokens else None
        if stamp is None or stamp[2] is not None or _last_seen_due(stamp[4]):
            return self.wsgi_app(environ, start_response)  # the views decide (404, or note the visit)
        if match.group(2):
            return self._poll(int(match.group(1)), stamp, environ, start_response)
        return self._page(stamp, cookie_header, environ, start_response)

    # --- who is asking --------------------------------------------------------------------------

    def _tokens(self, cookie_header: str) -> list[str]:
        """The membership tokens of the phone's session cookie, its signature verified (and remembered)."""
        name = self.app.config["SESSION_COOKIE_NAME"]
        if name not in cookie_header:
            return []
        known = self.cookies.get(cookie_header)
        if known is not None and time.monotonic() - known[1] < VERIFIED_COOKIE_SECONDS:
            return known[0]
        try:
            morsel = SimpleCookie(cookie_header).get(name)
        except CookieError:
            return []
        serializer = self.app.session_interface.get_signing_serializer(self.app)
        if morsel is None or serializer is None:
            return []
        try:
            data = serializer.loads(morsel.value,
                                    max_age=int(self.app.permanent_session_lifetime.total_seconds()))
        except BadSignature:
            return []
        # a pending message is shown (and taken out of the cookie) by the views
        tokens = [] if not isinstance(data, dict) or data.get("_flashes") else tokens_in(data)
        self.cookies.put(cookie_header, (tokens, time.monotonic()))
        return tokens

    def _stamp(self, play_id: int, tokens: list[str]) -> tuple | None:
        db = connections_of(self.app).get()
        return db.execute(_STAMP.format(marks=",".join("?" * len(tokens))), [*tokens, play_id]).fetchone()

    # --- the answers --------------------------------------------------------------------------------

    def _poll(self, play_id: int, stamp: tuple, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """An unchanged poll: the play's version and status, as ``live.state`` answers it."""
        since = _SINCE.fullmatch(environ.get("QUERY_STRING", ""))
        version, status = stamp[0], stamp[1]
        if since is None or int(since.group(1)) != version:
            return self.wsgi_app(environ, start_response)
        body = json.dumps({"play": play_id, "version": version, "status": status, "changed": False},
                          ensure_ascii=False).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                  ("Cache-Control", "no-store"), ("Vary", "Cookie"),
                                  *_security_headers(self.app)])
        return [body]

    def _page(self, stamp: tuple, cookie_header: str, environ: dict,
              start_response: Callable) -> Iterable[bytes]:
        if stamp[1] != "active":
            return self.wsgi_app(environ, start_response)  # a finished play redirects to its result
        key = (stamp[0], stamp[3], stamp[5], stamp[6], cookie_header, environ["PATH_INFO"],
               environ["wsgi.url_scheme"], *(environ.get(name, "") for name in _PAGE_HEADERS))
        kept = self.pages.get(key)
        if kept is not None:
            status, headers, body = kept
            start_response(status, list(headers))
            return [body]
        answer: list = []

        def keep_answer(status: str, headers: list, exc_info=None):
            answer[:] = [status, headers]
            return start_response(status, headers, exc_info)

        body_parts = self.wsgi_app(environ, keep_answer)
        try:
            body = b"".join(body_parts)
        finally:
            if hasattr(body_parts, "close"):
                body_parts.close()
        status, headers = answer
        if status.startswith("200") and not any(name.lower() == "set-cookie" for name, _ in headers):
            self.pages.put(key, (status, headers, body))
        return [body]


def _last_seen_due(last_seen: str) -> bool:
    """Whether the views should note this visit (they write a phone's "last seen" every few minutes)."""
    since = datetime.now(UTC) - datetime.fromisoformat(last_seen)
    return since.total_seconds() >= LAST_SEEN_EVERY_SECONDS


def _security_headers(app: Flask) -> list[tuple[str, str]]:
    headers = list(SECURITY_HEADERS.items())
    if app.config.get("COMPANION_HTTPS"):
        headers.append(("Strict-Transport-Security", "max-age=31536000"))
    return headers


def init_app(app: Flask) -> None:
    app.wsgi_app = FastPath(app, app.wsgi_app)
