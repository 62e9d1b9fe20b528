"""What every export format shares: BoardGameGeek ids, local times, a play's length and comments."""

import functools
import hashlib
import json
import zoneinfo
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any

from companion.games import great_western_trail as gwt
from companion.games import table_tools
from companion.games.common import GameInfo
from companion.store import ArchivedPlay, GroupArchive

SOURCE_NAME = "Game-Night Companion"
POINTS_LIMIT = 10 ** 6  # far beyond any score, and well inside SQLite's integers
# The verified ids: Great Western Trail's per edition; for the other games a group sets its own.
GWT_BGG_IDS: Mapping[int, int] = {options["edition"]: ref for ref, options in gwt.BGG_IDS.items()}
# A play's number in the exports runs from 1 to this: at most 11 digits, which a spreadsheet shows (and
# writes back) as they are; it shows a longer number as 1.23457E+11.
PLAY_NUMBER_MAX = 10 ** 11 - 1


@functools.cache
def known_time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def bgg_id(game: str, options: Mapping[str, Any], info: GameInfo | None = None,
           group_ids: Mapping[str, int] | None = None) -> int | None:
    """The game's BoardGameGeek id: the verified one, a group's own game's, the one the group set, or None."""
    if (edition := gwt_edition(game, options)) is not None:
        return GWT_BGG_IDS[edition]
    if info is not None and info.bgg_id is not None:
        return info.bgg_id
    return (group_ids or {}).get(game)


def needs_bgg_id(game: GameInfo) -> bool:
    return game.slug != gwt.GAME.slug


def gwt_edition(game: str, options: Mapping[str, Any]) -> int | None:
    """A Great Western Trail play's edition; None for other games."""
    edition = options.get("edition", gwt.DEFAULT_EDITION)
    return edition if game == gwt.GAME.slug and type(edition) is int and edition in GWT_BGG_IDS else None


def play_numbers(plays: Sequence[ArchivedPlay]) -> list[int]:
    """Each play's number in the exports, drawn from its ``uid`` (which trash, backup and restore keep) so
    that other plays never change it; two drawing one number (rarely) take the next free ones."""
    # a play without a uid (an archive not read from the store) is known by its game, start and seats
    keys = [play.uid if play.uid is not None else json.dumps(
        [play.game, play.started_at, [[seat.player, seat.colour] for seat in play.seats]]) for play in plays]
    numbers = [0] * len(plays)
    taken: set[int] = set()
    for n in sorted(range(len(plays)), key=lambda n: (keys[n], n)):
        number = int(hashlib.sha256(keys[n].encode()).hexdigest(), 16) % PLAY_NUMBER_MAX + 1
        while number in taken:
            number = number % PLAY_NUMBER_MAX + 1
        taken.add(number)
        numbers[n] = number
    return numbers


def finished_plays(archive: GroupArchive) -> Iterator[tuple[int, ArchivedPlay]]:
    """The finished plays in the order they were entered, each with its number (``play_numbers``)."""
    numbered = zip(play_numbers(archive.plays), archive.plays, strict=True)
    return ((number, play) for number, play in numbered if play.status == "finished")


def group_zone(name: str | None) -> zoneinfo.ZoneInfo | None:
    """None (the server's own) when the group set none."""
    return zoneinfo.ZoneInfo(name) if name else None


def as_local(moment: datetime, zone: tzinfo | None) -> datetime:
    """A time without a zone read in ``zone`` (None: the server's, with its summer time)."""
    if moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()


def other_reading(moment: datetime, zone: tzinfo | None) -> datetime | None:
    """The other moment a time without a zone names where the clocks go back or forward, else None."""
    if moment.tzinfo is not None:
        return None
    first, second = (as_local(moment.replace(fold=fold), zone) for fold in (0, 1))
    return second if first.utcoffset() != second.utcoffset() else None


def local_time(stamp: str, zone: tzinfo | None) -> datetime:
    """The moment in ``zone`` (None: the server's, with its summer time)."""
    return datetime.fromisoformat(stamp).astimezone(zone)


def play_minutes(started_at: str, ended_at: str | None, options: Mapping[str, Any]) -> int | None:
    """Whole minutes by the play's timer (pauses left out), else from start to end; None while unknown."""
    seconds = table_tools.duration_seconds(options, ended_at, datetime.now(UTC))
    if seconds is not None:
        return round(seconds / 60)
    if ended_at is None:
        return None
    seconds = (datetime.fromisoformat(ended_at) - datetime.fromisoformat(started_at)).total_seconds()
    return max(0, int(seconds // 60))


def option_text(options: Mapping[str, Any], key: str) -> str:
    value = options.get(key, "")
    return value if isinstance(value, str) else ""


def start_seat(options: Mapping[str, Any], seats: int) -> int:
    """The seat that began the play: the one the table picked (table tools), else seat 1."""
    return table_tools.first_seat(options, seats) or 0


def play_comments(options: Mapping[str, Any]) -> str:
    """The play's expansions or variant and its note, one per line (BGG's and BG Stats' comments)."""
    texts = (option_text(options, table_tools.VARIANT), option_text(options, table_tools.NOTE))
    return "\n".join(filter(None, texts))
