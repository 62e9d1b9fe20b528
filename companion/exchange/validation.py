"""Strict JSON Schema checks shared by the scoring API and the file imports, and the path of a bad field.

Neither the API nor the exchange formats own this: both check untrusted JSON the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.validators import extend


# JSON Schema counts 5.0 as an integer; the contract does not, and never a boolean either.
def _is_whole_number(checker: Any, instance: Any) -> bool:
    return type(instance) is int


StrictValidator = extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_whole_number),
)


def json_path(parts: Iterable[Any]) -> str:
    """``["players", 1, "dollars"]`` → ``players[1].dollars``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
