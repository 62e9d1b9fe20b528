"""Charts as inline SVG drawn on the server, readable on a 390 px phone, with a ``<title>`` and ``<desc>``;
colours come from CSS classes only, so they follow the light and dark themes. Every text is escaped here."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from flask_babel import gettext as _
from flask_babel import ngettext
from markupsafe import Markup, escape

from companion import store
from companion.games.table import score_race
from companion.views import common
from companion.web.i18n import decimal

WIDTH = 360  # the drawing's own units; CSS scales it to the screen's width
LABEL_WIDTH = 92  # room for a name at the left of a horizontal bar
BAR_ROW = 30
BAR_HEIGHT = 20
NAME_CHARS = 12
PARTS = 12  # part-0 … part-11 exist in the stylesheet
MOST_DOTS = 40  # a line of more values is drawn without a dot on each (they would touch)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    colour: str  # a player colour: drawn with class c-<colour>
    text: str  # the value as the chart prints it, e.g. "12" or "48 %"


@dataclass(frozen=True)
class Line:
    label: str
    colour: str
    points: Sequence[float | None]  # one per x position; None where the line has no value


@dataclass(frozen=True)
class Stack:
    label: str
    parts: Sequence[float]  # one per part label, in order; negative parts extend left of zero


def _name(top: float, name: str) -> str:
    """A row's name left of its bar, shortened (the table shows it in full)."""
    short = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"
    return (f'<text class="name" text-anchor="end" x="{LABEL_WIDTH - 6}" '
            f'y="{_number(top + BAR_HEIGHT / 2 + 4)}">{escape(short)}</text>')


