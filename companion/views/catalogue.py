"""Every game a page may name: the three with their own rules, and each group's other games (slug
``custom-<id>``), turned into games here alone so the history, statistics and exports treat them alike."""

import contextlib
from collections.abc import Iterator, Mapping, Sequence

from flask import g

from companion import store
from companion.games import GAMES, custom
from companion.games.common import FinalResult, GameInfo, UnknownGame
from companion.web.database import get_db


def group_game(slug: str) -> store.GroupGame | None:
    """The group game a ``custom-<id>`` slug names (newest sheet), once per request; None otherwise."""
    game_id = custom.game_id_of(slug)
    if game_id is None:
        return None
    known = g.setdefault("group_games", {})
    if game_id not in known:
        try:
            known[game_id] = store.group_game_by_id(get_db(), game_id)
        except store.NotFound:
            known[game_id] = None
    return known[game_id]


def info_of(game: store.GroupGame, sheet: custom.ScoreSheet | None = None) -> GameInfo:
    return custom.game_info(game.id, game.name, sheet or custom.parse_sheet(game.sheet), game.bgg_id)


def get_game(slug: str) -> GameInfo:
    """The game with this slug, built in or a group's; raises UnknownGame for any other."""
    if slug in GAMES:
        return GAMES[slug]
    game = group_game(slug)
    if game is None:
        raise UnknownGame("There is no game called %(game)s.", game=repr(slug))
    return info_of(game)


def play_sheet(play: store.Play) -> tuple[store.GroupGame, custom.ScoreSheet]:
    """The group game of a play and the sheet version the play is scored with."""
    game = group_game(play.game)
    if game is None or game.group_id != play.group_id:
        raise UnknownGame("There is no game called %(game)s.", game=repr(play.game))
    version = play.options.get(custom.SHEET_OPTION)
    if type(version) is int and version != game.version_id:
        # a version that is gone (it never is, versions are kept): the newest sheet is the best guess
        with contextlib.suppress(store.NotFound):
            game = store.group_game_version(get_db(), game.id, version)
    return game, custom.parse_sheet(game.sheet)


def play_game(play: store.Play) -> GameInfo:
    """The game as the play is scored: a group's game with the sheet version the play keeps."""
    if play.game in GAMES:
        return GAMES[play.game]
    return info_of(*play_sheet(play))


def rank_by_sheet(play: store.Play, breakdowns: Sequence[Mapping[str, int]], teams: list[str] | None,
                  won: bool | None) -> FinalResult:
    """A group game's play ranked by the sheet it is scored with."""
    scores = list(zip((seat.name for seat in play.seats), breakdowns, strict=True))
    return custom.rank_sheet(play.game, play_sheet(play)[1], scores, teams, won)


def listed_group_games(group_id: int) -> list[store.GroupGame]:
    """The group's own games by name, kept for the rest of the request: naming their plays asks no more."""
    games = store.list_group_games(get_db(), group_id)
    g.setdefault("group_games", {}).update((game.id, game) for game in games)
    return games


def group_games(group_id: int) -> dict[str, GameInfo]:
    """The games a group can play: the three, then its own by name."""
    return {**GAMES, **{custom.slug_for(game.id): info_of(game) for game in listed_group_games(group_id)}}


def lowest_wins(group_id: int) -> frozenset[str]:
    """The games a group can play whose lowest total wins (a group's own game: by its newest sheet)."""
    return frozenset(slug for slug, game in group_games(group_id).items() if game.lowest_wins)


class AnyGame(Mapping[str, GameInfo]):
    """The pages' ``games``: looks any slug up; iterating gives the three built-in games."""

    def __getitem__(self, slug: str) -> GameInfo:
        try:
            return get_game(slug)
        except UnknownGame:
            raise KeyError(slug) from None

    def __contains__(self, slug: object) -> bool:
        return isinstance(slug, str) and (slug in GAMES or group_game(slug) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(GAMES)

    def __len__(self) -> int:
        return len(GAMES)
