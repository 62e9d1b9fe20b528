"""Migration 19: the winners' (rank 1) points per group, game and breakdown row, so that "where the
winners' points come from" reads a few rows; kept like ``row_points``, by triggers like its (m002, m006)."""

from sqlite_utils import Database

_ADD_POINTS = "ON CONFLICT (group_id, game, row) DO UPDATE SET points = points + excluded.points"


def _winners_points(play: str, sign: str) -> str:
    """A trigger statement adding (sign '') or taking away ('-') the winners' rows of the play ``play``."""
    return f"""INSERT INTO winner_row_points (group_id, game, row, points)
            SELECT {play}.group_id, {play}.game, j.key, {sign}j.value FROM results r, json_each(r.breakdown) j
            WHERE r.play_id = {play}.id AND r.rank = 1 AND {play}.counted = 1 AND {play}.deleted_at IS NULL
            {_ADD_POINTS};"""


def m019_winner_row_points(db: Database) -> None:
    for statement in (
        """CREATE TABLE winner_row_points (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            row TEXT NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, row)
        )""",
        "INSERT INTO winner_row_points (group_id, game, row, points) "
        "SELECT r.group_id, r.game, j.key, SUM(j.value) FROM results r, json_each(r.breakdown) j "
        "WHERE r.counted = 1 AND r.rank = 1 GROUP BY r.group_id, r.game, j.key",
        f"""CREATE TRIGGER results_winner_points_insert AFTER INSERT ON results WHEN NEW.rank = 1
        BEGIN
            INSERT INTO winner_row_points (group_id, game, row, points)
            SELECT p.group_id, p.game, j.key, j.value FROM plays p, json_each(NEW.breakdown) j
            WHERE p.id = NEW.play_id AND p.counted = 1 AND p.deleted_at IS NULL
            {_ADD_POINTS};
        END""",
        # the copies on OLD, not the play: deleting a play removes its results after the play row
        f"""CREATE TRIGGER results_winner_points_delete AFTER DELETE ON results
        WHEN OLD.counted = 1 AND OLD.rank = 1
        BEGIN
            INSERT INTO winner_row_points (group_id, game, row, points)
            SELECT OLD.group_id, OLD.game, j.key, -j.value FROM json_each(OLD.breakdown) j WHERE true
            {_ADD_POINTS};
        END""",
        f"""CREATE TRIGGER plays_winner_points_update
        AFTER UPDATE OF group_id, game, counted, deleted_at ON plays
        WHEN OLD.group_id IS NOT NEW.group_id OR OLD.game IS NOT NEW.game OR OLD.counted IS NOT NEW.counted
             OR OLD.deleted_at IS NOT NEW.deleted_at
        BEGIN
            {_winners_points("OLD", "-")}
            {_winners_points("NEW", "")}
        END""",
    ):
        db.execute(statement)
