"""Names that people type (players, groups, games and their score rows): the one check for every name,
and the key that compares them. Spaces are trimmed and folded, and the name kept in NFC. Control
characters, lone surrogates, the BOM, noncharacters and the bidirectional overrides that forge a name are
refused; invisible characters may stay (emoji need the joiners), but the key leaves them out, and it
ignores case and compatibility variants too, so ``An\u200bna``, ``ANNA`` and ``Ａｎｎａ`` are ``Anna``.
"""

import unicodedata

from companion.messages import Refused

NAME_MAX = 40
LOCATION_MAX = 80  # where a group plays (its settings, a BG Stats location)
BGG_ID_MAX = 10 ** 8  # a BoardGameGeek id a group types in
NEW_PLAYER = 0  # the choice "a new player of this name" for a BG Stats player (no player has id 0)
# Join codes avoid letters and digits that look alike when read off a phone (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8

# Spaces folded into one " ": the categories Zs, Zl and Zp, and the ASCII whitespace a pasted name may carry
_ASCII_SPACES = frozenset("\t\n\r\f\v")
# Characters that re-order how the text around them is displayed (embeddings, overrides, isolates).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BOM = "\ufeff"
# Characters that show nothing but are not of category Cf (format), which counts as invisible too.
_INVISIBLE_OTHER = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0") | frozenset(
    chr(code) for code in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))


class NameProblem(Refused):
    """A name that breaks the rules of names; the message says which rule."""


def _refused(ch: str) -> bool:
    category = unicodedata.category(ch)
    if category == "Cc":
        return ch not in _ASCII_SPACES
    if category == "Cs" or ch == _BOM or ch in _BIDI_CONTROLS:
        return True
    code = ord(ch)
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE  # noncharacters


def clean_name(text: str, path: str = "name", most: int = NAME_MAX) -> str:
    """The name as it is kept, or NameProblem at ``path`` saying which rule it breaks."""
    bad = refused_character(text)
    if bad is not None:
        raise NameProblem("A name cannot contain %(code)s: it is a control or formatting character, not "
                          "text.", path, code=f"U+{ord(bad):04X}")
    name = unicodedata.normalize("NFC", _collapse(text))
    if not name or not name_key(name):
        raise NameProblem("A name needs at least one visible character.", path)
    if len(name) > most:
        raise NameProblem("A name has 1–%(most)d characters after trimming spaces; this one has %(count)d.",
                          path, most=most, count=len(name))
    return name


def refused_character(text: str) -> str | None:
    """The first character no typed text may hold (control, surrogate, BOM, bidi override …), or None."""
    return next((ch for ch in text if _refused(ch)), None)


def _collapse(text: str) -> str:
    spaced = (" " if ch in _ASCII_SPACES or unicodedata.category(ch) in ("Zs", "Zl", "Zp") else ch
              for ch in text)
    return " ".join("".join(spaced).split())


def name_key(name: str) -> str:
    """What two names of the same player share: the NFKC of the case-folded visible text, spaces folded."""
    visible = "".join(ch for ch in name if ch not in _INVISIBLE_OTHER and unicodedata.category(ch) != "Cf")
    folded = unicodedata.normalize("NFKC", _collapse(visible)).casefold()
    return unicodedata.normalize("NFKC", folded)


def duplicate_name(names: list[str]) -> int | None:
    """The index of the first name whose key an earlier name already has, or None."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        key = name_key(name)
        if key in seen:
            return index
        seen.add(key)
    return None
