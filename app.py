"""The application factory: ``flask --app app run`` or ``gunicorn 'app:create_app()'``."""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path

from flask import Flask

from companion import config as settings
from companion import store
from companion.store.connection import owner_only_files
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
    players,
    plays,
    table_tools,
)
from companion.views.catalogue import AnyGame
from companion.web import compression, database, gate, i18n, read_cache, security
from companion.web.labels import ROW_LABELS, row_label


def _load_instance_settings(app: Flask) -> None:
    """Read ``instance/config.py``; when the site is about to serve, create it first and bring the
    database up to date.

    ``COMPANION_SECRET_KEY``, when set, is the key: no key is generated then, and one in config.py
    does not replace it. A command (backup, restore, --help) only reads: it creates no file.
    """
    instance = Path(app.instance_path)
    key_from_environment = app.config.get("SECRET_KEY")
    if settings.serving() and not key_from_environment:
        _ensure_instance_config(instance)
    app.config.from_pyfile("config.py", silent=True)  # none yet: a command, or the key from outside
    if key_from_environment:
        app.config["SECRET_KEY"] = key_from_environment
    # flask's own command line (``flask --app app init-db``, ``backup``) migrates only when told to
    if settings.serving() and os.environ.get("FLASK_RUN_FROM_CLI") != "true":
        _migrate_on_start(Path(app.config["DATABASE"]))


def _migrate_on_start(database: Path) -> None:
    """Apply the migrations a database lacks (as ``init-db`` does) before the site serves from it.

    gunicorn's workers start at once: each waits for a lock on the database's folder, so one
    migrates while the others wait, then find nothing left to do.
    """
    with owner_only_files():
        database.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(database.parent, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        db = store.connect(database)
        try:
            store.migrate(db)
        finally:
            db.close()
    finally:
        os.close(folder)  # and with it the lock


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
        # … and beyond that, from addresses without a wrong code for days (docs/security.md)
        JOIN_FAILURES_FROM_NEW_ADDRESSES=125,
        JOIN_NEW_ADDRESS_DAYS=7,
        JOIN_FAILURE_WINDOW_SECONDS=15 * 60,
        IMPORTS_ALLOWED=10,  # backups imported as new groups per address …
        IMPORT_WINDOW_SECONDS=60 * 60,  # … within an hour
        WTF_CSRF_TIME_LIMIT=None,  # a score sheet may stay open on a phone all evening
        # Served through HTTPS (e.g. behind a reverse proxy)? Then the session cookie is Secure.
        # Set COMPANION_HTTPS = True in instance/config.py or the environment variable COMPANION_HTTPS=1.
        COMPANION_HTTPS=False,
        # Behind a reverse proxy (nginx, Caddy …) that sets X-Forwarded-For/-Proto/-Host?
        COMPANION_BEHIND_PROXY=False,
        LIVE_POLL_MS=settings.LIVE_POLL_MS,
        COMPANION_REPLICA_MAX_LAG=settings.REPLICA_MAX_LAG_SECONDS,
        BABEL_TRANSLATION_DIRECTORIES=settings.site_folder("translations"),
    )
    settings.load_environment(app)  # COMPANION_* variables; instance/config.py has the last word
    if test_config is None:
        _load_instance_settings(app)
    else:
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config.from_mapping(test_config)
    settings.check_settings(app)

    # The one sequence of the site's parts. Middleware wraps what was registered before it, so the
    # read cache, last, sees a request first. Before-request hooks run in the order registered,
    # after-request hooks in the reverse order.
    database.init_app(app)
    i18n.init_app(app)
    # these read nothing of the body, and must come before the CSRF check, which reads the form
    app.before_request(errors.refuse_json_to_forms)
    app.before_request(history.allow_whole_imports)
    security.init_app(app)  # CSRF check, cookies, security headers, "last seen", ProxyFix
    gate.init_app(app)  # who may see the group or play the address names: after the CSRF check
    compression.init_app(app)
    read_cache.init_app(app)
    for module in (home, groups, members, plays, phone_player, table_tools, live, great_western_trail,
                   history, players, custom_games, past_plays, bgstats, api, health, errors, common):
        app.register_blueprint(module.bp)  # errors: error pages; common: request ids, stale edits (409)
    gold_west.init_app(app)
    mayflower.init_app(app)
    app.jinja_env.globals.update(games=AnyGame(), row_labels=ROW_LABELS, row_label=row_label)
    return app
