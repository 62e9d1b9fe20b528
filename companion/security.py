"""CSRF protection, security headers, cookie settings and the cookie that remembers joined groups."""

from __future__ import annotations

from flask import Flask, abort, current_app, session
from flask.wrappers import Response
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

csrf = CSRFProtect()

# Everything the pages load comes from this site: no inline scripts or style attributes, no CDN.
# "data:" images are allowed for small icons inlined into the stylesheet.
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "img-src 'self' data:",
    "style-src 'self'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
))

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # Invite links carry the group's token: never hand a page address to another site.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}

_GROUPS_KEY = "groups"
MAX_REMEMBERED_GROUPS = 50


def joined_group_ids() -> list[int]:
    """The groups this phone joined, as its signed cookie says (anything odd in it is ignored)."""
    value = session.get(_GROUPS_KEY, [])
    if not isinstance(value, list):
        return []
    return [item for item in value if type(item) is int and item > 0][:MAX_REMEMBERED_GROUPS]


def remember_group(group_id: int) -> None:
    ids = [gid for gid in joined_group_ids() if gid != group_id]
    session[_GROUPS_KEY] = [group_id, *ids][:MAX_REMEMBERED_GROUPS]
    session.permanent = True


def forget_group(group_id: int) -> None:
    session[_GROUPS_KEY] = [gid for gid in joined_group_ids() if gid != group_id]


def require_member(group_id: int) -> None:
    """404, not 403, for a group this phone has not joined: it must not learn the group exists."""
    if group_id not in joined_group_ids():
        abort(404)


def add_security_headers(response: Response) -> Response:
    """Every answer, pages, JSON, files and errors alike, carries the security headers."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if current_app.config.get("COMPANION_HTTPS"):
        # only over HTTPS: a plain-HTTP site on the home Wi-Fi must stay reachable
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response


def configure_cookies(app: Flask) -> None:
    """Mark the session cookie ``Secure`` when the site is served over HTTPS.

    ``COMPANION_HTTPS`` (in ``instance/config.py``, or the environment variable of the same name set
    to 1/true/yes/on) says that phones reach the site through HTTPS, usually behind a reverse proxy.
    The session cookie is then only sent over HTTPS. Leave it off for the usual plain-HTTP
    laptop-on-the-Wi-Fi setup: browsers do not send a Secure cookie over http://, so nobody could
    stay in a group. (HttpOnly and SameSite=Lax are the defaults in ``create_app``: Lax, not
    Strict, so that an invite link opened from a chat app still finds the phone's groups.)
    """
    if app.config.get("COMPANION_HTTPS"):
        app.config["SESSION_COOKIE_SECURE"] = True
    if app.config.get("COMPANION_BEHIND_PROXY"):
        # Behind a reverse proxy every request comes from the proxy's address: take the client's
        # address (for the join-code limit) and the scheme and host (for invite links) from it.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    configure_cookies(app)
    app.after_request(add_security_headers)
