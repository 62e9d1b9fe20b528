"""What every export format shares: BoardGameGeek ids, local times, a play's length and comments.

Pure functions over the store's plain records; no Flask here.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any

from companion.games import great_western_trail, table_tools
from companion.games.common import GameInfo
from companion.store import ArchivedPlay, GroupArchive

SOURCE_NAME = "Game-Night Companion"
POINTS_LIMIT = 10 ** 6  # far beyond any score, and well inside SQLite's integers


# BoardGameGeek's ids that the companion has verified: Great Western Trail has one per edition. For the
# other games a group sets the id itself (group settings) until one is verified.
GWT_BGG_IDS: Mapping[int, int] = {1: 193738, 2: 341169}
BGG_ID_MAX = 10 ** 8
LOCATION_MAX = 80


@functools.cache
def known_time_zones() -> frozenset[str]:
    """The IANA time zones this machine knows (``Europe/Berlin`` …)."""
    return frozenset(zoneinfo.available_timezones())


def bgg_id(game: str, options: Mapping[str, Any], info: GameInfo | None = None,
           group_ids: Mapping[str, int] | None = None) -> int | None:
    """The game's BoardGameGeek id: the verified one, a group's own game's, the one the group set, or None."""
    if game == great_western_trail.GAME.slug:
        edition = gwt_edition(options)
        if edition is not None:
            return GWT_BGG_IDS.get(edition)
    if info is not None and info.bgg_id is not None:  # a group's own game, as the group gave it
        return info.bgg_id
    return (group_ids or {}).get(game)


def needs_bgg_id(game: GameInfo) -> bool:
    """Whether a group has to set the game's BoardGameGeek id (the companion has none verified for it)."""
    return game.slug != great_western_trail.GAME.slug


def gwt_edition(options: Mapping[str, Any]) -> int | None:
    """The Great Western Trail edition a play's options name (the default one when they name none)."""
    edition = options.get("edition", great_western_trail.DEFAULT_EDITION)
    return edition if type(edition) is int and edition in GWT_BGG_IDS else None


def finished_plays(archive: GroupArchive) -> Iterator[tuple[int, ArchivedPlay]]:
    """The finished plays with their number in the group's history (1 = the first play started)."""
    return ((n, play) for n, play in enumerate(archive.plays, start=1) if play.status == "finished")


def group_zone(name: str | None) -> zoneinfo.ZoneInfo | None:
    """The group's time zone by its IANA name; None (the server's own) when it set none."""
    return zoneinfo.ZoneInfo(name) if name else None


def as_local(moment: datetime, zone: tzinfo | None) -> datetime:
    """A wall-clock time without a zone, read as the time in ``zone`` (None: the server's, with its
    summer time); a time with a zone stays the moment it is."""
    if moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()


def local_time(stamp: str, zone: tzinfo | None) -> datetime:
    """A stored moment in ``zone``, or in the server's own time zone (with its summer time) for None."""
    moment = datetime.fromisoformat(stamp)
    return moment.astimezone(zone) if zone is not None else moment.astimezone()


def play_minutes(started_at: str, ended_at: str | None, options: Mapping[str, Any]) -> int | None:
    """How long a play took in whole minutes: by its timer where it ran one (pauses left out), else from
    its start to its end; None while it has neither."""
    seconds = table_tools.duration_seconds(options, ended_at, datetime.now(UTC))
    if seconds is not None:
        return round(seconds / 60)
    if ended_at is None:
        return None
    seconds = (datetime.fromisoformat(ended_at) - datetime.fromisoformat(started_at)).total_seconds()
    return max(0, int(seconds // 60))


def option_text(options: Mapping[str, Any], key: str) -> str:
    """A play's text option (variant, note), or "" where it holds none."""
    value = options.get(key, "")
    return value if isinstance(value, str) else ""


def play_comments(options: Mapping[str, Any]) -> str:
    """The play's expansions or variant and its note, one per line (BGG's and BG Stats' comments)."""
    texts = (option_text(options, table_tools.VARIANT), option_text(options, table_tools.NOTE))
    return "\n".join(filter(None, texts))

