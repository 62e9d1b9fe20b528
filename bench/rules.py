"""Throughput of the pure rules: how many scorings a second one core does."""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.games import great_western_trail as gwt


def per_second(work: Callable[[], object], seconds: float = 1.0) -> float:
    """Calls of ``work`` per second, measured over about ``seconds``."""
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            work()
        calls += 100
    return calls / elapsed


def gwt_four_player_tally() -> Callable[[], object]:
    tallies = [
        gwt.Tally(name=name, dollars=23 + i, buildings_vp=12, cities_vp=8 - i, stations_vp=10, hazards_vp=7,
                  cattle_vp=21 + i,
                  objectives=(gwt.Objective(3, 0, True), gwt.Objective(5, 3, True),
                              gwt.Objective(4, 2, False)),
                  station_masters=(key,), workers=gwt.Workers(5, 6, 2), disc_cleared=True,
                  job_market_token=i == 0, hazards=3, certificates=2, teepee_pairs=1)
        for i, (name, key) in enumerate(zip(("Anna", "Ben", "Cara", "Dan"),
                                            ("workers", "objectives", "hazards", "teepees"), strict=True))
    ]
    return lambda: gwt.final_result(2, tallies)


# (label, the work to repeat); each game adds its rows
RULE_BENCHMARKS: list[tuple[str, Callable[[], Callable[[], object]]]] = [
    ("4-player Great Western Trail tallies", gwt_four_player_tally),
]
