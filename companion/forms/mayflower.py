"""Carcassonne – Mayflower's forms: placing a settler, completing features, the west edge, the final tally."""

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from wtforms import FormField, HiddenField, SelectField, SelectMultipleField, StringField
from wtforms.validators import InputRequired, NumberRange, Optional, ValidationError

from companion.forms import NUMERIC, PlainForm, SiteForm, VersionedForm, WholeNumberField, choices
from companion.games import mayflower
from companion.games.common import RulesError
from companion.web.i18n import translated
from companion.web.labels import TERMS

# Words for the rules' keys, as in the rules' messages. The letters mark the settlers on the map strip.
ROLE_NAMES, KIND_NAMES, SURVEYOR_NAMES = ({key: TERMS[key] for key in keys} for keys in (
    mayflower.ROLES, mayflower.FINAL_KINDS, mayflower.SURVEYOR_NAMES))
ROLE_LETTERS = {"bandit": _l("B"), "sheriff": _l("S"), "trapper": _l("T"), "farmer": _l("F")}
ROLE_BUTTONS = {"bandit": _l("Bandit"), "sheriff": _l("Sheriff"), "trapper": _l("Trapper"),
                "farmer": _l("Farmer")}
# Arrows, not letters: "S" already marks a sheriff on the strip.
SURVEYOR_MARKS = {"north": "▲", "south": "▼"}
SIZE_LABELS = {"tiles": _l("Tiles"), "trading_posts": _l("Trading posts"), "flags": _l("Flags"),
               "neighbours": _l("Filled spaces around it (0–7)"), "animals": _l("Animals")}

ROLE_CHOICES = choices([("bandit", _l("Bandit (on a road)")), ("sheriff", _l("Sheriff (in a city)")),
                        ("trapper", _l("Trapper (on a plain)")), ("farmer", _l("Farmer (on a farm)"))])
KIND_CHOICES = choices([("", _l("— as its settlers —")),
                        *((kind, KIND_NAMES[kind]) for kind in mayflower.COMPLETABLE_KINDS)])
FEATURES_PER_TILE = 3  # a tile rarely completes more; the form offers this many
SIZE_MAX = 999  # far above any real size; the rules say what the game allows
WEST_ANSWER = re.compile(r"[0-9]{1,2}:(?:yes|no)")


class TableForm(SiteForm):
    """One of the play page's entries, sent as its event's ``payload``."""

    def show_rules_error(self, error: RulesError) -> None:
        """Put a refusal of the rules next to the field it names (``column``), else at the top of the form."""
        if error.path in self and not isinstance(self[error.path], FormField):
            self[error.path].errors.append(translated(error))
        else:
            self.form_errors.append(translated(error))


class DrawnAt(TableForm):
    """An entry of one player's turn, drawn at a play version: another phone may have ended the turn since
    (views.mayflower.turn_guard)."""

    version = HiddenField(validators=[VersionedForm.version_if_given])
    seat = SelectField(_l("Player"), coerce=int, validate_choice=True)


class PlaceForm(DrawnAt):
    """A settler from a player's supply onto the tile just placed (prefix ``place-``)."""

    role = SelectField(_l("Role"), choices=ROLE_CHOICES)
    column = WholeNumberField(_l("Column"), render_kw=NUMERIC,
                              validators=[InputRequired(_l("Tap the tile's column on the map first."))])
    # "<seat>:<role>": one button for another player's settler, checked as if both were picked
    pick = StringField()

    def validate(self, extra_validators=None) -> bool:
        if self.pick.data:
            seat, _colon, role = self.pick.data.partition(":")
            if not (seat.isascii() and seat.isdigit()) or role not in ROLE_NAMES:
                super().validate(extra_validators)
                self.form_errors.append(gettext("Pick the player and the role again."))
                return False
            self.seat.data, self.role.data = int(seat), role
        return super().validate(extra_validators)

    def payload(self) -> dict[str, Any]:
        return {"seat": self.seat.data, "role": self.role.data, "column": self.column.data}


class NoSettlerForm(DrawnAt):
    """A player laid a tile without a settler: the turn passes. The place form's fields (prefix ``place-``):
    its button sends that form, so the player is the one picked under "Whose turn"."""

    def payload(self) -> dict[str, Any]:
        return {"seat": self.seat.data}


