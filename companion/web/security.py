"""CSRF protection, security headers, cookie settings, and the memberships a phone's cookie carries."""

import functools
import ipaddress
import re
import socket
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from flask import Flask, current_app, flash, g, request, session, url_for
from flask.wrappers import Response
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFProtect, generate_csrf
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix

from companion import store
from companion.store.access import reach
from companion.web.database import get_db
from companion.web.lan import lan_addresses

csrf = CSRFProtect()

# Everything the pages load comes from this site (no inline scripts or styles, no CDN; "data:" CSS icons)
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

# Invite links carry the group's token: the Referrer-Policy never hands a page address to another site.
SECURITY_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}

# The phone's signed cookie holds only the tokens of its memberships, joined by dots: the memberships table
# decides what it may open, so removing a membership ends access even for a copy of an old cookie.
# (Cookies of the first versions listed group ids under "groups"; those ids no longer let anyone in.)
_MEMBERSHIPS_KEY = "memberships"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")
# A hundred tokens take about 2.7 KB of a cookie's 4096 bytes: room is left for the CSRF token and a message
MAX_GROUPS_PER_PHONE = 100
# how often a phone's "last seen" is written: at most once in this long per group
LAST_SEEN_EVERY = timedelta(seconds=300)


class TooManyGroups(Exception):
    """This phone already belongs to as many groups as its cookie can hold."""

    def __str__(self) -> str:
        return _("This phone is already in %(count)d groups, the most one phone can keep. Leave a group "
                 "you no longer play with (on its page), then try again.", count=MAX_GROUPS_PER_PHONE)


def membership_tokens() -> list[str]:
    return tokens_in(session)


def tokens_in(data: Mapping) -> list[str]:
    """The membership tokens in the data of a session cookie (anything odd in it is ignored)."""
    value = data.get(_MEMBERSHIPS_KEY, "")
    tokens = value.split(".") if isinstance(value, str) else []
    return list(dict.fromkeys(token for token in tokens if _TOKEN.fullmatch(token)))


def _keep_tokens(tokens: list[str]) -> None:
    session[_MEMBERSHIPS_KEY] = ".".join(tokens)
    session.pop("groups", None)
    session.permanent = True


def note_last_seen(response: Response) -> Response:
    """Note when this phone last saw a group's page (at most every few minutes, so looking costs no write)."""
    opened = g.get("membership")
    if opened is None or request.method != "GET" or response.status_code != 200:
        return response
    at = datetime.now(UTC).replace(microsecond=0)
    if last_seen_due(opened.last_seen, at):
        store.touch_membership(get_db(), opened.id, at.isoformat(),
                               unless_seen_since=(at - LAST_SEEN_EVERY).isoformat())
    return response


def last_seen_due(last_seen: str, at: datetime) -> bool:
    """Whether a visit at ``at`` is to be noted as the phone's "last seen" (the read cache leaves it to
    the views then)."""
    return at - datetime.fromisoformat(last_seen) >= LAST_SEEN_EVERY


def room_for_another_group() -> tuple[list[str], list[tuple[store.Membership, str]]]:
    """The cookie's tokens of memberships that still exist, and the deleted groups (longest ago first) this
    phone must leave to make room in its cookie for one more; TooManyGroups if the groups it sees fill it."""
    held = membership_tokens()
    alive = store.existing_tokens(get_db(), held)
    tokens = [token for token in held if token in alive]
    excess = len(tokens) + 1 - MAX_GROUPS_PER_PHONE
    if excess <= 0:
        return tokens, []
    trashed = store.trashed_memberships(get_db(), tokens)
    if len(trashed) < excess:
        raise TooManyGroups
    return tokens, trashed[:excess]


def join_group(group_id: int, request_id: str | None = None) -> None:
    """Let this phone into ``group_id`` (unless it is in already), leaving deleted groups to make room;
    ``RepeatedCreation`` if its ``request_id`` made a membership before."""
    if reach(get_db(), membership_tokens(), group_id) is None:
        room_for_another_group()  # TooManyGroups before a membership is made
        keep_membership(store.create_membership(get_db(), group_id, request_id))


