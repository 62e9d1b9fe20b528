"""Great Western Trail, editions 1 and 2: the 11 rows of the final tally (rules/great-western-trail.md)."""

from __future__ import annotations

from companion.games.common import GameInfo

GAME = GameInfo(
    slug="great-western-trail",
    name="Great Western Trail",
    min_players=1,  # solo play exists in the 2nd edition only; the 1st needs 2
    max_players=4,
    rows=("money", "buildings", "cities", "stations", "hazards", "cattle", "objectives",
          "station_masters", "workers", "disc", "job_market"),
)
