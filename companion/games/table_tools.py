"""At the table, for every game: the play's timer, who starts, and its note and variant. They live in the
play's options, which backups and imports carry: ``timer`` is ``{"elapsed": seconds before the current
run, "since": when it started, None while paused}``."""

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from companion.games.common import RulesError, seat_index
from companion.messages import Message

TIMER = "timer"
FIRST_SEAT = "first_seat"
NOTE = "note"
VARIANT = "variant"
NOTE_MAX = 500
VARIANT_MAX = 120
LONGEST_PLAY_SECONDS = 7 * 24 * 3600  # a logged duration beyond a week is a typing error

START, PAUSE, RESUME = "start", "pause", "resume"
TIMER_ACTIONS = (START, PAUSE, RESUME)
_STATE_BEFORE = {START: "not started", PAUSE: "running", RESUME: "paused"}  # where each action starts from
_REFUSED = {START: Message("The timer is already started."),
            PAUSE: Message("The timer is not running (another phone may have paused it)."),
            RESUME: Message("The timer is not paused (another phone may have resumed it).")}


def stored_timer(options: Mapping[str, Any]) -> tuple[int, str | None] | None:
    """The stored timer as (elapsed seconds, running since), or None if it was never started."""
    timer = options.get(TIMER)
    if not isinstance(timer, Mapping):
        return None
    elapsed, since = timer.get("elapsed", 0), timer.get("since")
    if type(elapsed) is not int or elapsed < 0:
        elapsed = 0
    return elapsed, since if isinstance(since, str) else None


def _seconds_between(start: str, end: datetime) -> int:
    try:
        began = datetime.fromisoformat(start)
    except ValueError:
        return 0
    return max(0, int((end - began).total_seconds()))


def timer_state(options: Mapping[str, Any], now: datetime) -> tuple[str, int]:
    """("not started" | "running" | "paused", seconds played so far)."""
    timer = stored_timer(options)
    if timer is None:
        return "not started", 0
    elapsed, since = timer
    if since is None:
        return "paused", elapsed
    return "running", elapsed + _seconds_between(since, now)


def timer_after(options: Mapping[str, Any], action: str, now: datetime) -> dict[str, Any]:
    """The timer after ``action`` (start, pause or resume) at ``now``; refused if it does not fit."""
    if action not in TIMER_ACTIONS:
        raise RulesError("Start, pause or resume the timer.", "action")
    state, seconds = timer_state(options, now)
    if state == _STATE_BEFORE[action]:
        return {"elapsed": seconds, "since": None if action == PAUSE else now.isoformat()}
    raise RulesError(_REFUSED[action], "action")


def timer_stopped(options: Mapping[str, Any], now: datetime) -> Mapping[str, Any]:
    """The options of a play finished at ``now``: a running timer stops, so later time does not count."""
    state, seconds = timer_state(options, now)
    return {**options, TIMER: {"elapsed": seconds, "since": None}} if state == "running" else options


def duration_seconds(options: Mapping[str, Any], ended_at: str | None, now: datetime) -> int | None:
    """How long the play took by its timer (up to its end when finished); None without a timer."""
    if stored_timer(options) is None:
        return None
    try:
        end = datetime.fromisoformat(ended_at) if ended_at is not None else now
    except ValueError:
        end = now
    return timer_state(options, end)[1]


def logged_timer(seconds: int) -> dict[str, Any]:
    """The timer of a play logged afterwards: its duration, stopped."""
    if type(seconds) is not int or not 0 <= seconds <= LONGEST_PLAY_SECONDS:
        raise RulesError("A play lasts from 0 minutes to 7 days.", "duration")
    return {"elapsed": seconds, "since": None}


def pick_first_seat(seats: int, chosen: object = None, rng: random.Random | None = None) -> int:
    """The seat that starts: the one a phone drew (checked), or drawn here at random."""
    if seats < 1:
        raise RulesError("Nobody is at the table.")
    if chosen is None:
        return (rng or random.SystemRandom()).randrange(seats)
    return seat_index({"seat": chosen}, seats)


def turn_order(names: Sequence[str], first: int) -> list[str]:
    return [names[(first + n) % len(names)] for n in range(len(names))]


def first_seat(options: Mapping[str, Any], seats: int) -> int | None:
    seat = options.get(FIRST_SEAT)
    return seat if type(seat) is int and 0 <= seat < seats else None


def clock(seconds: int) -> str:
    """``1:05:09`` for an hour, five minutes and nine seconds; ``5:09`` under an hour."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
