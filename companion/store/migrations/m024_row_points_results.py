"""Migration 24: ``row_points`` counts the results behind each of its rows and drops a row once none is
left, so a deleted or left-out play's rows no longer stay in the all-time statistics at 0 points. Their
points cannot tell: a row may well sum to 0."""

from sqlite_utils import Database

# the statistics triggers of m002 (as m006 left them), counting a result wherever they add its points
_COUNTED = (
    ("INSERT INTO row_points (group_id, game, player_id, row, points)",
     "INSERT INTO row_points (group_id, game, player_id, row, points, results)"),
    ("j.key, j.value", "j.key, j.value, 1"),
    ("j.key, -j.value", "j.key, -j.value, -1"),
    ("DO UPDATE SET points = points + excluded.points",
     "DO UPDATE SET points = points + excluded.points, results = results + excluded.results"),
)


def m024_row_points_results(db: Database) -> None:
    db.execute("ALTER TABLE row_points ADD COLUMN results INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE row_points SET results = (SELECT COUNT(*) FROM results r, json_each(r.breakdown) j "
               "WHERE (r.group_id, r.counted, r.game, r.player_id) = "
               "(row_points.group_id, 1, row_points.game, row_points.player_id) AND j.key = row_points.row)")
    db.execute("DELETE FROM row_points WHERE results = 0")
    for name in ("results_statistics_insert", "results_statistics_delete", "plays_statistics_update"):
        sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                         [name]).fetchone()[0]
        for old, new in _COUNTED:
            sql = sql.replace(old, new)
        db.execute(f"DROP TRIGGER {name}")
        db.execute(sql)
    db.execute("""CREATE TRIGGER row_points_none_left AFTER UPDATE OF results ON row_points
        WHEN NEW.results = 0
        BEGIN
            DELETE FROM row_points
            WHERE (group_id, game, player_id, row) = (NEW.group_id, NEW.game, NEW.player_id, NEW.row);
        END""")
