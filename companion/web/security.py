"""CSRF protection, security headers, cookie settings, and the memberships a phone's cookie carries."""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from flask import Flask, current_app, flash, g, request, session, url_for
from flask.wrappers import Response
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

from companion import store
from companion.store.access import reach
from companion.web.database import get_db
from companion.web.lan import lan_addresses

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

# The phone's signed cookie holds only the tokens of its memberships, joined by dots. Each token is
# 22 characters; what the phone may open is decided by the memberships table, never by the cookie
# alone, so removing a membership ends access even for a copy of an old cookie. (Cookies of the
# first versions listed group ids under "groups"; those ids no longer let anyone in.)
_MEMBERSHIPS_KEY = "memberships"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")
# A browser keeps at most 4096 bytes per cookie. A hundred tokens take about 2.7 KB of it (see
# tests/test_privacy.py), which leaves room for the CSRF token and a message after a form.
MAX_GROUPS_PER_PHONE = 100
# how often a phone's "last seen" is written: at most once in this many seconds per group
LAST_SEEN_EVERY_SECONDS = 300


class TooManyGroups(Exception):
    """This phone already belongs to as many groups as its cookie can hold."""


def too_many_groups_message() -> str:
    return _("This phone is already in %(count)d groups, the most one phone can keep. Leave a group "
             "you no longer play with (on its page), then try again.", count=MAX_GROUPS_PER_PHONE)


def membership_tokens() -> list[str]:
    """The membership tokens in this phone's signed cookie (anything odd in it is ignored)."""
    return tokens_in(session)


def tokens_in(data: Mapping) -> list[str]:
    """The membership tokens in the data of a session cookie (anything odd in it is ignored)."""
    value = data.get(_MEMBERSHIPS_KEY, "")
    if not isinstance(value, str):
        return []
    return list(dict.fromkeys(token for token in value.split(".") if _TOKEN.fullmatch(token)))


def _keep_tokens(tokens: list[str]) -> None:
    session[_MEMBERSHIPS_KEY] = ".".join(tokens)
    session.pop("groups", None)
    session.permanent = True


def membership(group_id: int) -> store.Membership | None:
    """This phone's membership of ``group_id`` (outside the trash), as the gate finds it."""
    mine = g.get("membership")
    if mine is None or mine.group_id != group_id:
        found = reach(get_db(), membership_tokens(), group_id)
        mine = found.membership if found else None
    return mine


def note_last_seen(response: Response) -> Response:
    """After a page of a group was shown, note when this phone was last seen in the group.

    Only for pages shown (a GET answered 200), so that a refused request changes nothing, and at most
    every few minutes, so that looking at a play costs no write.
    """
    opened = g.get("membership")
    if opened is None or request.method != "GET" or response.status_code != 200:
        return response
    at = datetime.now(UTC).replace(microsecond=0)
    due = at - timedelta(seconds=LAST_SEEN_EVERY_SECONDS)
    if datetime.fromisoformat(opened.last_seen) <= due:
        store.touch_membership(get_db(), opened.id, at.isoformat(), unless_seen_since=due.isoformat())
    return response


def _live_tokens() -> list[str]:
    """The cookie's tokens whose memberships still exist (a removed phone's token drops out)."""
    held = membership_tokens()
    alive = store.existing_tokens(get_db(), held)
    return [token for token in held if token in alive]


def _room_for_another_group() -> tuple[list[str], list[tuple[store.Membership, str]]]:
    """The cookie's live tokens, and the deleted groups this phone must leave to make room for one more.

    Groups in the trash do not count against the limit (the phone no longer sees them), but their
    tokens take room in the cookie: the groups deleted longest ago give theirs up first.
    TooManyGroups if the groups outside the trash fill the cookie.
    """
    tokens = _live_tokens()
    excess = len(tokens) + 1 - MAX_GROUPS_PER_PHONE
    if excess <= 0:
        return tokens, []
    trashed = store.trashed_memberships(get_db(), tokens)
    if len(trashed) < excess:
        raise TooManyGroups
    return tokens, trashed[:excess]


def check_room_for_another_group() -> None:
    """Raise TooManyGroups if this phone cannot join one more group."""
    _room_for_another_group()


def join_group(group_id: int) -> store.Membership:
    """Let this phone into ``group_id``: a new membership, its token put into the cookie.

    A phone already in the group keeps its membership. Tokens of memberships that no longer exist
    (a removed phone, a purged group) leave the cookie here; if the cookie is full, the phone leaves
    the deleted groups it must (and is told so). TooManyGroups if the groups it sees fill the cookie.
    """
    current = membership(group_id)
    if current is not None:
        return current
    tokens, to_leave = _room_for_another_group()
    for left, name in to_leave:
        store.delete_membership(get_db(), left.group_id, left.id)
        tokens.remove(left.token)
        flash(_("To make room, this phone left the deleted group %(name)s.", name=name))
    joined = store.create_membership(get_db(), group_id)
    _keep_tokens([joined.token, *tokens])
    return joined


