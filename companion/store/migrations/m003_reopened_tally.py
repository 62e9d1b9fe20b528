"""Migration 3: what a reopened play's undone final tally held, so finishing it again starts there.

``reopened_at_version`` is the play's version right after the undo (a later one: the play changed
since); ``first_ended_at`` the end the play keeps when it is finished again."""

from sqlite_utils import Database


def m003_reopened_tally(db: Database) -> None:
    for column in ("reopened_tally TEXT", "reopened_at_version INTEGER", "first_ended_at TEXT"):
        db.execute(f"ALTER TABLE plays ADD COLUMN {column}")