def _number(value: float) -> str:
    """Coordinates with at most one decimal, so the markup stays small (text a reader sees: ``decimal``)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _svg(chart_id: str, height: float, title: str, description: str, kind: str, parts: list[str]) -> Markup:
    chart_id, size = escape(chart_id), _number(height)
    return Markup(f'<svg class="chart {kind}" id="{chart_id}" viewBox="0 0 {WIDTH} {size}" width="{WIDTH}" '
                  f'height="{size}" role="img" aria-labelledby="{chart_id}-title" '
                  f'aria-describedby="{chart_id}-desc"><title id="{chart_id}-title">{escape(title)}</title>'
                  f'<desc id="{chart_id}-desc">{escape(description)}</desc>{"".join(parts)}</svg>')


def _scale(low: float, high: float, start: float, end: float):
    """The map from data values in [low, high] to drawing positions in [start, end]."""
    span = (high - low) or 1.0
    return lambda value: start + (value - low) * (end - start) / span


def bar_chart(chart_id: str, title: str, description: str, bars: Sequence[Bar]) -> Markup:
    """Horizontal bars, one row per player, longest bar = largest value."""
    x = _scale(0, max((bar.value for bar in bars), default=0) or 1, LABEL_WIDTH, WIDTH - 44)
    parts = []
    for n, bar in enumerate(bars):
        top, end = 4 + n * BAR_ROW, x(max(bar.value, 0))
        parts += [_name(top, bar.label),
                  f'<rect class="bar c-{escape(bar.colour)}" x="{LABEL_WIDTH}" y="{top}" '
                  f'width="{_number(max(end - LABEL_WIDTH, 1))}" height="{BAR_HEIGHT}"/><text class="value" '
                  f'x="{_number(end + 4)}" y="{_number(top + BAR_HEIGHT / 2 + 4)}">{escape(bar.text)}</text>']
    return _svg(chart_id, max(len(bars), 1) * BAR_ROW + 8, title, description, "bars", parts)


def nice_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round values for an axis from ``low`` to ``high``: steps of 1, 2 or 5 times a power of ten."""
    if high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [first + n * step for n in range(int((high - first) // step) + 1)]


def line_chart(chart_id: str, title: str, description: str, x_labels: Sequence[str],
               lines: Sequence[Line]) -> Markup:
    """Lines over equally spaced x positions (labelled at both ends), a dot on every value of a short line."""
    height = 220
    left, right, top, bottom = 40, WIDTH - 10, 10, height - 34
    values = [v for line in lines for v in line.points if v is not None]
    low, high = (min(values), max(values)) if values else (0, 1)
    pad = (high - low) * 0.08 or 1
    low, high = low - pad, high + pad
    y = _scale(low, high, bottom, top)
    count = len(x_labels)
    x = _scale(0, count - 1, left, right) if count > 1 else lambda n: (left + right) / 2
    parts = [f'<line class="grid" x1="{left}" x2="{right}" y1="{_number(y(tick))}" y2="{_number(y(tick))}"/>'
             f'<text class="tick" text-anchor="end" x="{left - 4}" y="{_number(y(tick) + 4)}">'
             f'{decimal(tick)}</text>' for tick in nice_ticks(low, high)]
    if count:
        parts.append(f'<text class="date start" x="{left}" y="{height - 12}">{escape(x_labels[0])}</text>')
    if count > 1:
        parts.append(f'<text class="date end" text-anchor="end" x="{right}" y="{height - 12}">'
                     f'{escape(x_labels[-1])}</text>')
    for line in lines:
        colour = escape(line.colour)
        at = [None if v is None else (_number(x(n)), _number(y(v))) for n, v in enumerate(line.points)]
        parts.append(f'<g class="series c-{colour}"><title>{escape(line.label)}</title>')
        # a gap (the player missed these plays) ends the stroke
        runs = [list(run) for drawn, run in groupby(at, key=bool) if drawn]
        parts += [f'<polyline class="line" points="{" ".join(f"{a},{b}" for a, b in run)}"/>'
                  for run in runs if len(run) > 1]
        parts += [f'<circle class="dot c-{colour}" cx="{a}" cy="{b}" r="3"/>'
                  for a, b in (filter(None, at) if count <= MOST_DOTS else ())]
        parts.append("</g>")
    return _svg(chart_id, height, title, description, "lines", parts)


def stacked_bar_chart(chart_id: str, title: str, description: str, part_labels: Sequence[str],
                      stacks: Sequence[Stack]) -> Markup:
    """One horizontal bar per player made of parts (points per scoring row); minus points go left."""
    height = max(len(stacks), 1) * BAR_ROW + 24
    lowest = min((sum(p for p in stack.parts if p < 0) for stack in stacks), default=0)
    highest = max((sum(p for p in stack.parts if p > 0) for stack in stacks), default=0)
    x = _scale(min(lowest, 0), max(highest, 1), LABEL_WIDTH, WIDTH - 8)
    zero = _number(x(0))
    parts = []
    for n, stack in enumerate(stacks):
        top = 4 + n * BAR_ROW
        parts.append(_name(top, stack.label))
        ahead = behind = 0.0  # where the next part starts: right of zero, and left of it
        for index, value in enumerate(stack.parts):
            if value > 0:
                x1, x2, ahead = x(ahead), x(ahead + value), ahead + value
            elif value < 0:
                x1, x2, behind = x(behind + value), x(behind), behind + value
            else:
                continue
            label = part_labels[index] if index < len(part_labels) else ""
            parts.append(f'<rect class="part part-{index % PARTS}" x="{_number(x1)}" y="{top}" '
                         f'width="{_number(max(x2 - x1, 0.5))}" height="{BAR_HEIGHT}">'
                         f'<title>{escape(label)}: {decimal(value)}</title></rect>')
    parts.append(f'<line class="axis" x1="{zero}" x2="{zero}" y1="0" y2="{height - 20}"/>'
                 f'<text class="tick" text-anchor="middle" x="{zero}" y="{height - 6}">0</text>')
    return _svg(chart_id, height, title, description, "stacks", parts)


@dataclass(frozen=True)
class Race:
    """A finished play's race: the chart, and its numbers for the table beside it."""

    chart: Markup
    steps: Sequence[tuple[str, Sequence[int]]]  # (after what, score per seat)


def race(play: store.Play, results: Sequence[store.ResultRow], events: Sequence[store.Event]) -> Race | None:
    """Each player's score entry by entry, then the final tally; None when no entry changed a score."""
    scores = score_race(common.play_setup(play), ((event.kind, event.payload) for event in events))
    if len(scores) < 2:
        return None
    totals = {result.seat: result.total for result in results}
    finals = [totals[seat] for seat in range(len(play.seats))]
    steps = [(_("Entry %(number)d", number=number) if number else _("Start"), seat_scores)
             for number, seat_scores in scores] + [(_("Final tally"), finals)]
    standing = ", ".join(f"{seat.name} {total}" for seat, total in zip(play.seats, finals, strict=True))
    chart = line_chart(
        "race-chart", _("The race"),
        ngettext("Each player's score after the entry that changed a score, then the final tally: %(list)s.",
                 "Each player's score after each of the %(num)d entries that changed a score, then the final "
                 "tally: %(list)s.", len(scores) - 1, list=standing),
        [label for label, _scores in steps],
        [Line(seat.name, seat.colour, [step[1][n] for step in steps]) for n, seat in enumerate(play.seats)])
    return Race(chart, steps)
