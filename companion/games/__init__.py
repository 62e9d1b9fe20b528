"""The one registry of the games with rules of their own (a group's own games are scored by their sheet),
and what every game module offers: everything finds a game's rules here by its slug, nowhere else."""

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from companion.games import gold_west, great_western_trail, mayflower
from companion.games.common import GameInfo, PlaySetup, UnknownGame
from companion.messages import Message


@runtime_checkable
class GameRules(Protocol):
    """What a game module offers: its facts, its play log folded into a state, its final tally checked."""

    GAME: GameInfo
    EVENT_KINDS: tuple[str, ...]  # the events of its play log (the generic correction aside)
    LOWEST_SCORE: int | None  # the lowest running score its track shows; None: no lowest
    # How other apps name it (BG Stats, BoardGameGeek), each with the options its plays start with.
    KNOWN_AS: Mapping[str, Mapping[str, Any]]
    BGG_IDS: Mapping[int, Mapping[str, Any]]

    def initial_state(self, setup: PlaySetup) -> Any:
        """The state before the first event."""

    def apply_event(self, state: Any, kind: str, payload: Mapping[str, Any]) -> Any:
        """The state after one more event; RulesError for an event the state does not allow."""

    def running_scores(self, state: Any) -> tuple[int, ...]:
        """Points scored during play so far, per seat."""

    def check_final_tally(self, state: Any, final_payload: Mapping[str, Any], names: Sequence[str]) -> None:
        """Refuse a stored final tally the rules do not allow (RulesError)."""

    def final_tie_breakers(self, state: Any | None, final_payload: Mapping[str, Any] | None,
                           seats: int) -> list[tuple[int, ...]] | None:
        """What breaks equal totals per seat ("larger wins"), or None where the game has no tie-breaker."""

    def check_corrected_tally(self, state: Any | None, final_payload: Mapping[str, Any] | None,
                              names: Sequence[str], breakdowns: Sequence[Mapping[str, int]]) -> None:
        """Refuse corrected rows no final tally could give, or whose ranking needs what it did not record."""

    def totals_tie_breakers(self, state: Any | None) -> tuple[tuple[str, Message, list[int | None]], ...]:
        """What typed totals ask of each player besides, for a tie: payload key, label, starting values."""

    def check_typed_totals(self, state: Any | None, final_payload: Mapping[str, Any],
                           names: Sequence[str]) -> None:
        """Refuse totals typed at the end of play whose ranking needs a tie-breaker they lack (RulesError)."""


RULES: dict[str, GameRules] = {module.GAME.slug: module
                               for module in (mayflower, great_western_trail, gold_west)}
GAMES: dict[str, GameInfo] = {slug: module.GAME for slug, module in RULES.items()}


def get_game(slug: str) -> GameInfo:
    try:
        return GAMES[slug]
    except KeyError:
        raise UnknownGame("There is no game called %(game)s.", game=repr(slug)) from None
