"""Migration 3: what a reopened play's undone final tally held."""

from __future__ import annotations

from sqlite_utils import Database


def m003_reopened_tally(db: Database) -> None:
    """What a reopened play's undone final tally held, so that finishing it again starts from there.

    ``reopened_tally`` is the undone final event's payload (JSON), ``reopened_at_version`` the play's
    version right after the undo (a later version means the play changed since), and
    ``first_ended_at`` the end time the play keeps when it is finished again.
    """
    for column in ("reopened_tally TEXT", "reopened_at_version INTEGER", "first_ended_at TEXT"):
        db.execute(f"ALTER TABLE plays ADD COLUMN {column}")