def _turn_form(form_class: type[DrawnAt], prefix: str) -> Callable[..., DrawnAt]:
    def bound(names: Sequence[str], turn: int = 0, **bind) -> DrawnAt:
        """The form with the players to pick from, ``turn``'s seat picked; ``formdata=None``: unsent."""
        form = form_class(prefix=prefix, data={"seat": turn}, **bind)
        form.seat.choices = choices(enumerate(names))
        return form
    return bound


place_form = _turn_form(PlaceForm, "place")
no_settler_form = _turn_form(NoSettlerForm, "place")


class WestEdgeForm(TableForm, VersionedForm):
    """How far west the map reaches (tiles placed without a settler on them), from the play as drawn: a
    stale tap would undo the tiles another phone entered since."""

    version = HiddenField(validators=[InputRequired(_l("Reload the page and try again."))])
    column = WholeNumberField(_l("Westernmost column with a tile"), render_kw=NUMERIC,
                              validators=[InputRequired(_l("Enter the column of the westernmost tile."))])

    def payload(self) -> dict[str, Any]:
        return {"column": self.column.data}


def west_edge_form(west_edge: int, **bind) -> WestEdgeForm:
    """The west-edge form, showing the map's current edge; ``formdata=None`` for an unsent one."""
    return WestEdgeForm(prefix="west", data={"column": west_edge}, **bind)


def _sizes(*names: str) -> Iterator[WholeNumberField]:
    """The fields of these sizes, starting at their FINAL_PRESETS value."""
    return (WholeNumberField(SIZE_LABELS[name], validators=[Optional(), NumberRange(0, SIZE_MAX)],
                             render_kw=NUMERIC, default=mayflower.FINAL_PRESETS[name]) for name in names)


def _ask_for_tiles(field: WholeNumberField, kind: str) -> None:
    """A road's or city's Tiles box left empty: asked for, not taken as a size nobody saw."""
    if field.data is None:
        field.errors.append(gettext("Enter how many tiles the %(kind)s has.", kind=KIND_NAMES[kind]))


class FeatureEntry(PlainForm):
    """One feature the tile completed: its settlers (they give its kind, else it is asked for), its sizes."""

    kind = SelectField(_l("Kind"), choices=KIND_CHOICES, default="")
    tiles, trading_posts, flags = _sizes("tiles", "trading_posts", "flags")
    # The settlers on the map are the choices; checked against the map, not against a list.
    settlers = SelectMultipleField(_l("Settlers on it"), choices=[], validate_choice=False)


