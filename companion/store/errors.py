"""What the store refuses, and the rows it cannot find."""

from __future__ import annotations

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