def forget_membership(token: str) -> None:
    """Take a token out of this phone's cookie."""
    _keep_tokens([t for t in membership_tokens() if t != token])
    g.pop("membership", None)


def joined_groups() -> list[store.Group]:
    """The groups this phone may open, by name."""
    return store.member_groups(get_db(), membership_tokens())


# --- who guesses join codes ----------------------------------------------------------------------

# An IPv6 home or phone gets a whole network (from a /64 up to a /48, a /56 is usual): counted per
# address, one of them would be millions of new addresses to the join-code limit.
IPV6_PREFIX_COUNTED = 56


def client_network() -> str:
    """What the join-code limit counts wrong codes against: the IPv4 address, or the IPv6 /56."""
    address = request.remote_addr or ""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{parsed}/{IPV6_PREFIX_COUNTED}", strict=False))
    return str(getattr(parsed, "ipv4_mapped", None) or parsed)


# where a proxy in the local network may be: RFC 1918, unique local and link-local addresses
_LOCAL_NETWORKS = tuple(ipaddress.ip_network(network) for network in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10"))


def _may_be_the_proxy(address: str) -> bool:
    """Whether a request from ``address`` may have come through the site's reverse proxy.

    The proxy runs on this machine or in the local network (another container, say); a request from
    anywhere else reached the site past the proxy, and the X-Forwarded-* headers it carries are its
    own invention.
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return parsed.is_loopback or any(parsed in network for network in _LOCAL_NETWORKS)


class TrustedProxyFix:
    """ProxyFix for the requests that may have come through the proxy, and for no others.

    A forged X-Forwarded-For from past the proxy is ignored, so a client can neither pose as many
    addresses to the join-code limit nor choose the scheme and host of invite links.
    """

    def __init__(self, app) -> None:
        self.app = app
        self.fixed = ProxyFix(app, x_for=1, x_proto=1, x_host=1)

    def __call__(self, environ, start_response):
        if _may_be_the_proxy(environ.get("REMOTE_ADDR", "")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)


# --- the address in invite links -----------------------------------------------------------------

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


@functools.cache
def _this_machines_names() -> frozenset[str]:
    """Names and addresses that mean this machine: the LAN addresses ``make run`` prints, loopback."""
    return frozenset({*LOOPBACK_NAMES, *lan_addresses(), socket.gethostname().lower(),
                      f"{socket.gethostname().lower()}.local"})


# a host name or IPv4 address, or an IPv6 address in brackets, with an optional port; nothing else
_PLAIN_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def site_address() -> str:
    """Where phones reach the site (``scheme://host[:port]``), for invite links and their QR codes.

    Never taken from a request's Host header as it comes: a page reached under a forged name
    (another site's name pointing at this machine) would hand out invite links to that site.
    ``COMPANION_BASE_URL`` when set; behind a proxy (``COMPANION_BEHIND_PROXY``) the host the proxy
    passes on in X-Forwarded-Host; else the Host header only if it names this machine (a LAN address,
    loopback, its host name or ``SERVER_NAME``), otherwise the LAN address ``make run`` prints.
    """
    config = current_app.config
    configured = config.get("COMPANION_BASE_URL")
    if configured:
        return str(configured).rstrip("/")
    # only a web address: a forwarded "javascript" scheme must never make a javascript: link
    scheme = request.scheme if request.scheme in ("http", "https") else "http"
    # Werkzeug gives "" for a Host it finds malformed ("127.0.0.1@evil.example"); only a plain name
    # or address with an optional port makes a link
    host = request.host if _PLAIN_HOST.fullmatch(request.host) else ""
    name = (urlsplit(f"//{host}").hostname or "") if host else ""
    if name and (config.get("COMPANION_BEHIND_PROXY")  # ProxyFix has put X-Forwarded-Host here
                 or name in _this_machines_names()
                 or name == (config.get("SERVER_NAME") or "").split(":")[0].lower()):
        return f"{scheme}://{host}"
    addresses = lan_addresses()
    port = request.environ.get("SERVER_PORT", "")
    default_port = {"http": "80", "https": "443"}.get(scheme)
    where = addresses[0] if addresses else "localhost"
    return f"{scheme}://{where}" + (f":{port}" if port and port != default_port else "")


def site_url(endpoint: str, **values) -> str:
    """The full address of a page, built on ``site_address()`` (for links shown to other phones)."""
    return site_address() + url_for(endpoint, **values)


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
        app.wsgi_app = TrustedProxyFix(app.wsgi_app)


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    configure_cookies(app)
    app.after_request(add_security_headers)
    app.after_request(note_last_seen)
    app.jinja_env.globals.update(site_url=site_url)
