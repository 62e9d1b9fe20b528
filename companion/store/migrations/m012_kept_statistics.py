"""Migration 12: records kept per player and game, counts per game and sums per game and month.

The statistics page then reads a few rows per player and game instead of every result. A play in the
trash counts as left out."""

from sqlite_utils import Database

# A month's sums of each player's scores in one game (the chart over time): add to a row that exists.
_ADD_MONTH = ("ON CONFLICT (group_id, game, player_id, month) DO UPDATE SET "
              "results = results + excluded.results, points = points + excluded.points")
# Triggers only mark a player's record as behind, for ``store.history`` to bring up to date before it
# reads it: ``pending`` results added after its last play (it goes on from there), or ``stale`` = 2: recount.
_MARK_RECORD = ("ON CONFLICT (group_id, game, player_id) DO UPDATE SET "
                "pending = pending + excluded.pending, stale = MAX(stale, excluded.stale)")


def m012_kept_statistics(db: Database) -> None:
    for statement in (
        """CREATE TABLE player_records (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,  -- a game's slug, or '' for all games together
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            plays INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            points INTEGER NOT NULL DEFAULT 0,
            best INTEGER,
            worst INTEGER,
            current_streak INTEGER NOT NULL DEFAULT 0,
            longest_streak INTEGER NOT NULL DEFAULT 0,
            last_ended_at TEXT NOT NULL DEFAULT '',  -- the latest counted play: its end and id
            last_play_id INTEGER NOT NULL DEFAULT 0,
            pending INTEGER NOT NULL DEFAULT 0,
            stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (group_id, game, player_id)
        )""",
        "CREATE INDEX player_records_stale ON player_records(group_id) WHERE stale > 0",
        """CREATE TABLE game_records (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            finished INTEGER NOT NULL,  -- counted or not (outside the trash)
            plays INTEGER NOT NULL,  -- counted
            latest TEXT,  -- when a counted play of it was last finished
            PRIMARY KEY (group_id, game)
        )""",
        """CREATE TABLE monthly_scores (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            month TEXT NOT NULL,
            results INTEGER NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, player_id, month)
        )""",
        # fill them from what is stored; the records are counted when the statistics are first shown
        "INSERT INTO player_records (group_id, game, player_id, stale) "
        "SELECT DISTINCT group_id, game, player_id, 2 FROM results WHERE counted = 1 "
        "UNION SELECT DISTINCT group_id, '', player_id, 2 FROM results WHERE counted = 1",
        "INSERT INTO game_records (group_id, game, finished, plays, latest) "
        "SELECT group_id, game, SUM(status = 'finished' AND deleted_at IS NULL), "
        "SUM(status = 'finished' AND counted = 1 AND deleted_at IS NULL), "
        "MAX(CASE WHEN status = 'finished' AND counted = 1 AND deleted_at IS NULL THEN ended_at END) "
        "FROM plays GROUP BY group_id, game",
        "INSERT INTO monthly_scores (group_id, game, player_id, month, results, points) "
        "SELECT group_id, game, player_id, substr(ended_at, 1, 7), COUNT(*), SUM(total) FROM results "
        "WHERE counted = 1 AND ended_at IS NOT NULL "
        "GROUP BY group_id, game, player_id, substr(ended_at, 1, 7)",
        # results: a new one marks its player's records; its month counts once its play has ended
        f"""CREATE TRIGGER results_records_insert AFTER INSERT ON results
        BEGIN
            INSERT INTO player_records (group_id, game, player_id, pending, stale)
            SELECT p.group_id, scope.game, NEW.player_id, 1, 1
            FROM plays p, (SELECT p2.game AS game FROM plays p2 WHERE p2.id = NEW.play_id UNION ALL SELECT '')
                 AS scope
            WHERE p.id = NEW.play_id AND p.counted = 1 AND p.deleted_at IS NULL
            {_MARK_RECORD};
            INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT p.group_id, p.game, NEW.player_id, substr(p.ended_at, 1, 7), 1, NEW.total
            FROM plays p WHERE p.id = NEW.play_id AND p.counted = 1 AND p.deleted_at IS NULL
                               AND p.ended_at IS NOT NULL
            {_ADD_MONTH};
        END""",
        # (the copies on OLD, not the play: deleting a play removes its results after the play row)
        f"""CREATE TRIGGER results_records_delete AFTER DELETE ON results WHEN OLD.counted = 1
        BEGIN
            UPDATE player_records SET stale = 2
            WHERE group_id = OLD.group_id AND game IN (OLD.game, '') AND player_id = OLD.player_id;
            INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT OLD.group_id, OLD.game, OLD.player_id, substr(OLD.ended_at, 1, 7), -1, -OLD.total
            WHERE OLD.ended_at IS NOT NULL
            {_ADD_MONTH};
        END""",
        # a play counted or left out (or put in the trash or back), moved, or given another end:
        # recount its players' records
        f"""CREATE TRIGGER plays_records_update
        AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays
        WHEN OLD.counted IS NOT NEW.counted OR OLD.game IS NOT NEW.game OR OLD.group_id IS NOT NEW.group_id
             OR (OLD.ended_at IS NOT NULL AND OLD.ended_at IS NOT NEW.ended_at)
             OR OLD.deleted_at IS NOT NEW.deleted_at
        BEGIN
            UPDATE player_records SET stale = 2
            WHERE group_id = OLD.group_id AND game IN (OLD.game, '')
              AND player_id IN (SELECT player_id FROM results WHERE play_id = OLD.id);
            INSERT INTO player_records (group_id, game, player_id, stale)
            SELECT NEW.group_id, scope.game, r.player_id, 2
            FROM results r, (SELECT NEW.game AS game UNION ALL SELECT '') AS scope
            WHERE r.play_id = NEW.id AND NEW.counted = 1 AND NEW.deleted_at IS NULL
            {_MARK_RECORD};
        END""",
        f"""CREATE TRIGGER plays_months_update
        AFTER UPDATE OF group_id, game, counted, ended_at, deleted_at ON plays
        BEGIN
            {_month_sums("OLD", -1)}
            {_month_sums("NEW", 1)}
        END""",
    ):
        db.execute(statement)
    # a play's part in its game's counts: finished, finished and counted
    for event, row, sign in (("INSERT", "NEW", 1), ("DELETE", "OLD", -1)):
        db.execute(f"""CREATE TRIGGER plays_game_records_{event.lower()} AFTER {event} ON plays
        BEGIN
            {_game_count(row, sign)}
        END""")
    db.execute(f"""CREATE TRIGGER plays_game_records_update
        AFTER UPDATE OF group_id, game, status, counted, ended_at, deleted_at ON plays
        BEGIN
            {_game_count("OLD", -1)}
            {_game_count("NEW", 1)}
        END""")


