"""Strict JSON Schema checks shared by the scoring API and the file imports, and the path of a bad field."""

import re
from collections.abc import Callable, Iterable
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


class RepeatedKey(ValueError):
    """A JSON object naming a field twice: Python would keep the last value without a word."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of a JSON parser that refuses an object naming a field twice."""
    document = dict(pairs)
    if len(document) < len(pairs):
        seen: set[str] = set()
        raise RepeatedKey(next(key for key, _ in pairs if key in seen or seen.add(key)))
    return document


_SURROGATE = re.compile("[\ud800-\udfff]")


def broken_text(value: Any) -> bool:
    """A string with a lone surrogate: JSON's escapes can write one, but no page or file can hold it."""
    return isinstance(value, str) and _SURROGATE.search(value) is not None


def first_bad(document: Any, bad: Callable[[Any], bool]) -> tuple[str, Any] | None:
    """The path and value of the first value ``bad`` picks ("" for the document itself), or None; a bad
    key is given at the path of its object."""
    stack: list[tuple[Any, tuple]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        if bad(value):
            return json_path(path), value
        if isinstance(value, dict):
            key = next((key for key in value if bad(key)), None)
            if key is not None:
                return json_path(path), key
            stack.extend((item, (*path, key)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, (*path, n)) for n, item in enumerate(value))
    return None