class CompleteForm(VersionedForm):
    """The features one tile completed, scored in the order listed."""

    feature_1 = FormField(FeatureEntry, label=_l("Feature 1"))
    feature_2 = FormField(FeatureEntry, label=_l("Feature 2"))
    feature_3 = FormField(FeatureEntry, label=_l("Feature 3"))

    # Answers to "Is there a tile west of column N?": "N:yes" or "N:no", the tapped one and any before.
    west_of = SelectMultipleField(choices=[], validate_choice=False)

    on_map: Mapping[str, mayflower.Settler] = {}
    names: Sequence[str] = ()
    west_question: int | None = None  # the column the table is asked about, once the rules asked

    def validate_west_of(self, field: SelectMultipleField) -> None:
        answers = field.data or []
        if len(answers) > mayflower.WEST_ANSWERS_MAX or not all(map(WEST_ANSWER.fullmatch, answers)):
            raise ValidationError(_l("Answer the question about the map again."))

    def west_answers(self) -> list[dict[str, Any]]:
        """The answers as the rules take them: ``[{"column": 3, "tile": True}]``."""
        return [{"column": int(column), "tile": tile == "yes"}
                for column, _colon, tile in (text.partition(":") for text in self.west_of.data or [])]

    @property
    def entries(self) -> list[FeatureEntry]:
        return [self[f"feature_{number}"].form for number in range(1, FEATURES_PER_TILE + 1)]

    def used_entries(self) -> list[FeatureEntry]:
        """The entries given a kind or settlers, in the order they are scored."""
        return [entry for entry in self.entries if entry.kind.data or entry.settlers.data]

    def validate(self, extra_validators=None) -> bool:
        if not super().validate(extra_validators):
            return False
        if not self.used_entries():
            self.feature_1.form.settlers.errors.append(
                gettext("Tap the settlers on the completed feature (on the map), then Score."))
            return False
        valid = True
        ticked: dict[str, int] = {}
        for number, entry in enumerate(self.entries, start=1):
            valid &= self._settle_kind(number, entry) and self._check_entry(number, entry, ticked)
        return valid

    def _settle_kind(self, number: int, entry: FeatureEntry) -> bool:
        """A feature's kind follows from its settlers' role when nobody picked it (bandits: a road)."""
        if entry.kind.data or not entry.settlers.data:
            return True
        on_it = [self.on_map[i] for i in entry.settlers.data if i in self.on_map]
        roles = {settler.role for settler in on_it}
        if len(roles) > 1:
            entry.settlers.errors.append(gettext(
                "Feature %(n)d has settlers of different roles, but a feature holds one role only: score "
                "the others as another feature.", n=number))
            return False
        if not roles:
            return True
        kind = mayflower.KIND_OF_ROLE[roles.pop()]
        if kind not in mayflower.COMPLETABLE_KINDS:  # a trapper: not offered, but a stale page may send one
            entry.settlers.errors.append(gettext(
                "%(who)s is on a %(kind)s, which is scored only at the end of the game: untick it.",
                who=translated(mayflower.described(on_it[0], self.names)), kind=KIND_NAMES[kind]))
            return False
        entry.kind.data = kind
        return True

    def _check_entry(self, number: int, entry: FeatureEntry, ticked: dict[str, int]) -> bool:
        """The sizes a kind needs, and settlers that are on the map, fit the kind and stand on one feature."""
        kind = entry.kind.data
        if kind and kind != "farm":
            _ask_for_tiles(entry.tiles, kind)
        # Without a kind none of its settlers is on the map (their role would give it): say that once.
        for settler_id in (entry.settlers.data or [])[:None if kind else 1]:
            settler = self.on_map.get(settler_id)
            if settler is None:
                message = gettext("A settler you ticked is no longer on the map. Check the map and "
                                  "try again.")
            elif settler.role != mayflower.ROLE_OF_KIND[kind]:
                message = gettext("%(who)s cannot stand on a %(kind)s; only a %(role)s can.",
                                  who=translated(mayflower.described(settler, self.names)),
                                  kind=KIND_NAMES[kind], role=ROLE_NAMES[mayflower.ROLE_OF_KIND[kind]])
            elif settler_id in ticked:
                message = gettext("%(who)s is ticked in feature %(first)d and feature %(second)d; a settler "
                                  "stands on one feature only.",
                                  who=translated(mayflower.described(settler, self.names)),
                                  first=ticked[settler_id], second=number)
            else:
                ticked[settler_id] = number
                continue
            entry.settlers.errors.append(message)
        return not (entry.tiles.errors or entry.settlers.errors)

    def payload(self) -> dict[str, Any]:
        features = [{"kind": entry.kind.data,
                     **{name: entry[name].data or 0 for name in mayflower.COMPLETED_SIZES[entry.kind.data]},
                     "settlers": list(entry.settlers.data or [])} for entry in self.used_entries()]
        west_of = {"west_of": self.west_answers()} if self.west_of.data else {}
        return {"features": features, **west_of}

    def show_rules_error(self, error: RulesError) -> None:
        """Put a refusal about ``features[1].tiles`` next to that field of the second listed feature."""
        if isinstance(error, mayflower.WestQuestion):  # asked by the template, next to its yes and no
            self.west_question = error.column
            return
        used = self.used_entries()
        match = re.match(r"features\[([0-9]+)\]\.?([a-z_]*)", error.path)
        if match and int(match[1]) < len(used):
            entry, name = used[int(match[1])], match[2]
            field = entry[name] if name in ("kind", "tiles", "trading_posts", "flags") else entry.settlers
            field.errors.append(translated(error))
        else:
            self.form_errors.append(translated(error))


def complete_form(on_map: Sequence[mayflower.Settler], names: Sequence[str], **bind) -> CompleteForm:
    """The completion form, knowing the map's settlers and the players' names; ``formdata=None``: empty."""
    form = CompleteForm(prefix="complete", **bind)
    form.on_map = {settler.id: settler for settler in on_map}
    form.names = names
    return form


