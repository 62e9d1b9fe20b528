"""Where the site keeps its data and finds its pages (checkout or wheel); settings from the environment."""

import contextlib
import math
import os
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from flask import Flask

from companion.store import replica as replicas

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


class Numeric(NamedTuple):
    """What a setting that must hold a number holds: a whole number of ``unit``, ``least`` or more; or
    (not ``whole``) any number of them above ``least``."""

    unit: str
    least: int
    whole: bool = True

    def described(self) -> str:
        return (f"a whole number of {self.unit}, {self.least} or more" if self.whole
                else f"a number of {self.unit} above {self.least}")

    def read(self, value: Any) -> float | None:
        """``value`` as such a number (an int when ``whole``), however it was written; None if it is none."""
        if isinstance(value, timedelta):  # PERMANENT_SESSION_LIFETIME, as Flask takes it too
            value = value.total_seconds()
        if isinstance(value, bool):  # a yes/no is no number, though Python counts it as one
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        if self.whole:  # inf and nan are no whole number
            return int(number) if number.is_integer() and number >= self.least else None
        return number if math.isfinite(number) and number > self.least else None


# Every setting that must hold a number (app.py gives the defaults): text that is no number would stop
# the site only at the first request that reads it, with a 500.
NUMERIC_SETTINGS = {
    "MAX_CONTENT_LENGTH": Numeric("bytes", 1),
    "BACKUP_MAX_BYTES": Numeric("bytes", 1),
    "PERMANENT_SESSION_LIFETIME": Numeric("seconds", 1),
    "JOIN_FAILURES_ALLOWED": Numeric("wrong codes", 0),
    "JOIN_FAILURES_ALLOWED_IN_ALL": Numeric("wrong codes", 0),
    "JOIN_FAILURES_FROM_NEW_ADDRESSES": Numeric("wrong codes", 0),
    "JOIN_NEW_ADDRESS_DAYS": Numeric("days", 0),
    "JOIN_FAILURE_WINDOW_SECONDS": Numeric("seconds", 1),
    "IMPORTS_ALLOWED": Numeric("backups", 0),
    "IMPORT_WINDOW_SECONDS": Numeric("seconds", 1),
    "LIVE_POLL_MS": Numeric("milliseconds", 1),
    "COMPANION_REPLICA_MAX_LAG": Numeric("seconds", 0, whole=False),
}


class SettingError(ValueError):
    """A setting the site cannot start with."""


def check_settings(app: Flask) -> None:
    """SettingError naming the setting, however it was set (environment or instance/config.py), so that
    the site does not start on a typing slip (a number that is none, a folder replica's URL that names
    another folder than Litestream's); a numeric setting is kept as the number it reads as."""
    for name, numeric in NUMERIC_SETTINGS.items():
        value = app.config.get(name)
        number = numeric.read(value)
        if number is None:
            full_name = name if name.startswith(f"{ENV_PREFIX}_") else f"{ENV_PREFIX}_{name}"
            raise SettingError(f"{full_name} must be {numeric.described()}, not {value!r}.")
        app.config[name] = number
    if url := app.config.get("COMPANION_REPLICA_URL"):
        try:
            replicas.replica_folder(url)
        except ValueError as error:
            raise SettingError(f"COMPANION_REPLICA_URL: {error}") from None


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
