"""Migration 9: every stored time in UTC with its offset, as the companion writes them.

Backups imported before times were checked could bring stamps without an offset (which the
statistics cannot compare) or with another one (which sort wrongly as text)."""

from datetime import UTC, datetime

from sqlite_utils import Database


def _in_utc(stamp: str) -> str:
    """A stored moment as the companion writes it (UTC, ``+00:00``); a stamp without offset counts as UTC."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return stamp
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).isoformat()


def m009_times_in_utc(db: Database) -> None:
    for table, column in (("plays", "started_at"), ("plays", "ended_at"), ("plays", "first_ended_at"),
                          ("events", "created_at"), ("players", "created_at")):
        rows = db.execute(f"SELECT id, {column} FROM {table} "
                          f"WHERE {column} IS NOT NULL AND {column} NOT LIKE '%+00:00'").fetchall()
        for row_id, stamp in rows:
            if _in_utc(stamp) != stamp:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", [_in_utc(stamp), row_id])
