"""Groups are private: every route of the app, as it is at run time, answers 404 for another group's ids.

The tests walk ``app.url_map`` rather than a list of URLs, so a page added later is covered the day it
is added. The helpers here (a sample group built through the pages, filling a route's parameters,
reading the forms of a page, a dump of every table) serve the other hardening tests too.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Rule

from companion import store
from companion.games import GAMES
from tests.conftest import make_app

# --- reading the forms of a page -----------------------------------------------------------------


@dataclass
class HtmlForm:
    """A form as a browser sees it: where it posts and what it would send unchanged."""

    action: str  # a path on this site
    method: str
    fields: dict[str, list[str]]  # name → values a browser would submit as the page stands
    options: dict[str, list[str]]  # name → every value the page offers (select options, buttons …)


class _FormReader(HTMLParser):
    def __init__(self, page_path: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page_path = page_path
        self.forms: list[HtmlForm] = []
        self._form: HtmlForm | None = None
        self._select: str | None = None
        self._select_values: list[str] = []
        self._select_chosen: list[str] = []
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            action = urlsplit(urljoin(self.page_path, a.get("action") or self.page_path))
            self._form = HtmlForm(action.path + (f"?{action.query}" if action.query else ""),
                                  a.get("method", "get").upper(), {}, {})
            self.forms.append(self._form)
            return
        if tag == "option" and self._select:
            self._select_values.append(a.get("value", ""))
            if "selected" in a:
                self._select_chosen.append(a.get("value", ""))
            return
        form, name = self._form, a.get("name")
        if form is None or not name or "disabled" in a:
            return
        if tag == "input":
            kind = a.get("type", "text").lower()
            value = a.get("value", "on" if kind in ("checkbox", "radio") else "")
            form.options.setdefault(name, []).append(value)
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind in ("submit", "image", "button", "reset", "file"):
                return
            form.fields.setdefault(name, []).append(value)
        elif tag == "button":
            form.options.setdefault(name, []).append(a.get("value", ""))
            # a form with named buttons is sent by one of them: take the first
            if a.get("type", "submit") == "submit" and name not in form.fields:
                form.fields[name] = [a.get("value", "")]
        elif tag == "select":
            self._select, self._select_values, self._select_chosen = name, [], []
        elif tag == "textarea":
            self._textarea, self._text = name, []

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select" and self._select and self._form is not None:
            self._form.options[self._select] = self._select_values
            chosen = self._select_chosen[:1] or self._select_values[:1]
            if chosen:
                self._form.fields[self._select] = chosen
            self._select = None
        elif tag == "textarea" and self._textarea and self._form is not None:
            self._form.fields[self._textarea] = ["".join(self._text)]
            self._form.options[self._textarea] = ["".join(self._text)]
            self._textarea = None


def forms_on(html: str, page_path: str) -> list[HtmlForm]:
    """The forms of a page, their actions resolved against the page's path."""
    reader = _FormReader(page_path)
    reader.feed(html)
    return reader.forms


def form_of(html: str, page: str) -> dict[str, list[str]]:
    """The fields of the form on ``page`` that posts to the page itself, as the phone would send them."""
    forms = [f for f in forms_on(html, page) if f.method == "POST" and f.action == page]
    assert forms, f"no form posting to {page}"
    return dict(forms[0].fields)


def drawn_form(phone: FlaskClient, page: str) -> dict[str, list[str]]:
    """``form_of`` the page as the phone draws it now."""
    response = phone.get(page)
    assert response.status_code == 200, (page, response.status_code)
    return form_of(response.text, page)


def submit(client: FlaskClient, page: str, action: str | None = None, **changes: str):
    """Open ``page``, fill in its form posting to ``action`` (default: to the page) and send it."""
    response = client.get(page)
    assert response.status_code == 200, (page, response.status_code)
    action = action or page  # a form without an action posts to its own page
    forms = [f for f in forms_on(response.text, page) if f.method == "POST" and f.action == action]
    assert forms, f"{page} has no form posting to {action}"
    data = {**forms[0].fields, **{name: [value] for name, value in changes.items()}}
    return client.post(forms[0].action, data=data)


