"""Migration 22: player, group game and score-sheet ids never reused, as group and play ids (m006).

A plain integer id hands the largest one out again once its row is deleted: a new-play form drawn with a
player deleted since would seat the player added next, and a page of a deleted game would reach the game
added next (a play keeps its sheet version's id too). Events, seats and join failures are never named by
their id on a page."""

from sqlite_utils import Database

from companion.store.migrations.m006_private_groups import _rebuild_with_autoincrement


def m022_stable_player_and_game_ids(db: Database) -> None:
    _rebuild_with_autoincrement(db, "players")
    _rebuild_with_autoincrement(db, "group_games")
    _rebuild_with_autoincrement(db, "group_game_versions")