def pickable_settlers(on_map: Sequence[mayflower.Settler]) -> list[mayflower.Settler]:
    """The settlers a completed feature can hold (not trappers), by role, then player, then column."""
    return sorted((s for s in on_map if s.role != "trapper"),
                  key=lambda s: (mayflower.ROLES.index(s.role), s.seat, s.column))


# The final tally: like a completion, one unfinished feature at a time

FINAL_SIZE_NAMES = ("tiles", "trading_posts", "flags", "neighbours", "animals")
KEPT_MAX = 25  # a feature per settler at most: five players with five settlers each


class FinalTallyForm(VersionedForm):
    """The unfinished features: those entered so far (``kept``) and the one whose settlers are tapped now."""

    # One JSON object per feature entered: {"settlers": [...], "tiles": 3, ...}; the page carries them.
    kept = SelectMultipleField(choices=[], validate_choice=False)
    settlers = SelectMultipleField(choices=[], validate_choice=False)
    tiles, trading_posts, flags, neighbours, animals = _sizes(*FINAL_SIZE_NAMES)
    more = StringField()  # "and another feature" was tapped: keep this one, tap the next

    slots: tuple[mayflower.FinalSlot, ...] = ()

    def validate(self, extra_validators=None) -> bool:
        if not super().validate(extra_validators):
            return False
        # an emptied Tiles box would be listed as 0 yet scored as its preset; as in the rules, the feature's
        # sizes are those of its first settler's kind
        slot_of = {slot.settler.id: slot for slot in self.slots}
        first = slot_of.get(self.settlers.data[0]) if self.settlers.data else None
        if first is not None and "tiles" in mayflower.FINAL_SIZES[first.kind]:
            _ask_for_tiles(self.tiles, first.kind)
        return not self.tiles.errors

    def validate_kept(self, field: SelectMultipleField) -> None:
        if len(self.kept_features()) != len(field.data or []) or len(field.data or []) > KEPT_MAX:
            raise ValidationError(_l("Reload the page and try again."))

    def kept_features(self) -> list[dict[str, Any]]:
        """The features entered so far, as the page carried them; anything garbled is left out."""
        features = []
        for text in self.kept.data or []:
            try:
                feature = json.loads(text)
            except ValueError:
                continue
            if (isinstance(feature, dict) and isinstance(feature.get("settlers"), list)
                    and all(type(settler_id) is str for settler_id in feature["settlers"])):
                features.append(feature)
        return features

    def current(self) -> dict[str, Any] | None:
        """The feature being tapped, or None before any of its settlers is."""
        if not self.settlers.data:
            return None
        return {"settlers": list(self.settlers.data),
                **{name: self[name].data for name in FINAL_SIZE_NAMES if self[name].data is not None}}

    def features(self) -> list[dict[str, Any]]:
        current = self.current()
        return self.kept_features() + ([current] if current else [])

    def keep(self, features: Sequence[Mapping[str, Any]]) -> None:
        """Carry ``features`` as entered and start a fresh one."""
        self.kept.data = [json.dumps(feature, sort_keys=True) for feature in features]
        self.settlers.data = []
        for name in FINAL_SIZE_NAMES:
            self[name].data = mayflower.FINAL_PRESETS[name]
            self[name].raw_data = None

    def taken(self) -> dict[str, int]:
        """Each settler already on an entered feature, with that feature's number (1, 2, …)."""
        return {settler_id: number for number, feature in enumerate(self.kept_features(), start=1)
                for settler_id in feature["settlers"]}

    def show_rules_error(self, error: RulesError) -> None:
        """Put a refusal about the feature being tapped (``features[2].tiles``) next to its field."""
        head, _dot, name = error.path.partition(".")
        if head == f"features[{len(self.kept.data or [])}]" and self.current() is not None:
            field = self[name] if name in FINAL_SIZE_NAMES else self.settlers
            field.errors.append(translated(error))
        else:
            self.form_errors.append(translated(error))


def final_tally_form(slots: Sequence[mayflower.FinalSlot], formdata=None) -> FinalTallyForm:
    """The final tally over the settlers still on the map; ``formdata=None``: nothing entered yet."""
    form = FinalTallyForm(formdata=formdata)
    form.slots = tuple(slots)
    return form