# --- a sample group built through the pages ------------------------------------------------------


@dataclass(frozen=True)
class SampleGroup:
    """A group with players, an active play and a finished play of every game."""

    group_id: int
    name: str
    token: str
    join_code: str
    player_ids: tuple[int, ...]
    player_names: tuple[str, ...]
    active: dict[str, int]  # game slug → play id
    finished: dict[str, int]
    game_ids: tuple[int, ...] = ()  # the group's own games (beside the three)

    @property
    def play_ids(self) -> list[int]:
        return [*self.active.values(), *self.finished.values()]


def _path(app: Flask, endpoint: str, **values) -> str:
    with app.test_request_context():
        return url_for(endpoint, **values)


def _id_in(location: str, prefix: str) -> int:
    return int(re.search(rf"/{prefix}/(\d+)", location).group(1))


def build_sample_group(app: Flask, client: FlaskClient, name: str,
                       player_names: tuple[str, ...]) -> SampleGroup:
    """Create a group the way a phone does (the client joins it), with plays of every game."""
    home = _path(app, "home.index")
    created = submit(client, home, _path(app, "home.create_group"), name=name)
    assert created.status_code == 302, created.text
    group_id = _id_in(created.headers["Location"], "groups")
    group_page = _path(app, "groups.show", group_id=group_id)
    colours = ("red", "blue", "green", "yellow")
    for player_name, colour in zip(player_names, colours, strict=False):
        added = submit(client, group_page, _path(app, "groups.add_player", group_id=group_id),
                       name=player_name, colour=colour)
        assert added.status_code == 302, added.text
    added = submit(client, _path(app, "custom_games.new", group_id=group_id), name=f"{name} game")
    assert added.status_code == 302, added.text
    db = store.connect(app.config["DATABASE"])
    try:
        game_ids = tuple(game.id for game in store.list_group_games(db, group_id))
        active, finished = {}, {}
        for slug in [*GAMES, *(f"custom-{game_id}" for game_id in game_ids)]:
            new_play = _path(app, "groups.new_play", group_id=group_id, game_slug=slug)
            for plays in (active, finished):
                started = submit(client, new_play)
                assert started.status_code == 302, (slug, started.text)
                plays[slug] = _id_in(started.headers["Location"], "plays")
                for seat, points in ((0, 3), (1, 5)):
                    store.append_event(db, plays[slug], "adjust",
                                       {"seat": seat, "points": points, "note": ""})
            if slug.startswith("custom-"):  # its sheet of totals starts from the running scores
                tally = submit(client, _path(app, "custom_games.final_tally", play_id=finished[slug]))
            else:  # the totals start empty
                tally = submit(client, _path(app, "plays.finish", play_id=finished[slug]),
                               **{f"total_{seat}": str(seat) for seat in range(len(player_names))})
            assert tally.status_code == 302, (slug, tally.text)
        group = store.get_group(db, group_id)
        players = store.list_players(db, group_id)
    finally:
        db.close()
    return SampleGroup(group_id, name, group.token, group.join_code, tuple(p.id for p in players),
                       tuple(p.name for p in players), active, finished, game_ids)


# --- filling the routes of the app ---------------------------------------------------------------

# Parameters that name something inside a group: a route taking one of them is private to the group.
PRIVATE = re.compile(r"group|play|player|result|event|seat|seq|game_id")


def routes(app: Flask, method: str) -> list[Rule]:
    """The app's routes answering ``method``, without static files."""
    return sorted((rule for rule in app.url_map.iter_rules()
                   if method in rule.methods and rule.endpoint.split(".")[-1] != "static"),
                  key=lambda rule: (rule.rule, rule.endpoint))


