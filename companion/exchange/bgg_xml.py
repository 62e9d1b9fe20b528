"""The finished plays shaped like BoardGameGeek's XML API2 ``plays`` answer."""

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from datetime import tzinfo

from companion.exchange import common
from companion.games.common import GameInfo
from companion.store import GroupArchive

# Characters XML 1.0 allows (its "Char" production); any other one would make the file unreadable.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def bgg_plays_xml(archive: GroupArchive, games: Mapping[str, GameInfo], zone: tzinfo | None) -> bytes:
    """What client libraries of BGG read: players have no BGG account (userid 0), a play keeps the local day
    it began and is ``nowinstats`` when left out of the statistics; its id is its number in every export."""
    finished = list(common.finished_plays(archive))
    root = ET.Element("plays", username=xml_safe(archive.name), userid="0", total=str(len(finished)),
                      page="1")
    for number, play in finished:
        length = common.play_minutes(play.started_at, play.ended_at, play.options) or 0
        day = common.local_time(play.started_at, zone).date().isoformat()
        element = ET.SubElement(root, "play", id=str(number), date=day, quantity="1", length=str(length),
                                incomplete="0", nowinstats="0" if play.counted else "1",
                                location=xml_safe(archive.settings.location))
        name = xml_safe(games[play.game].name if play.game in games else play.game)
        object_id = common.bgg_id(play.game, play.options, games.get(play.game), archive.settings.bgg_ids)
        item = ET.SubElement(element, "item", name=name, objecttype="thing", objectid=str(object_id or 0))
        ET.SubElement(ET.SubElement(item, "subtypes"), "subtype", value="boardgame")
        ET.SubElement(element, "comments").text = xml_safe(common.play_comments(play.options))
        players = ET.SubElement(element, "players")
        first, seats = common.start_seat(play.options, len(play.results)), len(play.results)
        for seat, result in enumerate(play.results):
            ET.SubElement(players, "player", username="", userid="0",
                          name=xml_safe(archive.players[result.player].name),
                          startposition=str((seat - first) % seats + 1),
                          color=xml_safe(play.seats[seat].colour), score=str(result.total), new="0",
                          rating="0", win="1" if result.rank == 1 else "0")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)
