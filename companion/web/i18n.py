"""English and German: the phone's language by default, or the one chosen on the site."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from flask import Flask, request
from flask_babel import Babel, format_date, format_datetime, format_decimal, get_locale, gettext

from companion.messages import Message, Refused, Term
from companion.web.labels import TERMS

LANGUAGES = {"en": "English", "de": "Deutsch"}
LANGUAGE_COOKIE = "lang"


def select_locale() -> str:
    chosen = request.cookies.get(LANGUAGE_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or "en"


def page_to_return_to() -> str:
    """Where the language switch brings the phone back: this page, or for a page shown in answer to
    a form, the page the form was sent from (the form's own address cannot be opened again)."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    referrer = urlsplit(request.referrer or "")
    if referrer.netloc == request.host:
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    return "/"


def translated(message: Refused | str) -> str:
    """A refusal (or a Message) in the reader's language, its values (messages, game words) translated
    too; text without a template, or a translation that does not fit its values, stays English."""
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
    if isinstance(value, Term):
        return str(TERMS.get(value, value))
    return value


def day(stamp: str | None) -> str:
    """A stored time (ISO 8601) as the reader's language writes its day: "30 Nov 2026", "30.11.2026"."""
    return format_date(datetime.fromisoformat(stamp), "medium") if stamp else ""


def moment(stamp: str | None) -> str:
    """A stored time (ISO 8601) as the reader's language writes day and time, short."""
    return format_datetime(datetime.fromisoformat(stamp), "short") if stamp else ""


def decimal(number: float) -> str:
    """A number with at most one decimal, none when it is whole: 69, 69.5 (German 69,5)."""
    return format_decimal(number, format="#,##0.#")


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", "translations")
    Babel(app, locale_selector=select_locale)
    app.jinja_env.globals.update(languages=LANGUAGES, current_locale=lambda: str(get_locale()),
                                 page_to_return_to=page_to_return_to)
    app.jinja_env.filters.update(day=day, moment=moment, decimal=decimal)
