"""Migration 8: each player's rating per game ('' for all) after each counted play, and where they
went stale: triggers note the earliest play a change touched, and the ratings are computed again from
there when next shown."""

from sqlite_utils import Database


def m008_ratings(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE ratings (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            scope TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            ended_at TEXT NOT NULL,
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            change REAL NOT NULL,  -- of mu - 3 sigma, by this play
            plays INTEGER NOT NULL,  -- rated plays of this player in this scope so far
            PRIMARY KEY (group_id, scope, player_id, ended_at, play_id)
        );
        CREATE INDEX ratings_by_play ON ratings(group_id, scope, ended_at, play_id);
        CREATE INDEX ratings_of_play ON ratings(play_id);
        CREATE TABLE ratings_stale (
            group_id INTEGER PRIMARY KEY REFERENCES groups(id) ON DELETE CASCADE,
            since TEXT NOT NULL
        );
        CREATE TRIGGER results_ratings_insert AFTER INSERT ON results
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT p.group_id, p.ended_at FROM plays p WHERE p.id = NEW.play_id AND p.ended_at IS NOT NULL
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        CREATE TRIGGER results_ratings_delete AFTER DELETE ON results WHEN OLD.ended_at IS NOT NULL
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT OLD.group_id, OLD.ended_at WHERE EXISTS (SELECT 1 FROM groups WHERE id = OLD.group_id)
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        CREATE TRIGGER plays_ratings_update AFTER UPDATE OF counted, ended_at ON plays
        WHEN COALESCE(OLD.ended_at, NEW.ended_at) IS NOT NULL
        BEGIN
            INSERT INTO ratings_stale (group_id, since)
            SELECT NEW.group_id,
                   MIN(COALESCE(OLD.ended_at, NEW.ended_at), COALESCE(NEW.ended_at, OLD.ended_at))
            WHERE true
            ON CONFLICT (group_id) DO UPDATE SET since = MIN(since, excluded.since);
        END;
        """
    )
