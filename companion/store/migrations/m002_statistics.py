"""Migration 2: copies and running sums that turn the group statistics into index scans.

Each result carries its play's group, game, counted flag and end, so a player's results come out of one
index in time order; ``row_points`` sums each player's breakdown rows per game, ``rivalries`` counts
who finished ahead of whom. Triggers keep them right on every write (a result's triggers see its
play's other results: row triggers run per row)."""

from sqlite_utils import Database

# Upserts into the statistics' running sums (row_points, rivalries): add to a row that exists.
_ADD_POINTS = "ON CONFLICT (group_id, game, player_id, row) DO UPDATE SET points = points + excluded.points"
_ADD_PAIRS = ("ON CONFLICT (group_id, game, player_id, opponent_id) DO UPDATE SET "
              "ahead = ahead + excluded.ahead, together = together + excluded.together")


def m002_statistics(db: Database) -> None:
    for statement in (
        "ALTER TABLE results ADD COLUMN group_id INTEGER",
        "ALTER TABLE results ADD COLUMN game TEXT",
        "ALTER TABLE results ADD COLUMN counted INTEGER",
        "ALTER TABLE results ADD COLUMN ended_at TEXT",
        "UPDATE results SET (group_id, game, counted, ended_at) = "
        "(SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = results.play_id)",
        "CREATE INDEX results_by_game "
        "ON results(group_id, counted, game, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX results_by_player "
        "ON results(group_id, counted, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX plays_statistics ON plays(group_id, status, counted, game, ended_at)",
        """CREATE TABLE row_points (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            row TEXT NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, player_id, row)
        )""",
        """CREATE TABLE rivalries (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            opponent_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            ahead INTEGER NOT NULL,  -- plays in which player_id finished ahead of opponent_id
            together INTEGER NOT NULL,  -- plays they both took part in
            PRIMARY KEY (group_id, game, player_id, opponent_id)
        )""",
        "INSERT INTO row_points (group_id, game, player_id, row, points) "
        "SELECT r.group_id, r.game, r.player_id, j.key, SUM(j.value) "
        "FROM results r, json_each(r.breakdown) j WHERE r.counted = 1 "
        "GROUP BY r.group_id, r.game, r.player_id, j.key",
        "INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together) "
        "SELECT a.group_id, a.game, a.player_id, b.player_id, SUM(a.rank < b.rank), COUNT(*) "
        "FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id "
        "WHERE a.counted = 1 GROUP BY a.group_id, a.game, a.player_id, b.player_id",
        f"""CREATE TRIGGER results_statistics_insert AFTER INSERT ON results
        BEGIN
            UPDATE results SET (group_id, game, counted, ended_at) =
                (SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = NEW.play_id)
            WHERE play_id = NEW.play_id AND player_id = NEW.player_id;
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT p.group_id, p.game, NEW.player_id, j.key, j.value
            FROM plays p, json_each(NEW.breakdown) j WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT p.group_id, p.game, pair.player_id, pair.opponent_id, pair.ahead, 1
            FROM plays p, (
                SELECT NEW.player_id AS player_id, o.player_id AS opponent_id, NEW.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
                UNION ALL
                SELECT o.player_id, NEW.player_id, o.rank < NEW.rank
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
            ) AS pair
            WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_PAIRS};
        END""",
        # the copies on OLD, not the play: deleting a play removes its results after the play row
        f"""CREATE TRIGGER results_statistics_delete AFTER DELETE ON results WHEN OLD.counted = 1
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, OLD.player_id, j.key, -j.value FROM json_each(OLD.breakdown) j
            WHERE true
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, pair.player_id, pair.opponent_id, -pair.ahead, -1
            FROM (
                SELECT OLD.player_id AS player_id, o.player_id AS opponent_id, OLD.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = OLD.play_id
                UNION ALL
                SELECT o.player_id, OLD.player_id, o.rank < OLD.rank
                FROM results o WHERE o.play_id = OLD.play_id
            ) AS pair
            WHERE true
            {_ADD_PAIRS};
        END""",
        f"""CREATE TRIGGER plays_statistics_update AFTER UPDATE OF group_id, game, counted, ended_at ON plays
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, r.player_id, j.key, -j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = OLD.id AND OLD.counted = 1
            {_ADD_POINTS};
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT NEW.group_id, NEW.game, r.player_id, j.key, j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = NEW.id AND NEW.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, a.player_id, b.player_id, -(a.rank < b.rank), -1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = OLD.id AND OLD.counted = 1
            {_ADD_PAIRS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT NEW.group_id, NEW.game, a.player_id, b.player_id, a.rank < b.rank, 1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = NEW.id AND NEW.counted = 1
            {_ADD_PAIRS};
            UPDATE results SET group_id = NEW.group_id, game = NEW.game, counted = NEW.counted,
                               ended_at = NEW.ended_at
            WHERE play_id = NEW.id;
        END""",
    ):
        db.execute(statement)