def is_private(rule: Rule) -> bool:
    return any(PRIVATE.search(name) for name in rule.arguments)


def parameter_values(rule: Rule, name: str, group: SampleGroup) -> list:
    """Values of ``group`` for the route parameter ``name``, or candidates if the name is unknown."""
    if name == "group_id":
        return [group.group_id]
    if "player" in name:
        # two player parameters (head-to-head …) get two different players
        position = sorted(n for n in rule.arguments if "player" in n).index(name)
        return [group.player_ids[position % len(group.player_ids)]]
    if name == "play_id":
        return group.play_ids
    if name == "game_id":
        return list(group.game_ids)
    if "result" in name:
        return list(group.finished.values())
    if name in ("game_slug", "game", "slug"):
        return [*GAMES, *(f"custom-{game_id}" for game_id in group.game_ids)]
    if name == "token":
        return [group.token]
    if "code" in name:
        return [group.join_code]
    if re.search(rf"<int(\([^)]*\))?:{name}>", rule.rule):
        return [0, 1, 2]
    return ["1", *GAMES]


def _paths(rule: Rule, choices: dict[str, list], limit: int = 30) -> list[str]:
    names = sorted(choices)
    paths = []
    for combination in itertools.islice(itertools.product(*(choices[name] for name in names)), limit):
        built = rule.build(dict(zip(names, combination, strict=True)), append_unknown=False)
        if built is not None:
            paths.append(built[1])
    return paths


def fill(rule: Rule, group: SampleGroup) -> list[str]:
    """The paths of ``rule`` with its parameters taken from ``group`` (every combination, up to 30)."""
    return _paths(rule, {name: parameter_values(rule, name, group) for name in rule.arguments})


def mixed_paths(rule: Rule, own: SampleGroup, other: SampleGroup) -> list[str]:
    """Paths naming one's own group but another group's play, player …: the ids must not mix."""
    inside_group = [name for name in rule.arguments if name != "group_id" and PRIVATE.search(name)]
    if "group_id" not in rule.arguments or not inside_group:
        return []
    return _paths(rule, {name: [own.group_id] if name == "group_id" else parameter_values(rule, name, other)
                         for name in rule.arguments})


@dataclass
class SiteMap:
    """What a member's phone reaches: paths per route (filled in and found on the pages) and the forms."""

    paths: dict[tuple[str, str], set[str]]  # (method, rule) → paths
    forms: dict[str, HtmlForm]  # action path → the first form found posting there
    queries: dict[str, dict[str, set[str]]]  # GET path → parameter → the values its links and forms send

    def of(self, rule: Rule, method: str) -> list[str]:
        return sorted(self.paths.get((method, rule.rule), ()))

    def add_query(self, path: str, sent: Iterable[tuple[str, Iterable[str]]]) -> None:
        """Note that ``path`` is asked for with these parameters (name, values)."""
        query = self.queries.setdefault(path, {})
        for name, values in sent:
            query.setdefault(name, set()).update(values)


