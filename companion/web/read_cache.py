"""The read cache in front of Flask: the app's own answers to what phones ask most (a play's ``state.json``
poll, the play and group pages, static files), given again without running Flask while they hold; it renders
nothing. The gate (``store.access.reach``) is asked on every request, in one query that also reads the version
stamps in the key (its only invalidation); what it refuses, a visit to note or a pending message go to Flask,
and only 200 answers (and a static file's 304) that set no cookie are kept. The key names all a kept answer
depends on: the play's and group's versions, the phone (membership, CSRF token), its language, encoding and
the address used."""

import os
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from flask import Flask
from flask.sessions import SessionMixin
from werkzeug.exceptions import HTTPException
from werkzeug.security import safe_join
from werkzeug.wrappers import Request

from companion.store.access import reach
from companion.web.database import connections_of
from companion.web.i18n import LANGUAGE_COOKIE
from companion.web.lru import Lru
from companion.web.security import last_seen_due, tokens_in

# The pages kept, by endpoint: what they show of the play and the group.
PAGES = {"plays.show", "live.state", "groups.show"}
STATIC = "static"
# what else a kept answer depends on, as the phone sent it: the address (links for other phones) and the
# encodings it accepts
_REQUEST = ("PATH_INFO", "QUERY_STRING", "HTTP_ACCEPT_ENCODING", "wsgi.url_scheme", "HTTP_HOST",
            "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO", "SERVER_NAME", "SERVER_PORT")
# … and for a static file: the phone's copy (ETag) and whether it asked for a part
_STATIC_HEADERS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_RANGE", "HTTP_IF_RANGE")
VERIFIED_SESSION_SECONDS = 60  # a session's cookie is verified again (its signature and age) after this


class ReadCache:
    """WSGI middleware in front of the app: see the module's description."""

    def __init__(self, app: Flask, wsgi_app: Callable, size: int = 2048) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.kept = Lru(size)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or not self.app.config.get("READ_CACHE", True):
            return self.wsgi_app(environ, start_response)
        request = self.app.request_class(environ)
        endpoint, args = self._route(request)
        key = (self._static_key(args["filename"], request) if endpoint == STATIC
               else self._page_key(endpoint, args, request) if endpoint in PAGES else None)
        if key is None:
            return self.wsgi_app(environ, start_response)
        return self._kept(key, ("304", "200") if endpoint == STATIC else ("200",), environ, start_response)

    def _route(self, request: Request) -> tuple[str | None, dict]:
        """The endpoint and its values, as the app's routing finds them (remembered per address)."""
        address = ("route", request.environ.get("HTTP_HOST"), request.environ.get("PATH_INFO"))
        found = self.kept.get(address)
        if found is None:
            try:
                found = self.app.create_url_adapter(request).match()
            except HTTPException:  # not found, another method, a redirect: Flask answers
                found = (None, {})
            self.kept.put(address, found)
        return found

    def _page_key(self, endpoint: str, args: dict, request: Request) -> tuple | None:
        """The key of a page for this phone; None: the views must answer (see the module's description)."""
        session, language = self._session(request)
        if session is None or session.get("_flashes"):  # a pending message is shown by the views
            return None
        found = reach(connections_of(self.app).get(), tokens_in(session), args.get("group_id"),
                      args.get("play_id"))
        if found is None or last_seen_due(found.last_seen, datetime.now(UTC).replace(microsecond=0)):
            return None  # refused, or a visit the views note (a phone's "last seen")
        if endpoint == "live.state":
            if request.environ.get("QUERY_STRING") != f"since={found.play_version}":
                return None  # a change: its page and scores are the views' to tell
            stamp: tuple = (found.play_version, found.play_status)
            phone: tuple = ()  # an unchanged poll says the same to every member
        else:
            if endpoint == "plays.show" and found.play_status != "active":
                return None  # a finished play redirects to its result
            stamp = (found.group_version, found.play_version)
            phone = (found.membership.token, session.get("csrf_token"), language,
                     request.environ.get("HTTP_ACCEPT_LANGUAGE"))
        return (endpoint, stamp, phone, *(request.environ.get(name) for name in _REQUEST))

    def _static_key(self, filename: str, request: Request) -> tuple | None:
        """The key of a static file's answer: the file's version and the headers that shape it."""
        path = safe_join(self.app.static_folder, filename) if self.app.static_folder else None
        if path is None:
            return None  # Flask answers 404 (or whatever it answers)
        try:
            found = os.stat(path)
        except (OSError, ValueError):  # ValueError: a NUL byte in the name
            return None
        return (STATIC, found.st_mtime_ns, found.st_size,
                *(request.environ.get(name) for name in (*_REQUEST, *_STATIC_HEADERS)))

    def _session(self, request: Request) -> tuple[SessionMixin | None, str | None]:
        """The phone's session (None without a valid cookie) and language, kept per Cookie header a minute."""
        cookie = request.environ.get("HTTP_COOKIE", "")
        if self.app.config["SESSION_COOKIE_NAME"] not in cookie:
            return None, None
        verified = self.kept.get(("session", cookie))
        if verified is None or time.monotonic() - verified[2] >= VERIFIED_SESSION_SECONDS:
            session = self.app.session_interface.open_session(self.app, request)
            verified = (session, request.cookies.get(LANGUAGE_COOKIE), time.monotonic())
            self.kept.put(("session", cookie), verified)
        return verified[0], verified[1]

    def _kept(self, key: tuple, kept_statuses: tuple[str, ...], environ: dict,
              start_response: Callable) -> Iterable[bytes]:
        """The answer kept for ``key``, or the app's answer, kept if its status is one of these."""
        kept = self.kept.get(key)
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
        if status.startswith(kept_statuses) and not any(name.lower() == "set-cookie" for name, _ in headers):
            self.kept.put(key, (status, headers, body))
        return [body]


def init_app(app: Flask) -> None:
    app.wsgi_app = ReadCache(app, app.wsgi_app)
