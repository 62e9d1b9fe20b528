"""Strict JSON Schema checks shared by the scoring API and the file imports, and the path of a bad field."""

from collections.abc import Iterable
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.validators import extend

# JSON Schema counts 5.0 as an integer; the contract does not, and never a boolean either.
StrictValidator = extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, instance: type(instance) is int))


def json_path(parts: Iterable[Any]) -> str:
    """``["players", 1, "dollars"]`` → ``players[1].dollars``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