class _LinkReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def crawl(app: Flask, client: FlaskClient, group: SampleGroup, limit: int = 400) -> SiteMap:
    """Every GET route filled in from ``group``, then every link and form found on those pages."""
    adapter = app.url_map.bind(app.config.get("SERVER_NAME") or "localhost")
    site = SiteMap({}, {}, {})

    def route_of(path: str, method: str) -> Rule | None:
        try:
            rule, _ = adapter.match(path, method=method, return_rule=True)
        except HTTPException:
            return None
        return None if rule.endpoint.split(".")[-1] == "static" else rule

    def note(path: str, method: str) -> bool:
        rule = route_of(path, method)
        if rule is None:
            return False
        known = site.paths.setdefault((method, rule.rule), set())
        new = path not in known
        known.add(path)
        return new

    queue = [path for rule in routes(app, "GET") for path in fill(rule, group)]
    for rule in routes(app, "POST"):
        for path in fill(rule, group):
            note(path, "POST")
    for path in queue:
        note(path, "GET")
    seen: set[str] = set()
    while queue and len(seen) < limit:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        response = client.get(path)
        if response.status_code != 200 or response.mimetype != "text/html":
            continue
        reader = _LinkReader()
        reader.feed(response.text)
        for href in reader.links:
            target = urlsplit(urljoin(path, href))
            if target.netloc not in ("", adapter.server_name):
                continue
            if note(target.path, "GET"):
                queue.append(target.path)
            if target.query and route_of(target.path, "GET"):
                site.add_query(target.path, ((name, [value]) for name, value
                                             in parse_qsl(target.query, keep_blank_values=True)))
        for form in forms_on(response.text, path):
            action = form.action.split("?")[0]
            if note(action, form.method) and form.method == "GET":
                queue.append(action)
            if form.method == "GET":
                site.add_query(action, (*form.fields.items(), *form.options.items()))
            if form.method == "POST":
                site.forms.setdefault(action, form)
    return site


def dump(database: str) -> dict[str, list[tuple]]:
    """Every row of every table, for comparing the whole database before and after."""
    connection = sqlite3.connect(database)
    try:
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
                for table in tables}
    finally:
        connection.close()


def copy_database(source: str | Path, target: str | Path) -> None:
    """Copy a SQLite database onto another, safely even while it is in WAL mode."""
    with contextlib.closing(sqlite3.connect(source)) as src, \
            contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def cookie_domain(app: Flask) -> str:
    return app.config.get("SERVER_NAME") or "localhost"


@dataclass(frozen=True)
class Snapshot:
    """A sample database, built once, and what the phones that built it know: cookies, groups, pages.

    Building a sample through the pages takes seconds; a test copies the snapshot instead. The cookies
    and CSRF tokens stay valid in the copy, since every test app signs with the same secret key.
    """

    database: Path
    cookies: dict[str, str]  # phone → session cookie
    groups: dict[str, SampleGroup]  # phone → the group it built
    sites: dict[str, SiteMap]  # phone → what it reaches in its group

    def restore(self, tmp_path: Path, **config) -> tuple[Flask, dict[str, FlaskClient]]:
        """A fresh app on a copy of the snapshot, and a test client per phone."""
        app = make_app(tmp_path, **config)
        copy_database(self.database, app.config["DATABASE"])
        phones = {}
        for name, cookie in self.cookies.items():
            phones[name] = app.test_client()
            phones[name].set_cookie("session", cookie, domain=cookie_domain(app))
        return app, phones


def take_snapshot(folder: Path, groups: dict[str, tuple[str, tuple[str, ...]]], **config) -> Snapshot:
    """Each phone (key) builds its group (name, players) through the pages and walks what it reaches."""
    app = make_app(folder, **config)
    cookies, built, sites = {}, {}, {}
    for phone_name, (group_name, players) in groups.items():
        phone = app.test_client()
        built[phone_name] = build_sample_group(app, phone, group_name, players)
        sites[phone_name] = crawl(app, phone, built[phone_name])
        cookies[phone_name] = phone.get_cookie("session", domain=cookie_domain(app)).value
    return Snapshot(Path(app.config["DATABASE"]), cookies, built, sites)


# --- the tests -----------------------------------------------------------------------------------

OWNER_PLAYERS = ("Quintessa", "Bartholomew", "Ximena", "Zebulon")


@pytest.fixture(scope="module")
def two_groups_snapshot(tmp_path_factory) -> Snapshot:
    """Phone "owner" built "Hidden Valley", phone "visitor" "Open Table"; neither joined the other's."""
    return take_snapshot(tmp_path_factory.mktemp("isolation"), {
        "owner": ("Hidden Valley", OWNER_PLAYERS),
        "visitor": ("Open Table", ("Anna", "Ben", "Cara")),
    })