def _month_sums(row: str, sign: int) -> str:
    """A trigger statement adding (sign 1) or taking away (-1) the play ``row``'s results in its month."""
    return f"""INSERT INTO monthly_scores (group_id, game, player_id, month, results, points)
            SELECT {row}.group_id, {row}.game, r.player_id, substr({row}.ended_at, 1, 7),
                   {sign}, {sign} * r.total
            FROM results r WHERE r.play_id = {row}.id AND {row}.counted = 1 AND {row}.deleted_at IS NULL
                                 AND {row}.ended_at IS NOT NULL
            {_ADD_MONTH};"""


def _game_count(row: str, sign: int) -> str:
    """Trigger statements adding (sign 1) or taking away (-1) the play ``row`` in its game's counts."""
    return f"""INSERT INTO game_records (group_id, game, finished, plays)
            SELECT {row}.group_id, {row}.game,
                   {sign} * ({row}.status = 'finished' AND {row}.deleted_at IS NULL),
                   {sign} * ({row}.status = 'finished' AND {row}.counted = 1 AND {row}.deleted_at IS NULL)
            WHERE {row}.status = 'finished'
            ON CONFLICT (group_id, game) DO UPDATE SET finished = finished + excluded.finished,
                                                       plays = plays + excluded.plays;
            UPDATE game_records SET latest = (
                SELECT MAX(ended_at) FROM plays WHERE group_id = {row}.group_id AND status = 'finished'
                AND counted = 1 AND game = {row}.game AND deleted_at IS NULL)
            WHERE group_id = {row}.group_id AND game = {row}.game;"""
