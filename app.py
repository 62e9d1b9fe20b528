"""The application factory: ``flask --app app run`` or ``gunicorn 'app:create_app()'``."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

from companion import config as settings
from companion.store.schema import owner_only_files
from companion.views import (
    api,
    bgstats,
    common,
    custom_games,
    errors,
    gold_west,
    great_western_trail,
    groups,
    health,
    history,
    home,
    live,
    mayflower,
    members,
    past_plays,
    phone_player,
    play_log,
    players,
    plays,
    table_tools,
)
from companion.views.catalogue import AnyGame
from companion.web import compression, database, entry_path, fast_path, i18n, security
from companion.web.labels import ROW_LABELS, row_label


def _ensure_instance_config(instance: Path) -> None:
    """Create ``instance/config.py`` with a random SECRET_KEY the first time the site runs.

    The folder and the file are created readable by their owner only (see ``owner_only_files``).
    """
    config = instance / "config.py"
    if config.exists():
        return
    with owner_only_files():
        instance.mkdir(parents=True, exist_ok=True)
        _write_instance_config(instance, config)


def _write_instance_config(instance: Path, config: Path) -> None:
    # Write the whole file under a temporary name, then link it into place: when several server
    # processes start at once, exactly one link succeeds, and no process ever reads a half-written
    # file, so every process signs cookies with the same key.
    draft = instance / f".config.py.{os.getpid()}"
    draft.write_text(
        "# Generated on first run. Keep this file private: it signs the cookies that remember\n"
        "# which groups a phone has joined.\n"
        f"SECRET_KEY = {secrets.token_hex(32)!r}\n"
    )
    try:
        os.link(draft, config)
    except FileExistsError:
        pass  # another process was first; its key counts
    finally:
        draft.unlink()


def create_app(test_config: dict | None = None) -> Flask:
    """Build the site: configuration, instance folder, extensions and blueprints."""
    app = Flask(__name__, instance_path=settings.instance_path(), instance_relative_config=True,
                template_folder=settings.site_folder("templates"),
                static_folder=settings.site_folder("static"))
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.sqlite3"),
        MAX_CONTENT_LENGTH=256 * 1024,  # far above any form or scoring request
        BACKUP_MAX_BYTES=32 * 1024 * 1024,  # a group backup with many thousand plays
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 400,  # a phone stays in its groups for a long time
        # Send the cookie only when the session changed: an answer to a background request (live
        # refresh, a static file) must never put back a cookie older than the one a form just set.
        SESSION_REFRESH_EACH_REQUEST=False,
        JOIN_FAILURES_ALLOWED=10,  # wrong join codes per address within the window
        JOIN_FAILURES_ALLOWED_IN_ALL=100,  # … and from all addresses together
        JOIN_FAILURE_WINDOW_SECONDS=15 * 60,
        WTF_CSRF_TIME_LIMIT=None,  # a score sheet may stay open on a phone all evening
        # Served through HTTPS (e.g. behind a reverse proxy)? Then the session cookie is Secure.
        # Set COMPANION_HTTPS = True in instance/config.py or the environment variable COMPANION_HTTPS=1.
        COMPANION_HTTPS=False,
        # Behind a reverse proxy (nginx, Caddy …) that sets X-Forwarded-For/-Proto/-Host?
        COMPANION_BEHIND_PROXY=False,
        BABEL_TRANSLATION_DIRECTORIES=settings.site_folder("translations"),
    )
    settings.load_environment(app)  # COMPANION_* variables; instance/config.py still has the last word
    if test_config is None:
        _ensure_instance_config(Path(app.instance_path))
        app.config.from_pyfile("config.py")
    else:
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config.from_mapping(test_config)

    database.init_app(app)
    entry_path.init_app(app)  # before security's ProxyFix, which so wraps it: it sees the phone's address
    i18n.init_app(app)
    security.init_app(app)
    compression.init_app(app)
    fast_path.init_app(app)
    for module in (home, groups, plays, api, errors, gold_west, great_western_trail, live, history,
                   mayflower, health, custom_games, table_tools, past_plays, bgstats, players, members,
                   play_log, common, phone_player):
        module.init_app(app)
    app.jinja_env.globals.update(games=AnyGame(), row_labels=ROW_LABELS, row_label=row_label)
    return app
