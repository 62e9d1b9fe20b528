"""Where the site keeps its data and finds its pages (checkout or wheel); settings from the environment."""

import contextlib
import math
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from flask import Flask

APP_NAME = "game-night-companion"
ENV_PREFIX = "COMPANION"
LIVE_POLL_MS = 1500  # how often an open play page asks whether the play changed (the default)
# How far a folder replica may fall behind, and how long after the start it may have copied nothing, before
# /healthz answers 503 (the default); Litestream copies a commit in a few tenths of a second and checkpoints
# the log each minute.
REPLICA_MAX_LAG_SECONDS = 60.0
PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # the folder of app.py, templates/ and static/ in a checkout

# False while the command line builds the site for a command: the instance folder is then only read (app.py)
_serving: ContextVar[bool] = ContextVar("serving", default=True)


def is_checkout() -> bool:
    """Whether the code runs from a source checkout (an editable install counts) rather than a wheel."""
    return (CHECKOUT / "pyproject.toml").is_file()


def site_folder(name: str) -> str:
    """``templates``, ``static`` or ``translations``: inside a wheel's package, else beside app.py."""
    installed = PACKAGE / name
    return str(installed if installed.is_dir() else CHECKOUT / name)


def instance_path() -> str:
    """COMPANION_INSTANCE_PATH, else ``instance/`` in a checkout, else $XDG_DATA_HOME/game-night-companion."""
    if configured := os.environ.get(f"{ENV_PREFIX}_INSTANCE_PATH"):
        return str(Path(configured).expanduser().resolve())
    if is_checkout():
        return str(CHECKOUT / "instance")
    return str(Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / APP_NAME)


def flag(value: Any) -> bool:
    """A yes/no setting however it was written: true, 1, "yes", "on" (anything else is no)."""
    if isinstance(value, bool | int):
        return bool(value)
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


# Settings that keep their full name, and their types; every other one loses the prefix (→ SECRET_KEY).
FULL_NAMES = {"COMPANION_HTTPS": flag, "COMPANION_BEHIND_PROXY": flag, "COMPANION_BASE_URL": str,
              "COMPANION_REPLICA_URL": str, "COMPANION_REPLICA_MAX_LAG": str}


def load_environment(app: Flask) -> None:
    """Take settings from ``COMPANION_*`` environment variables, typed as JSON reads them, else text."""
    app.config.from_prefixed_env(ENV_PREFIX)
    app.config.pop("INSTANCE_PATH", None)  # where the instance folder is, not a setting of the site
    for full_name, typed in FULL_NAMES.items():
        short = full_name.removeprefix(f"{ENV_PREFIX}_")
        if short in app.config:
            app.config[full_name] = typed(app.config.pop(short))


def check_settings(app: Flask) -> None:
    """Settings that must hold a number, however they were set (environment or instance/config.py):
    ValueError naming the setting, so that the site does not start on a typing slip."""
    lag = app.config.get("COMPANION_REPLICA_MAX_LAG", REPLICA_MAX_LAG_SECONDS)
    try:
        seconds = math.nan if isinstance(lag, bool) else float(lag)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise ValueError(f"COMPANION_REPLICA_MAX_LAG must be a number of seconds above 0, such as 60, "
                         f"not {lag!r}.")
    app.config["COMPANION_REPLICA_MAX_LAG"] = seconds


def serving() -> bool:
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
