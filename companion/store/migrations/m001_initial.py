"""Migration 1: groups, players, plays, seats, events, results and the join limits."""

from sqlite_utils import Database


def m001_initial(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE groups (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            token TEXT NOT NULL UNIQUE,
            join_code TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            colour TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX players_group_name ON players(group_id, name COLLATE NOCASE);
        CREATE TABLE plays (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
            counted INTEGER NOT NULL DEFAULT 1,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            version INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX plays_group_status_ended ON plays(group_id, status, ended_at);
        CREATE INDEX plays_group_game_ended ON plays(group_id, game, ended_at);
        CREATE TABLE seats (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            colour TEXT NOT NULL,
            PRIMARY KEY (play_id, seat),
            UNIQUE (play_id, player_id)
        );
        CREATE INDEX seats_player ON seats(player_id);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (play_id, seq)
        );
        CREATE TABLE results (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES players(id),
            total INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            breakdown TEXT NOT NULL,
            PRIMARY KEY (play_id, player_id)
        );
        CREATE INDEX results_player ON results(player_id, play_id);
        CREATE TABLE join_failures (
            id INTEGER PRIMARY KEY,
            client TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX join_failures_client_at ON join_failures(client, at);
        """
    )
