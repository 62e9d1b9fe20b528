"""English and German (the phone's or the one chosen on the site); times on the clocks of the page's group."""

import zoneinfo
from datetime import UTC, datetime, timedelta, tzinfo
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlsplit

from babel.numbers import parse_pattern
from flask import Flask, g, request
from flask_babel import Babel, format_date, format_datetime, format_decimal, get_locale, gettext

from companion.messages import Message, Refused, RowName, Term
from companion.web.labels import ROW_LABELS, TERMS

LANGUAGES = {"en": "English", "de": "Deutsch"}
LANGUAGE_COOKIE = "lang"


def select_locale() -> str:
    chosen = request.cookies.get(LANGUAGE_COOKIE)
    return chosen if chosen in LANGUAGES else request.accept_languages.best_match(list(LANGUAGES)) or "en"


class ShownZone(tzinfo):
    """The time zone a page writes its times in, as Flask-Babel takes it: the group's ``zone``, or None for
    the server's own (summer time included), so that pages and exports (``common.local_time``) agree."""

    def __init__(self, zone: tzinfo | None = None) -> None:
        self.zone = zone

    def fromutc(self, moment: datetime) -> datetime:  # how ``astimezone`` brings a time into the zone
        return moment.replace(tzinfo=UTC).astimezone(self.zone)

    def normalize(self, moment: datetime) -> datetime:  # asked of a zone by Flask-Babel (pytz's API)
        return moment

    def utcoffset(self, moment: datetime | None) -> timedelta | None:
        return self._on_clock(moment).utcoffset()

    def dst(self, moment: datetime | None) -> timedelta | None:
        return self._on_clock(moment).dst()

    def tzname(self, moment: datetime | None) -> str | None:
        return self._on_clock(moment).tzname()

    def _on_clock(self, moment: datetime | None) -> datetime:
        """``moment``'s day and time read on this zone's clocks."""
        wall = (moment or datetime.now()).replace(tzinfo=None)
        return wall.replace(tzinfo=self.zone) if self.zone is not None else wall.astimezone()


def select_time_zone() -> ShownZone:
    """Flask-Babel's time zone for a request: the group's the page is about (the gate puts its IANA name on
    ``g``); the server's for none, or for a name this machine does not know."""
    name = g.get("time_zone")
    try:
        return ShownZone(zoneinfo.ZoneInfo(name) if name else None)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return ShownZone()


def page_to_return_to() -> str:
    """Where the language switch brings the phone back: this page, or the page a form was sent from."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    try:
        referrer = urlsplit(request.referrer or "")
    except ValueError:  # a header no browser sends ("http://[::1"): no page to go back to
        return "/"
    if referrer.netloc == request.host:
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    return "/"


def translated(message: Refused | str) -> str:
    """A refusal (or a Message) in the reader's language, its values (messages, game words) translated too;
    text without a template, or a translation that does not fit its values, stays English."""
    sentence = message.message if isinstance(message, Refused) else message
    if not isinstance(sentence, Message):
        return str(sentence)
    values = {name: _shown(value) for name, value in sentence.params.items()}
    try:
        return gettext(sentence.template, **values)
    except (KeyError, ValueError, TypeError):
        return str(sentence)


def _shown(value: object) -> object:
    if isinstance(value, Message):
        return translated(value)
    if isinstance(value, Term):  # a RowName is shown as its row's label
        return str((ROW_LABELS if isinstance(value, RowName) else TERMS).get(value, value))
    return value


def day(stamp: str | None) -> str:
    """A stored time's day on the group's clocks, as the reader's language writes it: "30.11.2026"."""
    return format_date(datetime.fromisoformat(stamp), "medium") if stamp else ""


def moment(stamp: str | None) -> str:
    """A stored time's day and time on the group's clocks, short, as the reader's language writes them."""
    return format_datetime(datetime.fromisoformat(stamp), "short") if stamp else ""


def file_moment(text: str) -> str:
    """A date and time as an imported file writes it, in the reader's language, short: one without a zone
    is already on the group's clocks (BG Stats writes them so); text that is none stays as written."""
    try:
        written = datetime.fromisoformat(text.strip())
        return format_datetime(written, "short", rebase=written.tzinfo is not None)
    except (ValueError, OverflowError):
        return text


# parsed once: given as text, Babel parses the pattern again for every number (a statistics page has hundreds)
_ONE_DECIMAL = parse_pattern("#,##0.#")
_SIGNED_ONE_DECIMAL = parse_pattern("+#,##0.#;-#,##0.#")


def _half_up(number: float, scale: int, places: str) -> Decimal:
    """``number`` × ``scale`` rounded as a table checks it by hand, halves up (round() and Babel round halves
    to even), from the number's shortest decimal form: 0.285 stays a half."""
    rounded = (Decimal(str(number)) * scale).quantize(Decimal(places), ROUND_HALF_UP)
    return rounded if rounded else abs(rounded)  # -0.04 is 0, not "-0"


def decimal(number: float) -> str:
    """A number with at most one decimal, none when it is whole: 69, 69.5 (German 69,5); 10.25 is 10.3."""
    return format_decimal(_half_up(number, 1, "0.1"), format=_ONE_DECIMAL)


def signed_decimal(number: float) -> str:
    """A change, signed, rounded as ``decimal``: +2.7, -3.1 (German +2,7), +0."""
    return format_decimal(_half_up(number, 1, "0.1"), format=_SIGNED_ONE_DECIMAL)


def percent(share: float) -> int:
    """A share in whole percent: 5 of 8 is 63."""
    return int(_half_up(share, 100, "1"))


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=select_locale, timezone_selector=select_time_zone)
    app.jinja_env.globals.update(languages=LANGUAGES, current_locale=lambda: str(get_locale()),
                                 page_to_return_to=page_to_return_to)
    app.jinja_env.filters.update(day=day, moment=moment, file_moment=file_moment, decimal=decimal,
                                 signed_decimal=signed_decimal, percent=percent)
