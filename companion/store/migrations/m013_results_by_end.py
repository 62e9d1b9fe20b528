"""Migration 13: an index on the results' end within a group, so a period's statistics read its plays."""

from sqlite_utils import Database


def m013_results_by_end(db: Database) -> None:
    db.execute("CREATE INDEX results_by_end ON results(group_id, counted, ended_at)")
