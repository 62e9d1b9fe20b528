"""Migration 5: any other game a group plays, and each version of its score sheet.

A play of one has the slug ``custom-<group game id>`` and keeps its sheet version's id in its options,
so editing the sheet never changes old plays."""

from sqlite_utils import Database


def m005_group_games(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE group_games (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            bgg_id INTEGER,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX group_games_name ON group_games(group_id, name COLLATE NOCASE);
        CREATE TABLE group_game_versions (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES group_games(id) ON DELETE CASCADE,
            sheet TEXT NOT NULL,  -- JSON, read by companion.games.custom.parse_sheet
            created_at TEXT NOT NULL
        );
        CREATE INDEX group_game_versions_game ON group_game_versions(game_id, id);
        """
    )
