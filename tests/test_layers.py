"""The layers of the design: the store knows no rules, forms know no views, rules know neither."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "companion"


def imported_modules(folder: str) -> set[tuple[str, str]]:
    """(file, module) for every ``import``/``from ... import`` in the package folder's files."""
    found = set()
    for path in (PACKAGE / folder).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add((path.name, node.module))
            elif isinstance(node, ast.Import):
                found.update((path.name, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("store", ("companion.games", "companion.views", "companion.forms", "flask")),
    ("forms", ("companion.views",)),
    ("games", ("companion.store", "companion.views", "companion.forms", "flask", "sqlite_utils")),
])
def test_a_layer_does_not_import_the_layers_it_must_not_know(folder, forbidden):
    wrong = sorted((name, module) for name, module in imported_modules(folder)
                   if module.startswith(forbidden))
    assert wrong == []
