"""Skill ratings from the group's plays: openskill's Plackett–Luce model, per game and overall. A play of
one side (cooperative, too) changes no rating; shown is μ − 3σ, the skill the model is fairly sure of."""

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
OVERALL = ""  # the scope of the rating over every game


def rate_play(current: Mapping[int, tuple[float, float]],
              placings: Sequence[tuple[int, int, str | None]],
              cooperative: bool = False) -> dict[int, tuple[float, float]]:
    """Everybody's (μ, σ) after one play, from (player id, rank, team or None); {} if it teaches nothing."""
    if cooperative:
        return {}
    sides: dict[object, list[tuple[int, int]]] = {}
    for player_id, rank, team in placings:
        sides.setdefault(team if team is not None else ("alone", player_id), []).append((player_id, rank))
    teams = list(sides.values())
    if len(teams) < 2:  # nobody to be better or worse than
        return {}
    before = [[MODEL.rating(*current.get(player_id, (MODEL.mu, MODEL.sigma))) for player_id, _ in team]
              for team in teams]
    after = MODEL.rate(before, ranks=[min(rank for _, rank in team) for team in teams])
    return {player_id: (new.mu, new.sigma) for team, rated in zip(teams, after, strict=True)
            for (player_id, _), new in zip(team, rated, strict=True)}
