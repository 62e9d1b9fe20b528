"""Sentences for a person, and the refusal that carries one: every layer may import it."""

from collections.abc import Mapping
from typing import Self


class Message(str):
    """A sentence for a person: the English text, whose ``template`` a page translates with ``params``."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, /, **params: object) -> Self:
        # Without values the template is the sentence: a "%" in it stays as it is.
        message = super().__new__(cls, template % params if params else template)
        message.template = template
        message.params = params
        return message


class Term(str):
    """A game word inside a message (a role, a kind of feature, a terrain): English, translated on pages."""

    __slots__ = ()


class RowName(Term):
    """A row of a game's final tally inside a message, by its key: shown on pages as the row's label."""

    __slots__ = ()


class Refused(ValueError):
    """A request refused with a Message (as ``RulesError``, ``StoreError`` …); ``path`` names the bad input
    in the API's notation, when known."""

    def __init__(self, message: str, path: str = "", **params: object) -> None:
        sentence = message if isinstance(message, Message) and not params else Message(message, **params)
        super().__init__(str(sentence))
        self.message = sentence
        self.path = path

    @property
    def template(self) -> str:
        return self.message.template

    @property
    def params(self) -> Mapping[str, object]:
        return self.message.params
