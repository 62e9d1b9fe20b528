"""Throughput of the pure rules: how many scorings a second one core does."""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.games import gold_west as gw
from companion.games import great_western_trail as gwt
from companion.games import mayflower as mf
from companion.games.common import PlaySetup, Seat


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


def gold_west_four_player_tally() -> Callable[[], object]:
    tallies = [
        gw.PlayerTally(
            name=name, track_vp=38 + 3 * i,
            influence={"forest": 3 + i, "gold": 4 - i, "silver": 2 + (i % 2) * 3, "copper": 5 - (i % 3)},
            settlements={"forest": 1, "gold": i % 2, "silver": 1, "copper": 2 - (i % 2)},
            mining_tokens={"forest": 2, "gold": 1 + i, "silver": 2, "copper": 3 - (i % 2)},
            largest_group=6 - i, second_group=3, wanted=i % 3, investments=2 + (i % 2),
            shipping_bonus_tiles=i % 2, supply_left=4 - i, boomtown_1x1_tokens=1 - (i % 2),
            # an office has two halves: at most two tokens on each
            offices=(gw.OfficeClaim(office, 1, count=4, camps=2, settlements=1),
                     *((gw.OfficeClaim("mayor"),) if i < 2 else ())),
        )
        for i, (name, office) in enumerate(zip(("Anna", "Ben", "Cara", "Dan"),
                                               ("docks", "frontier", "deeds", "docks"), strict=True))
    ]
    return lambda: gw.final_result(tallies)


def mayflower_crowded_completion() -> Callable[[], object]:
    """A tile completing a road and a city while all 25 settlers of five players stand on the map."""
    seats = tuple(Seat(name, colour) for name, colour in zip(("Anna", "Ben", "Cara", "Dan", "Eve"),
                                                             ("red", "blue", "green", "yellow", "black"),
                                                             strict=True))
    state = mf.apply_event(mf.initial_state(PlaySetup("mayflower", seats)), "west_edge", {"column": 12})
    for _ in range(6):  # six scorings walk the surveyors to columns 3 and 3
        state = mf.apply_event(state, "place", {"seat": 0, "role": "bandit", "column": 1})
        state = mf.apply_event(state, "complete", {"features": [
            {"kind": "road", "tiles": 1, "settlers": [state.settlers[-1].id]}]})
    roles = ("bandit", "sheriff", "farmer", "trapper", "bandit")
    for seat in range(5):
        for number, role in enumerate(roles):
            column = 1 + (seat + 3 * number) % 8  # spread over columns 1–8, some east of the surveyors
            state = mf.apply_event(state, "place", {"seat": seat, "role": role, "column": column})
    bandits = [s.id for s in state.settlers if s.role == "bandit"][:3]
    sheriffs = [s.id for s in state.settlers if s.role == "sheriff"][-2:]
    payload = {"features": [{"kind": "road", "tiles": 5, "trading_posts": 1, "settlers": bandits},
                            {"kind": "city", "tiles": 4, "flags": 2, "settlers": sheriffs}]}
    return lambda: mf.apply_event(state, "complete", payload)


# (label, the work to repeat); each game adds its rows
RULE_BENCHMARKS: list[tuple[str, Callable[[], Callable[[], object]]]] = [
    ("4-player Great Western Trail tallies", gwt_four_player_tally),
    ("4-player Gold West end scorings", gold_west_four_player_tally),
    ("Mayflower feature scorings with 5 players and 25 settlers on the map", mayflower_crowded_completion),
]
