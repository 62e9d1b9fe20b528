"""The finished plays as CSV, one line per player per play, as a spreadsheet reads them."""

import csv
import io
from collections.abc import Mapping
from datetime import tzinfo

from companion.exchange.common import finished_plays, gwt_edition, local_time, option_text, play_minutes
from companion.games import custom, table_tools
from companion.games.common import GameInfo
from companion.store import FINAL_EVENT, ArchivedPlay, GroupArchive

# A score row's column is its name after this, so that no row (a game's own "player" row) takes another column
ROW_PREFIX = "row:"


def _spreadsheet_safe(cell: object) -> object:
    # The quote keeps a text like "=HYPERLINK(…)" from running as a formula; a negative score is no formula.
    if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + cell
    return cell


def _teams(play: ArchivedPlay) -> list[str]:
    """Each seat's team as the final tally recorded it; empty texts for a play not played in teams."""
    final = next((event.payload for event in reversed(play.events) if event.kind == FINAL_EVENT), None)
    teams, _ = custom.outcome_from_payload(final, len(play.seats))
    if teams is None or any(team not in custom.TEAM_NAMES for team in teams):
        return [""] * len(play.seats)
    return teams


def plays_csv(archive: GroupArchive, games: Mapping[str, GameInfo], zone: tzinfo | None,
              delimiter: str = ",") -> str:
    """One line per player per finished play, a column per breakdown row; times local to ``zone``."""
    # a play finished with the plain total per player has the breakdown {"total": …}: the total column
    present = {row for _, play in finished_plays(archive) for r in play.results
               for row in r.breakdown} - {"total"}
    rows = list(dict.fromkeys(row for game in games.values() for row in game.rows if row in present))
    rows += sorted(present - set(rows))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")

    def write(cells: list[object]) -> None:
        writer.writerow([_spreadsheet_safe(cell) for cell in cells])

    write(["play", "started_at", "finished_at", "minutes", "game", "edition", "expansions", "note", "counted",
           "seat", "player", "colour", "rank", "total", "winner", "team",
           *(ROW_PREFIX + row for row in rows)])
    for number, play in finished_plays(archive):
        edition = gwt_edition(play.game, play.options)
        started, ended = (local_time(stamp, zone).strftime("%Y-%m-%d %H:%M")
                          for stamp in (play.started_at, play.ended_at or play.started_at))
        about = [number, started, ended, play_minutes(play.started_at, play.ended_at, play.options),
                 games[play.game].name if play.game in games else play.game, edition or "",
                 option_text(play.options, table_tools.VARIANT), option_text(play.options, table_tools.NOTE),
                 "yes" if play.counted else "no"]
        teams = _teams(play)
        for seat, result in enumerate(play.results):
            write([*about, seat + 1, archive.players[result.player].name, play.seats[seat].colour,
                   result.rank, result.total, "yes" if result.rank == 1 else "no", teams[seat],
                   *(result.breakdown.get(row, "") for row in rows)])
    return out.getvalue()
