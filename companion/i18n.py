"""English and German: the phone's language by default, or the one chosen on the site."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, request
from flask_babel import Babel, get_locale

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


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", "translations")
    Babel(app, locale_selector=select_locale)
    app.jinja_env.globals.update(languages=LANGUAGES, current_locale=lambda: str(get_locale()),
                                 page_to_return_to=page_to_return_to)
