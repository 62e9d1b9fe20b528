"""Where the site keeps its data and finds its pages, and the settings from the environment.

The same code runs from a checkout (``make run``: ``instance/``, ``templates/``, ``static/`` and
``translations/`` beside ``app.py``) and from an installed wheel (``pip install .``, ``pipx``), which
carries the pages inside the ``companion`` package and keeps its data in a per-user folder.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from flask import Flask

APP_NAME = "game-night-companion"
ENV_PREFIX = "COMPANION"
PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # the folder of app.py, templates/ and static/ in a checkout

# Settings that have always been read from the environment under their own full name; the
# environment loader strips the prefix of every other variable (COMPANION_SECRET_KEY → SECRET_KEY).
FULL_NAME_FLAGS = ("COMPANION_HTTPS", "COMPANION_BEHIND_PROXY")
FULL_NAME_TEXTS = ("COMPANION_BASE_URL", "COMPANION_REPLICA_URL")
TRUE_WORDS = {"1", "true", "yes", "on"}

# False while the command line builds the site for a command (backup, restore, --help …): then the
# instance folder is only read, never written, and the database is not migrated (see app.py).
_serving: ContextVar[bool] = ContextVar("serving", default=True)


def is_checkout() -> bool:
    """Whether the code runs from a source checkout (an editable install counts) rather than a wheel."""
    return (CHECKOUT / "pyproject.toml").is_file()


def site_folder(name: str) -> str:
    """The folder of the site's ``templates``, ``static`` files or ``translations``.

    A wheel carries them inside the package (see pyproject.toml); a checkout keeps them beside app.py.
    """
    installed = PACKAGE / name
    return str(installed if installed.is_dir() else CHECKOUT / name)


def user_data_folder() -> Path:
    """The per-user data folder of an installed copy: $XDG_DATA_HOME/game-night-companion."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / APP_NAME


def instance_path() -> str:
    """The instance folder (database and secret key).

    ``COMPANION_INSTANCE_PATH`` if set; else ``instance/`` beside app.py in a checkout; else, for an
    installed copy, the per-user data folder (never the site-packages folder app.py was installed to).
    """
    configured = os.environ.get(f"{ENV_PREFIX}_INSTANCE_PATH")
    if configured:
        return str(Path(configured).expanduser().resolve())
    return str(CHECKOUT / "instance" if is_checkout() else user_data_folder())


def flag(value: Any) -> bool:
    """A yes/no setting however it was written: true, 1, "yes", "on" (anything else is no)."""
    if isinstance(value, bool | int):
        return bool(value)
    return str(value).strip().lower() in TRUE_WORDS


def load_environment(app: Flask) -> None:
    """Take settings from ``COMPANION_*`` environment variables, typed.

    ``COMPANION_MAX_CONTENT_LENGTH=524288`` sets the number ``MAX_CONTENT_LENGTH``,
    ``COMPANION_SECRET_KEY=…`` the text ``SECRET_KEY``: values that read as JSON (numbers, true/false,
    lists) are taken as such, anything else as text (Flask's ``from_prefixed_env``).
    ``COMPANION_HTTPS`` and ``COMPANION_BEHIND_PROXY`` keep their full names and also take 1/yes/on;
    ``COMPANION_BASE_URL`` (the address in invite links) and ``COMPANION_REPLICA_URL`` (where
    Litestream copies the database) keep their full names too.
    """
    app.config.from_prefixed_env(ENV_PREFIX)
    app.config.pop("INSTANCE_PATH", None)  # where the instance folder is, not a setting of the site
    for full_name in FULL_NAME_FLAGS:
        short = full_name.removeprefix(f"{ENV_PREFIX}_")
        if short in app.config:
            app.config[full_name] = flag(app.config.pop(short))
    for full_name in FULL_NAME_TEXTS:
        short = full_name.removeprefix(f"{ENV_PREFIX}_")
        if short in app.config:
            app.config[full_name] = str(app.config.pop(short))


def serving() -> bool:
    """Whether the site being built will serve pages (rather than run a command and stop)."""
    return _serving.get()


@contextlib.contextmanager
def for_a_command() -> Iterator[None]:
    """Build the site inside this block for a command: it creates no file and changes no database."""
    token = _serving.set(False)
    try:
        yield
    finally:
        _serving.reset(token)


def shown_url(url: str) -> str:
    """A replica URL fit for a log: a password in it is replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