def _leaks(text: str, group: SampleGroup) -> list[str]:
    return [word for word in (group.name, group.token, group.join_code, *group.player_names) if word in text]


def private_routes(app: Flask, method: str) -> list[Rule]:
    return [rule for rule in routes(app, method) if is_private(rule)]


def test_every_private_get_page_works_for_a_member(two_groups_snapshot, tmp_path):
    """The control: the routes filled in from a sample group are real pages for the group's own phone."""
    app, phones = two_groups_snapshot.restore(tmp_path)
    site = two_groups_snapshot.sites["owner"]
    private = private_routes(app, "GET")
    assert len(private) >= 8, "the walk found too few routes to mean anything"
    for rule in private:
        answers = {path: phones["owner"].get(path).status_code for path in site.of(rule, "GET")}
        assert any(status != 404 for status in answers.values()), (
            f"{rule.rule}: every way of filling in its parameters from a sample group gave 404 even for "
            f"a member, so the isolation test cannot tell; teach parameter_values() its parameters")
        assert not any(status >= 500 for status in answers.values()), (rule.rule, answers)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_another_groups_ids_answer_404_on_every_route(two_groups_snapshot, tmp_path, method):
    app, phones = two_groups_snapshot.restore(tmp_path)
    hidden, own = two_groups_snapshot.groups["owner"], two_groups_snapshot.groups["visitor"]
    site = two_groups_snapshot.sites["owner"]
    stranger = app.test_client()  # a phone that joined nothing at all
    before = dump(app.config["DATABASE"])
    checked = set()
    for rule in private_routes(app, method):
        for path in site.of(rule, method) + mixed_paths(rule, own, hidden):
            # the owner's own form for this action: what a phone of that group would send
            form = site.forms.get(path)
            data = form.fields if form and method == "POST" else None
            for client in (phones["visitor"], stranger):
                response = client.open(path, method=method, data=data)
                assert response.status_code == 404, (method, path, response.status_code)
                assert not _leaks(response.text, hidden), (method, path, _leaks(response.text, hidden))
            checked.add(rule.rule)
    assert len(checked) == len(private_routes(app, method))
    assert dump(app.config["DATABASE"]) == before, "a refused request changed the database"


def test_own_pages_show_nothing_of_the_other_group(two_groups_snapshot, tmp_path):
    _, phones = two_groups_snapshot.restore(tmp_path)
    hidden = two_groups_snapshot.groups["owner"]
    for (method, _rule), paths in two_groups_snapshot.sites["visitor"].paths.items():
        if method != "GET":
            continue
        for path in paths:
            response = phones["visitor"].get(path)
            assert response.status_code < 500, (path, response.status_code)
            assert not _leaks(response.text, hidden), (path, _leaks(response.text, hidden))


# numbers an address may carry that SQLite cannot hold: one beyond its largest integer, and far beyond
TOO_LARGE = (2**63, 10**30)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_id_too_large_to_store_answers_404_on_every_route(two_groups_snapshot, tmp_path, method):
    """A member's own address with one of its numbers too large for SQLite: not found, nothing stored."""
    app, phones = two_groups_snapshot.restore(tmp_path)
    own = two_groups_snapshot.groups["owner"]
    before = dump(app.config["DATABASE"])
    checked = 0
    for rule in routes(app, method):
        numbers = [name for name in rule.arguments if re.search(rf"<int(\([^)]*\))?:{name}>", rule.rule)]
        for name, too_large in itertools.product(numbers, TOO_LARGE):
            choices = {other: parameter_values(rule, other, own)[:1] for other in rule.arguments}
            for path in _paths(rule, {**choices, name: [too_large]}):
                response = phones["owner"].open(path, method=method)
                assert response.status_code == 404, (method, path, response.status_code)
                checked += 1
    assert checked >= 20, "too few addresses with numbers to mean anything"
    assert dump(app.config["DATABASE"]) == before, "a refused request changed the database"
