"""Migration 10: the request ids of phones' writes, so that a write sent twice is stored once."""

from sqlite_utils import Database


def m010_request_ids(db: Database) -> None:
    for statement in (
        """CREATE TABLE seen_requests (
            request_id TEXT PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            play_id INTEGER REFERENCES plays(id) ON DELETE CASCADE,
            at TEXT NOT NULL
        )""",
        "CREATE INDEX seen_requests_at ON seen_requests(at)",
        "CREATE INDEX seen_requests_play ON seen_requests(play_id)",
        "CREATE INDEX seen_requests_group ON seen_requests(group_id)",
    ):
        db.execute(statement)
