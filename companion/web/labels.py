"""Words the pages show for the rules' keys (translated)."""

from flask_babel import gettext
from flask_babel import lazy_gettext as _l

from companion.games import GAMES

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

# Game words the rules put into their messages (companion.messages.Term), keyed by the English word.
# A word missing here is shown as the rules wrote it.
TERMS = {
    # Carcassonne – Mayflower: roles, their plurals, kinds of feature, surveyors and sizes
    "bandit": _l("bandit"), "sheriff": _l("sheriff"), "trapper": _l("trapper"), "farmer": _l("farmer"),
    "bandits": _l("bandits"), "sheriffs": _l("sheriffs"), "trappers": _l("trappers"),
    "farmers": _l("farmers"),
    "road": _l("road"), "city": _l("city"), "farm": _l("farm"), "plain": _l("plain"),
    "north": _l("north"), "south": _l("south"),
    "tiles": _l("tiles"), "trading_posts": _l("trading posts"), "trading posts": _l("trading posts"),
    "flags": _l("flags"), "neighbours": _l("filled spaces around it"),
    "filled spaces around it": _l("filled spaces around it"), "animals": _l("animals"),
    # Great Western Trail: worker rows, card rows and counts
    "cowboys": _l("cowboys"), "craftsmen": _l("craftsmen"), "engineers": _l("engineers"),
    "buildings": _l("buildings"), "cattle": _l("cattle"),
    "Dollars": _l("Dollars"), "Buildings vp": _l("Buildings VP"), "Stations vp": _l("Stations VP"),
    "Hazards vp": _l("Hazards VP"), "Cattle vp": _l("Cattle VP"), "Teepee pairs": _l("Teepee pairs"),
    "Hazards": _l("Hazard tiles"), "Certificates": _l("Certificates"), "Stations": _l("Stations"),
    "Buildings": _l("Private buildings"), "Disc cleared": _l("Disc cleared"),
    "Job market token": _l("Job-market token"),
    # Gold West: terrains, metals and the counts of a tally
    "Forest": _l("Forest"), "Gold": _l("Gold"), "Silver": _l("Silver"), "Copper": _l("Copper"),
    "forest": _l("forest"), "gold": _l("gold"), "silver": _l("silver"), "copper": _l("copper"),
    "influence": _l("influence"), "settlements": _l("settlements"), "mining tokens": _l("mining tokens"),
    "largest group": _l("largest group"), "second group": _l("second-largest group"),
    "wanted": _l("Wanted camps"), "investments": _l("investment cards"),
    "shipping bonus tiles": _l("shipping bonus tiles"),
    "supply left": _l("resources left on the supply track"),
    "boomtown 1x1 tokens": _l("tokens on the BoomTown 1×1 space"), "BoomTown tokens": _l("BoomTown tokens"),
    "count": _l("count"), "camps": _l("camps"),
}


def row_label(row: str, game: str) -> str:
    """The label of a breakdown row of ``game``; "total" is the row of a play finished with totals only.
    A group's own game names its rows itself: a row called "disc" there is no 3-VP disc."""
    if row == "total":
        return gettext("Points without breakdown")
    return str(ROW_LABELS.get(row, row)) if game in GAMES else row
