"""What the store refuses, the rows it cannot find, the rows it finds grouped, and a list's ``?`` marks."""

from collections.abc import Callable, Iterable, Sized
from typing import Any

from companion.messages import Refused


class StoreError(Refused):
    """A change the stored data does not allow (a finished play, a clash); its message is for a person."""


class StaleVersion(StoreError):
    """An edit based on a view of the play that another phone has changed since."""


class NotFound(LookupError):
    """A row that does not exist (or not in the group asked about)."""


def found(row: tuple | None, what: str) -> tuple:
    """The row a query found, or NotFound(``what``)."""
    if row is None:
        raise NotFound(what)
    return row


def grouped(rows: Iterable[tuple], make: Callable[..., Any] | None = None) -> dict[Any, list]:
    """The rest of each row (or ``make(*rest)``), in order, by the row's first column (a play's id, say)."""
    groups: dict[Any, list] = {}
    for key, *rest in rows:
        groups.setdefault(key, []).append(tuple(rest) if make is None else make(*rest))
    return groups


def marks(values: Sized) -> str:
    """The ``?`` of each value, for ``IN (…)``."""
    return ",".join("?" * len(values))
