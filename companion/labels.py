"""Words the pages show for the rules' keys (translated)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

ROW_LABELS = {
    "total": _l("Total"),
    # Great Western Trail, in the scoring pad's order
    "money": _l("Money"), "buildings": _l("Buildings"), "cities": _l("Cities"),
    "stations": _l("Stations"), "hazards": _l("Hazards"), "cattle": _l("Cattle"),
    "objectives": _l("Objectives"), "station_masters": _l("Station masters"),
    "workers": _l("Workers"), "disc": _l("3-VP disc"), "job_market": _l("Job-market token"),
    # Gold West
    "track": _l("Score track"), "largest_group": _l("Largest group"), "offices": _l("BoomTown offices"),
    "wanted": _l("Wanted"), "influence": _l("Influence"),
    # Carcassonne – Mayflower (track and cities as above)
    "roads": _l("Roads"), "farms": _l("Farms"), "plains": _l("Plains"),
}
