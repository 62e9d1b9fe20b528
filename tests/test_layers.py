"""The layers of the design, checked through every module a layer reaches, not only its own imports.

Rules know neither storage nor Flask; storage knows neither Flask nor the rules; forms know neither
views nor storage; the JSON API stores nothing; the read cache in front of Flask uses no views or forms.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


@cache
def module_files() -> dict[str, Path]:
    """companion's modules by name: ``companion.store.groups`` → its file (a package: its __init__)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def with_parents(module: str) -> set[str]:
    """A module and the packages importing it runs first: ``a.b.c`` → a, a.b, a.b.c."""
    parts = module.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts) + 1)}


@cache
def direct_imports(module: str) -> frozenset[str]:
    """Every module one of companion's modules imports (anywhere in it, also inside functions)."""
    path = module_files()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found |= with_parents(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found |= with_parents(base)
            # ``from package import module`` imports that module too
            found |= {f"{base}.{alias.name}" for alias in node.names} & module_files().keys()
    return frozenset(found - {module})


def reached(start: str) -> set[str]:
    """Every module importing ``start`` runs: through companion's own modules, transitively."""
    seen, todo = set(), [*with_parents(start)]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if module in module_files():
            todo.extend(direct_imports(module))
    return seen


def modules_of(layer: str) -> list[str]:
    return sorted(name for name in module_files() if name == layer or name.startswith(f"{layer}."))


def forbidden_reached(layer: str, forbidden: tuple[str, ...]) -> list[tuple[str, str]]:
    """(module of the layer, forbidden module it reaches)."""
    return sorted((module, name) for module in modules_of(layer) for name in reached(module)
                  if any(name == f or name.startswith(f"{f}.") for f in forbidden))


@pytest.mark.parametrize(("layer", "forbidden"), [
    ("companion.games", ("companion.store", "companion.views", "companion.forms", "companion.web",
                         "flask", "sqlite_utils")),
    ("companion.store", ("companion.games", "companion.views", "companion.forms", "companion.web", "flask")),
    ("companion.forms", ("companion.views", "companion.store")),
    ("companion.api", ("companion.store", "companion.views", "companion.web", "companion.exchange.backup",
                       "companion.exchange.bgstats_import", "companion.exchange.common")),
    # a file format never reaches into the API or the web; the API shares only the strict validator
    ("companion.exchange", ("companion.api", "companion.views", "companion.forms", "companion.web", "flask")),
    ("companion.web.read_cache", ("companion.views", "companion.forms")),
])
def test_a_layer_reaches_none_of_the_layers_it_must_not_know(layer, forbidden):
    assert forbidden_reached(layer, forbidden) == []


@pytest.mark.parametrize(("module", "imports", "reaches"), [
    # a package's __init__ runs first, and what it imports counts
    ("companion.store.access", "companion.store.plays", "companion.store.transactions"),
    ("companion.web.read_cache", "companion.store.access", "companion.store.groups"),
])
def test_the_walk_follows_imports_through_modules_and_packages(module, imports, reaches):
    assert imports in direct_imports(module)
    assert reaches in reached(module) and "companion.store" in reached(module)


LINES_IN_A_MODULE = 700  # design.md: no module longer, but a game's rules
RULES = {"companion.games.gold_west", "companion.games.mayflower", "companion.games.great_western_trail"}


def test_no_module_is_longer_than_the_design_allows_and_few_sit_loose():
    too_long = {name: lines for name, path in module_files().items()
                if name not in RULES and (lines := len(path.read_text(encoding="utf-8").splitlines()))
                > LINES_IN_A_MODULE}
    assert too_long == {}
    loose = sorted(path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py")
    assert len(loose) <= 4, f"at most 4 modules at companion's root, not {loose}: move one into a package"
