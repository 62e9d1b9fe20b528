"""Migration 10: the request ids of phones' writes, so that a write sent twice is stored once."""

from sqlite_utils import Database


def m010_request_ids(db: Database) -> None:
    db.execute("""CREATE TABLE seen_requests (
            request_id TEXT PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            play_id INTEGER REFERENCES plays(id) ON DELETE CASCADE,
            at TEXT NOT NULL
        )""")
    for column in ("at", "play_id", "group_id"):
        db.execute(f"CREATE INDEX seen_requests_{column.removesuffix('_id')} ON seen_requests({column})")
