"""Migration 6: group and play ids never reused, memberships on the server, and a trash.

A phone that kept a deleted group's id never finds a later group under it; its cookie carries only
its memberships' random tokens; a play in the trash counts in no statistics."""

import re

from sqlite_utils import Database


def _rebuild_with_autoincrement(db: Database, table: str) -> None:
    """Rebuild ``table`` with an AUTOINCREMENT ``id`` (a plain one reuses the largest id once deleted).

    SQLite's twelve-step recipe: built anew from its stored definition, its rows copied with their ids,
    its indexes and triggers (and others' triggers naming it) put back; with foreign keys off (``migrate``).
    """
    definition = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                            [table]).fetchone()[0]
    new_definition, count = re.subn(r"\bid INTEGER PRIMARY KEY\b(?! AUTOINCREMENT)",
                                    "id INTEGER PRIMARY KEY AUTOINCREMENT", definition, count=1)
    if count != 1:
        raise RuntimeError(f"{table} has no plain integer id to rebuild")
    new_definition = re.sub(rf"^CREATE TABLE \"?{table}\"?", f"CREATE TABLE new_{table}", new_definition)
    dependants = db.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> ? AND "
        "(tbl_name = ? OR (type = 'trigger' AND sql LIKE ?))",
        [table, table, f"%{table}%"],
    ).fetchall()
    triggers = [(name, sql) for kind, name, sql in dependants
                if kind == "trigger" and re.search(rf"\b{table}\b", sql)]
    indexes = [sql for kind, _name, sql in dependants if kind == "index"]
    for name, _sql in triggers:
        db.execute(f'DROP TRIGGER "{name}"')
    columns = ", ".join(f'"{column}"' for _cid, column, *_rest in db.execute(f'PRAGMA table_info("{table}")'))
    db.execute(new_definition)
    db.execute(f'INSERT INTO "new_{table}" ({columns}) SELECT {columns} FROM "{table}"')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE "new_{table}" RENAME TO "{table}"')
    for sql in indexes:
        db.execute(sql)
    for _name, sql in triggers:
        db.execute(sql)


def m006_private_groups(db: Database) -> None:
    _rebuild_with_autoincrement(db, "groups")
    _rebuild_with_autoincrement(db, "plays")
    for statement in (
        "ALTER TABLE groups ADD COLUMN deleted_at TEXT",
        "ALTER TABLE plays ADD COLUMN deleted_at TEXT",
        "CREATE INDEX groups_deleted ON groups(deleted_at) WHERE deleted_at IS NOT NULL",
        "CREATE INDEX plays_deleted ON plays(group_id, deleted_at) WHERE deleted_at IS NOT NULL",
        """CREATE TABLE memberships (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            token TEXT NOT NULL UNIQUE,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL DEFAULT '',
            joined_at TEXT NOT NULL,
            last_seen TEXT NOT NULL
        )""",
        "CREATE INDEX memberships_group ON memberships(group_id)",
        # the join-code limit also counts every address's wrong codes together
        "CREATE INDEX join_failures_at ON join_failures(at)",
    ):
        db.execute(statement)
    _count_only_plays_outside_the_trash(db)


def _count_only_plays_outside_the_trash(db: Database) -> None:
    """The statistics triggers of ``m002_statistics`` with "counted" read as "counted and not in the trash"
    (and the play's also fired by ``deleted_at``); ``results.counted``, the copy they read, follows."""
    rewrites = (
        ("p.counted = 1", "p.counted = 1 AND p.deleted_at IS NULL"),
        ("OLD.counted = 1", "OLD.counted = 1 AND OLD.deleted_at IS NULL"),
        ("NEW.counted = 1", "NEW.counted = 1 AND NEW.deleted_at IS NULL"),
        ("SELECT group_id, game, counted, ended_at FROM plays",
         "SELECT group_id, game, counted AND deleted_at IS NULL, ended_at FROM plays"),
        ("counted = NEW.counted", "counted = NEW.counted AND NEW.deleted_at IS NULL"),
        ("AFTER UPDATE OF group_id, game, counted, ended_at ON plays",
         "AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays"),
    )
    for name in ("results_statistics_insert", "plays_statistics_update"):
        sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                         [name]).fetchone()[0]
        for old, new in rewrites:
            sql = sql.replace(old, new)
        db.execute(f"DROP TRIGGER {name}")
        db.execute(sql)
    db.execute("UPDATE results SET counted = (SELECT counted AND deleted_at IS NULL FROM plays "
               "WHERE plays.id = results.play_id)")
