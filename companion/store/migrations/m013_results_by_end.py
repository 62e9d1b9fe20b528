"""Migration 13: an index on the results' end time within a group."""

from __future__ import annotations

from sqlite_utils import Database


def m013_results_by_end(db: Database) -> None:
    """An index on the results' end time within a group, so statistics over a period read only its plays."""
    db.execute("CREATE INDEX results_by_end ON results(group_id, counted, ended_at)")