def keep_membership(membership: store.Membership) -> None:
    """Put ``membership`` into this phone's cookie (unless it is in its group already), leaving deleted
    groups to make room."""
    if reach(get_db(), membership_tokens(), membership.group_id) is not None:
        return
    tokens, to_leave = room_for_another_group()
    for left, name in to_leave:
        store.delete_membership(get_db(), left.group_id, left.id)
        tokens.remove(left.token)
        flash(_("To make room, this phone left the deleted group %(name)s.", name=name))
    _keep_tokens([membership.token, *tokens])


def forget_membership(token: str) -> None:
    _keep_tokens([t for t in membership_tokens() if t != token])
    g.pop("membership", None)


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
    """Whether ``address`` may be the site's reverse proxy (this machine or the local network): from anywhere
    else, X-Forwarded-* headers are the client's own invention."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return parsed.is_loopback or any(parsed in network for network in _LOCAL_NETWORKS)


def trusted_proxy_fix(wsgi_app: Callable) -> Callable:
    """ProxyFix for the requests that may have come through the proxy, and for no others: a client can
    neither pose as many addresses to the join-code limit nor choose the host of invite links."""
    fixed = ProxyFix(wsgi_app, x_for=1, x_proto=1, x_host=1)

    def app(environ: dict, start_response: Callable):
        trusted = _may_be_the_proxy(environ.get("REMOTE_ADDR", ""))
        return (fixed if trusted else wsgi_app)(environ, start_response)
    return app


@functools.cache
def _this_machines_names() -> frozenset[str]:
    """Names and addresses that mean this machine: the LAN addresses ``make run`` prints, loopback."""
    return frozenset({"localhost", "127.0.0.1", "::1", *lan_addresses(), socket.gethostname().lower(),
                      f"{socket.gethostname().lower()}.local"})


# a host name or IPv4 address, or an IPv6 address in brackets, with an optional port; nothing else
_PLAIN_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def site_url(endpoint: str, **values) -> str:
    """The full address of a page for other phones: ``COMPANION_BASE_URL``, else the host behind a proxy, else
    the Host header if it names this machine (not another site's), else the machine's LAN address."""
    config = current_app.config
    path = url_for(endpoint, **values)
    if config.get("COMPANION_BASE_URL"):
        return str(config["COMPANION_BASE_URL"]).rstrip("/") + path
    # only a web address: a forwarded "javascript" scheme must never make a javascript: link
    scheme = request.scheme if request.scheme in ("http", "https") else "http"
    # only a plain name or address (and port) makes a link; Werkzeug gives "" for "127.0.0.1@evil.example"
    host = request.host if _PLAIN_HOST.fullmatch(request.host) else ""
    name = urlsplit(f"//{host}").hostname or ""
    if name and (config.get("COMPANION_BEHIND_PROXY")  # ProxyFix has put X-Forwarded-Host here
                 or name in _this_machines_names()
                 or name == (config.get("SERVER_NAME") or "").split(":")[0].lower()):
        return f"{scheme}://{host}{path}"
    port = request.environ.get("SERVER_PORT", "")
    shown_port = f":{port}" if port and port != {"http": "80", "https": "443"}[scheme] else ""
    return f"{scheme}://{next(iter(lan_addresses()), 'localhost')}{shown_port}{path}"


def csrf_field() -> Markup:
    """The CSRF token every form of the pages sends; CSRFProtect checks it before any POST's view."""
    return Markup('<input name="csrf_token" type="hidden" value="{}">').format(generate_csrf())


def add_security_headers(response: Response) -> Response:
    """Every answer, pages, JSON, files and errors alike, carries the security headers."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if current_app.config.get("COMPANION_HTTPS"):
        # only over HTTPS: a plain-HTTP site on the home Wi-Fi must stay reachable
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response


def configure_cookies(app: Flask) -> None:
    """A ``Secure`` session cookie over HTTPS (not on the Wi-Fi's plain HTTP, where browsers would not send
    it); behind a reverse proxy the client's address, scheme and host from the proxy's headers."""
    if app.config.get("COMPANION_HTTPS"):
        app.config["SESSION_COOKIE_SECURE"] = True
    if app.config.get("COMPANION_BEHIND_PROXY"):
        app.wsgi_app = trusted_proxy_fix(app.wsgi_app)


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    configure_cookies(app)
    app.after_request(add_security_headers)
    app.after_request(note_last_seen)
    app.jinja_env.globals.update(site_url=site_url, csrf_field=csrf_field)
