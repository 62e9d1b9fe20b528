"""Migration 16: a request id belongs to the phone (its membership) and the play it was sent for.

Ids were kept for the whole site, so an id first sent to one group made another group's write
"already saved". The ids kept so far belonged to no phone and are forgotten."""

from sqlite_utils import Database


def m016_request_ids_per_phone(db: Database) -> None:
    db.execute("DROP TRIGGER events_request_id")
    db["seen_requests"].drop()
    db.execute("""CREATE TABLE seen_requests (
            request_id TEXT NOT NULL,
            membership_id INTEGER NOT NULL REFERENCES memberships(id) ON DELETE CASCADE,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            play_id INTEGER REFERENCES plays(id) ON DELETE CASCADE,
            at TEXT NOT NULL
        )""")
    db.execute("CREATE UNIQUE INDEX seen_requests_key "
               "ON seen_requests(request_id, membership_id, IFNULL(play_id, 0))")
    for column in ("at", "play_id", "group_id", "membership_id"):
        db["seen_requests"].create_index([column], index_name=f"seen_requests_{column.removesuffix('_id')}")
    db["events"].add_column("membership_id", int)
    db.execute("""CREATE TRIGGER events_request_id AFTER INSERT ON events
        WHEN NEW.request_id IS NOT NULL AND NEW.membership_id IS NOT NULL
        BEGIN
            INSERT INTO seen_requests (request_id, membership_id, group_id, play_id, at)
            SELECT NEW.request_id, NEW.membership_id, group_id, NEW.play_id, NEW.created_at
            FROM plays WHERE id = NEW.play_id;
        END""")
