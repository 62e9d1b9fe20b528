"""The fast path for what phones ask most: the play page, the live poll and the group page, before Flask runs.

Every phone at the table polls ``/plays/<id>/state.json`` every couple of seconds, opens the play
page after every entry and goes back to the group page between plays. They only change when the play
or the group does, so this WSGI middleware answers them from one indexed query, without the
framework's per-request work (session, language, CSRF, views):

- The phone's cookie is verified once (its signature) and then remembered; its membership tokens are
  checked against the database on every request, in the same query that reads the version stamp. A
  removed phone, a deleted group or play, or a cookie without a membership falls through to the
  views, which answer 404 as before. So does a visit the views should note ("last seen").
- An unchanged poll (``since`` = the play's version) is answered at once, with the bytes the view
  would send.
- A page is kept as the views answered it (compressed if the phone accepts gzip), per phone (the whole
  Cookie header: the page carries the phone's own CSRF token and language), per address and per
  version stamp: the play's version and the group's, which triggers raise on every change the
  group's pages show (its name, players, plays, seats, results, own games and phones; see
  ``store.schema._m014_group_versions``). A page with a message, or an answer that sets a cookie, is
  never kept.
- A static file's answer (compacted, compressed, or 304 Not Modified) is kept per version of the
  file (its modification time and size, read on every request) and the headers that shape it.
- Every answer is checked first, so nothing stale is served: a change of the stamp makes a new key.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from flask import Flask
from werkzeug.security import safe_join

from companion.web.database import connections_of
from companion.web.lru import Lru
from companion.web.security import LAST_SEEN_EVERY_SECONDS, SECURITY_HEADERS, session_in_cookie, tokens_in

_PLAY = re.compile(r"/plays/([1-9][0-9]{0,15})(/state\.json)?")
_GROUP = re.compile(r"/groups/([1-9][0-9]{0,15})")
_SINCE = re.compile(r"since=([0-9]{1,16})")
# what else a kept page depends on: its address as the phone wrote it, its language and encoding
_PAGE_HEADERS = ("QUERY_STRING", "HTTP_HOST", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO",
                 "HTTP_ACCEPT_LANGUAGE", "HTTP_ACCEPT_ENCODING")
# what else a static file's answer depends on: the phone's copy (ETag) and whether it asked for a part
_STATIC_HEADERS = ("HTTP_ACCEPT_ENCODING", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_RANGE",
                   "HTTP_IF_RANGE", "QUERY_STRING")
VERIFIED_COOKIE_SECONDS = 60  # a verified cookie is checked again (its signature and age) after this

# The version stamps, for a phone with one of these memberships of the group (no row: not a member,
# no such play or group, or one in the trash). Each starts with when the phone was last seen there.
_MEMBER = "JOIN memberships m ON m.group_id = g.id AND m.token IN ({marks})"
_PLAY_STAMP = f"""
SELECT m.last_seen, p.version, p.status, g.version
FROM plays p JOIN groups g ON g.id = p.group_id AND g.deleted_at IS NULL {_MEMBER}
WHERE p.id = ? AND p.deleted_at IS NULL LIMIT 1
"""
_GROUP_STAMP = f"""
SELECT m.last_seen, g.version FROM groups g {_MEMBER} WHERE g.id = ? AND g.deleted_at IS NULL LIMIT 1
"""


class FastPath:
    """WSGI middleware in front of the app: see the module's description."""

    def __init__(self, app: Flask, wsgi_app: Callable, size: int = 512) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.pages = Lru(size)
        self.cookies = Lru(size)
        self.static_prefix = f"{app.static_url_path}/"

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET" and self.app.config.get("FAST_PATH", True):
            path = environ.get("PATH_INFO", "")
            if match := _PLAY.fullmatch(path):
                return self._play(int(match.group(1)), bool(match.group(2)), environ, start_response)
            if match := _GROUP.fullmatch(path):
                return self._group(int(match.group(1)), environ, start_response)
            if path.startswith(self.static_prefix):
                return self._static(path.removeprefix(self.static_prefix), environ, start_response)
        return self.wsgi_app(environ, start_response)

    def _play(self, play_id: int, poll: bool, environ: dict, start_response: Callable) -> Iterable[bytes]:
        stamp = self._stamp(_PLAY_STAMP, play_id, environ)
        if stamp is None:
            return self.wsgi_app(environ, start_response)
        play_version, status, group_version = stamp
        if poll:
            return self._poll(play_id, play_version, status, environ, start_response)
        if status != "active":
            return self.wsgi_app(environ, start_response)  # a finished play redirects to its result
        return self._kept_page((play_version, group_version), environ, start_response)

    def _group(self, group_id: int, environ: dict, start_response: Callable) -> Iterable[bytes]:
        stamp = self._stamp(_GROUP_STAMP, group_id, environ)
        if stamp is None:
            return self.wsgi_app(environ, start_response)
        return self._kept_page(stamp, environ, start_response)

    def _static(self, name: str, environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = safe_join(self.app.static_folder, name) if self.app.static_folder else None
        try:
            found = os.stat(path) if path else None
        except OSError:
            found = None
        if found is None:
            return self.wsgi_app(environ, start_response)  # Flask answers 404 (or whatever it answers)
        key = ("static", environ["PATH_INFO"], found.st_mtime_ns, found.st_size,
               *(environ.get(name, "") for name in _STATIC_HEADERS))
        return self._kept(key, ("200", "304"), environ, start_response)

    # --- who is asking --------------------------------------------------------------------------

    def _stamp(self, query: str, row_id: int, environ: dict) -> tuple | None:
        """The version stamp for a member phone whose visit needs no note; None: the views decide."""
        tokens = self._tokens(environ.get("HTTP_COOKIE", ""))
        if not tokens:
            return None
        db = connections_of(self.app).get()
        row = db.execute(query.format(marks=",".join("?" * len(tokens))), [*tokens, row_id]).fetchone()
        if row is None or _last_seen_due(row[0]):
            return None  # the views answer 404, or note the visit
        return tuple(row[1:])

    def _tokens(self, cookie_header: str) -> list[str]:
        """The membership tokens of the phone's session cookie, its signature verified (and remembered)."""
        name = self.app.config["SESSION_COOKIE_NAME"]
        if name not in cookie_header:
            return []
        known = self.cookies.get(cookie_header)
        if known is not None and time.monotonic() - known[1] < VERIFIED_COOKIE_SECONDS:
            return known[0]
        data = session_in_cookie(self.app, cookie_header)
        # a pending message is shown (and taken out of the cookie) by the views
        tokens = [] if data is None or data.get("_flashes") else tokens_in(data)
        self.cookies.put(cookie_header, (tokens, time.monotonic()))
        return tokens

    # --- the answers --------------------------------------------------------------------------------

    def _poll(self, play_id: int, version: int, status: str, environ: dict,
              start_response: Callable) -> Iterable[bytes]:
        """An unchanged poll: the play's version and status, as ``live.state`` answers it."""
        since = _SINCE.fullmatch(environ.get("QUERY_STRING", ""))
        if since is None or int(since.group(1)) != version:
            return self.wsgi_app(environ, start_response)
        body = json.dumps({"play": play_id, "version": version, "status": status, "changed": False},
                          ensure_ascii=False).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                  ("Cache-Control", "no-store"), ("Vary", "Cookie"),
                                  *_security_headers(self.app)])
        return [body]

    def _kept_page(self, stamp: tuple, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """The page as the views answered it for this stamp, phone and address; kept if it may be."""
        key = (stamp, environ.get("HTTP_COOKIE", ""), environ["PATH_INFO"], environ["wsgi.url_scheme"],
               *(environ.get(name, "") for name in _PAGE_HEADERS))
        return self._kept(key, ("200",), environ, start_response)

    def _kept(self, key: tuple, kept_statuses: tuple[str, ...], environ: dict,
              start_response: Callable) -> Iterable[bytes]:
        """The answer kept for ``key``, or the app's answer, kept if its status is one of these."""
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
        if status.startswith(kept_statuses) and not any(name.lower() == "set-cookie" for name, _ in headers):
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
