"""Sentences for a person, and the refusal that carries one: shared by the rules, the store and the pages.

Neither Flask nor the rules nor the store: every layer may import it.
"""

from __future__ import annotations

from collections.abc import Mapping


class Message(str):
    """A sentence for a person: the English text, built from a template and named values.

    It *is* the English sentence (``str``, ``==``, JSON), so the API, logs and tests use it as it is;
    a page in another language looks ``template`` up in its catalogue and fills in ``params``
    (``Message("Settler %(id)s is not on the map.", id="0-1")``). A value that is itself a Message is
    translated the same way; a :class:`Term` is a game word the page translates on its own.
    """

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, /, **params: object) -> Message:
        # Without values the template is the sentence: a "%" in it stays as it is.
        message = super().__new__(cls, template % params if params else template)
        message.template = template
        message.params = params
        return message


class Term(str):
    """A game word inside a message (a role, a kind of feature, a terrain): English, translated on pages."""

    __slots__ = ()


class Refused(ValueError):
    """A request that is refused, with the reason as a sentence for a person.

    ``path`` names the offending input in the API's notation (``players[1].dollars``) when known.
    The message is a template with named values (``Refused("Settler %(id)s is not on the map.",
    "features[0].settlers", id="0-1")``): ``str(error)`` and ``error.message`` are the English sentence,
    ``error.template`` and ``error.params`` let a page show it in the reader's language. A
    :class:`Message` given as the message brings its own template and values. The rules refuse with
    ``RulesError``, the store with ``StoreError``; a page catches either as ``Refused``.
    """

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
