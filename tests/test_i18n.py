"""German and English: the catalogue, the rules' messages in both languages, every kind of page in German."""

from __future__ import annotations

import html
import re
import shlex
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from companion import store
from companion.games import gold_west, great_western_trail, mayflower
from companion.games.common import PlaySetup, RulesError, Seat
from companion.messages import Message, Term
from companion.views.common import translated
from companion.web import i18n
from companion.web.labels import TERMS
from tests.conftest import add_players, create_group, make_app, start_play
from tests.test_bgstats_import import mutated
from tests.test_great_western_trail_web import ANNA_96, changed
from tests.test_mayflower_web import complete, text_of

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "translations" / "de" / "LC_MESSAGES" / "messages.po"
COMPILED = CATALOGUE.with_suffix(".mo")
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]")
GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


def read_catalogue():
    with CATALOGUE.open("rb") as file:
        return read_po(file, locale="de")


def messages_of(compiled: bytes) -> dict:
    """Every entry of a compiled catalogue, the header included; plural forms as tuples."""
    def key(value):
        return tuple(value) if isinstance(value, list | tuple) else value
    return {key(message.id): key(message.string) for message in read_mo(BytesIO(compiled))}


def page_text(page: str) -> str:
    """The words a reader sees: tags and scripts removed, entities decoded, spaces collapsed."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def html_lang(page: str) -> str:
    return re.search(r'<html lang="([^"]+)"', page).group(1)


# --- the catalogue ---------------------------------------------------------------------------------


def test_the_compiled_catalogue_is_the_po_compiled():
    compiled = BytesIO()
    write_mo(compiled, read_catalogue())
    assert messages_of(COMPILED.read_bytes()) == messages_of(compiled.getvalue()), (
        "translations/de/LC_MESSAGES/messages.mo is out of date: run `make translations`")


def extraction_keywords() -> list[str]:
    """The keywords `make translations` extracts with (MESSAGE_KEYWORDS): both look for the same calls."""
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = re.search(r"^MESSAGE_KEYWORDS\s*:=(.*)$", makefile, re.M)
    assert line, "the Makefile defines MESSAGE_KEYWORDS"
    return shlex.split(line.group(1))


def test_the_extraction_and_the_catalogue_hold_the_same_sentences(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    template = tmp_path / "messages.pot"
    CommandLineInterface().run(["pybabel", "-q", "extract", "-F", "babel.cfg", *extraction_keywords(),
                                "-o", str(template), "."])
    with template.open("rb") as file:
        extracted = {message.id for message in read_po(file) if message.id}
    # the rules' own messages are among them, not only the pages'
    assert "%(name)s has only %(settlers)d settlers; %(held)d cannot be on the map at once." in extracted
    assert "Only one player holds the job-market token, and %(name)s already does." in extracted
    translated_ids = {message.id for message in read_catalogue() if message.id and message.string}
    missing = sorted(map(str, extracted - translated_ids))
    assert not missing, f"run `make translations` and translate: {missing}"
    # a sentence the extraction cannot see (``super().__init__("…")``) would lose its German at the next run
    dropped = sorted(map(str, translated_ids - extracted))
    assert not dropped, f"`make translations` would drop these (and their German): {dropped}"


def test_every_refusal_raised_with_its_sentence_is_extracted():
    """A refusal class raised as ``SomeError("…")`` is a keyword of the extraction, else its sentence stays
    English on every page. The JSON API's errors stay English by contract."""
    source = "".join(path.read_text() for path in (ROOT / "companion").rglob("*.py"))
    refusals = {"Refused", "RulesError", "StoreError"}
    classes = re.findall(r"^class (\w+)\((\w+)", source, re.M)
    for _ in range(5):  # subclasses of subclasses
        refusals |= {name for name, base in classes if base in refusals}
    raised = {name for name in refusals - {"ApiError"} if re.search(rf"\b{name}\(\s*[\"']", source)}
    keywords = {word for word in extraction_keywords() if word != "-k"}
    assert sorted(raised - keywords) == []


def english_and_german(message) -> list[tuple[str, str]]:
    """Each form of a catalogue entry with its German (plural forms: singular, then plural)."""
    english = message.id if isinstance(message.id, tuple) else (message.id,)
    german = message.string if isinstance(message.string, tuple) else (message.string,)
    return [(english[min(form, len(english) - 1)], target) for form, target in enumerate(german)]


def test_every_entry_is_translated_and_keeps_its_placeholders():
    for message in read_catalogue():
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        for source, target in english_and_german(message):
            assert target, f"no translation for {message.id!r}"
            assert set(PLACEHOLDER.findall(source)) == set(PLACEHOLDER.findall(target)), (source, target)


# One German word for one thing across the pages; None: a word the pages never use.
@pytest.mark.parametrize(("german", "meanings"), [
    pytest.param("Karte", r"\b(?:map|cards?)\b", id="a-karte-is-the-map-or-a-card-never-a-tile"),
    pytest.param("Geschichte", None, id="the-history-is-der-verlauf-not-die-geschichte"),
])
def test_a_german_word_stands_for_one_thing_in_every_sentence(german, meanings):
    misused = [source for message in read_catalogue() if message.id
               for source, target in english_and_german(message)
               if re.search(rf"\b{german}", target) and not (meanings and re.search(meanings, source, re.I))]
    assert misused == []


# --- the rules' messages ---------------------------------------------------------------------------


def mayflower_table(players: int = 2) -> mayflower.PlayState:
    names = ("Anna", "Ben", "Cara", "Dan", "Eve")[:players]
    return mayflower.initial_state(PlaySetup("mayflower", tuple(Seat(name, "red") for name in names)))


def sixth_settler() -> None:
    state = mayflower_table()
    for _ in range(mayflower.SETTLERS_PER_PLAYER + 1):
        state = mayflower.apply_event(state, "place", {"seat": 0, "role": "bandit", "column": 1})


def sheriff_on_a_road_letter() -> None:
    state = mayflower.apply_event(mayflower_table(), "place", {"seat": 0, "role": "sheriff", "column": 1})
    state = mayflower.apply_event(state, "place", {"seat": 1, "role": "bandit", "column": 1})
    slots = mayflower.final_slots(state)  # A: Ben's bandit (a road), B: Anna's sheriff (a city)
    mayflower.settle_final_tally(["Anna", "Ben"], [0, 0], slots, {"1-1": "A", "0-1": "A"},
                                 {"A": {"tiles": 2}})


def two_job_market_tokens() -> None:
    great_western_trail.final_result(2, [great_western_trail.Tally("Anna", job_market_token=True),
                                         great_western_trail.Tally("Ben", job_market_token=True)])


def second_group_larger() -> None:
    gold_west.check_tallies([gold_west.PlayerTally("Anna", largest_group=3, second_group=5),
                             gold_west.PlayerTally("Ben")])


@pytest.mark.parametrize(("refused", "english", "german"), [
    pytest.param(sixth_settler,
                 "Anna has only 5 settlers; 6 cannot be on the map at once.",
                 "Anna hat nur 5 Siedler; 6 können nicht gleichzeitig auf der Karte stehen.",
                 id="sixth-settler"),
    pytest.param(sheriff_on_a_road_letter,
                 "Feature A is a road, and a road holds bandits only: Anna's sheriff in column 1 cannot be "
                 "on it. Pick the letter of a city.",
                 "Gebiet A ist eine Straße, und auf eine Straße gehören nur Banditen: Sheriff von Anna in "
                 "Spalte 1 kann nicht darauf stehen. Wähle den Buchstaben einer Stadt.",
                 id="game-words-and-a-nested-message"),
    pytest.param(two_job_market_tokens, "Only one player holds the job-market token, and Anna already does.",
                 "Nur ein Spieler hat den Jobmarkt-Marker, und Anna hat ihn schon.", id="gwt-job-market"),
    pytest.param(second_group_larger, "Anna's second-largest group (5) cannot be larger than the largest "
                 "group (3).", "Die zweitgrößte Gruppe von Anna (5) kann nicht größer sein als die größte "
                 "Gruppe (3).", id="gold-west-groups"),
])
def test_a_rules_error_is_english_and_translates_to_german(app, refused, english, german):
    with pytest.raises(RulesError) as caught:
        refused()
    error = caught.value
    assert str(error) == error.message == english
    assert error.template % error.params == english
    with app.test_request_context(headers=GERMAN):
        assert translated(error) == german
    with app.test_request_context(headers=ENGLISH):
        assert translated(error) == english


def test_a_sentence_the_catalogue_lacks_stays_english(app):
    error = RulesError("No catalogue knows %(what)s (%(count)d).", "x", what=Term("bandit"), count=3)
    with app.test_request_context(headers=GERMAN):
        # the game word is German, the unknown sentence around it stays as it is
        assert translated(error) == "No catalogue knows Bandit (3)."
        assert translated("a plain sentence") == "a plain sentence"


def game_words() -> set[str]:
    """Every game word (Term) the rules can put into a message a page shows."""
    words = {*mayflower.ROLES, *(role + "s" for role in mayflower.ROLES), *mayflower.FINAL_KINDS,
             *mayflower.SURVEYOR_NAMES, *mayflower._SIZE_WORDS.values()}
    for sizes in mayflower.FINAL_SIZES.values():
        words.update(sizes)
        words.update(size.replace("_", " ") for size in sizes)
    words.update(great_western_trail.WORKER_ROWS)
    words.update(name.replace("_", " ").capitalize() for name in great_western_trail._NON_NEGATIVE)
    words.update({"buildings", "cattle"})
    words.update(gold_west.TERRAINS)
    words.update(terrain.capitalize() for terrain in gold_west.TERRAINS)
    words.update(gold_west.METALS)
    words.update(gold_west._TERRAIN_MAPS.values())
    words.update(name.replace("_", " ") for name in gold_west._PLAYER_COUNTS)
    words.update({*gold_west._CLAIM_COUNTS, "BoomTown tokens"})
    return words


def test_every_game_word_has_a_german_name(app):
    missing = sorted(game_words() - set(TERMS))
    assert not missing, f"add them to companion.web.labels.TERMS: {missing}"
    with app.test_request_context(headers=GERMAN):
        assert str(TERMS["bandits"]) == "Banditen" and str(TERMS["north"]) == "Nord"


def test_problem_lists_carry_their_template():
    problems = great_western_trail.tally_problems(3, [])
    assert problems == [("edition", "The edition must be 1 or 2.")]
    assert isinstance(problems[0][1], Message) and problems[0][1].template == "The edition must be 1 or 2."


# --- pages in German -------------------------------------------------------------------------------


def finish_with_totals(client, play_id: int, totals: list[int]) -> None:
    form = client.get(f"/plays/{play_id}/finish").text
    version = re.search(r'name="version" type="hidden" value="(\d+)"', form).group(1)
    data = {"version": version, **{f"total_{seat}": str(total) for seat, total in enumerate(totals)}}
    assert client.post(f"/plays/{play_id}/finish", data=data).status_code == 302


@pytest.fixture
def tables(client, db) -> dict:
    """Anna, Ben and Cara with a play of each game, a finished Gold West play and one finished by totals."""
    group_id = create_group(client, "Freitagsrunde")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = [player.id for player in store.list_players(db, group_id)]
    seats = list(zip(ids, ("red", "blue", "green"), strict=True))
    found = {"group": group_id, "players": ids}
    for game in ("mayflower", "great-western-trail", "gold-west"):
        found[game] = start_play(client, group_id, game, seats)
    found["totals"] = start_play(client, group_id, "mayflower", seats[:2])
    finish_with_totals(client, found["totals"], [40, 35])
    found["gold-west-done"] = start_play(client, group_id, "gold-west", seats)
    response = client.post(f"/plays/{found['gold-west-done']}/gold-west/final-tally", data={
        "confirmed": "y", "version": "0", "p0-track_vp": "30", "p0-influence-gold": "3", "p1-track_vp": "32",
        "p1-influence-gold": "3", "p1-wanted": "2", "p2-track_vp": "31", "p2-influence-forest": "2"})
    assert response.status_code == 302
    return found


GERMAN_PAGES = [
    pytest.param(lambda t: "/", ["Deine Spieleabende", "Gruppe gründen", "Einer Gruppe beitreten",
                                 "Beitrittscode"], ["Your game nights"], id="home"),
    pytest.param(lambda t: f"/groups/{t['group']}",
                 ["Neue Partie", "Laufende Partien", "Spieler hinzufügen", "Den Tisch einladen",
                  "Letzte Ergebnisse"], ["Add player"], id="group"),
    pytest.param(lambda t: f"/groups/{t['group']}/plays/new/great-western-trail",
                 ["Neue Partie Great Western Trail", "Startgeld nach Sitzplatz", "2. Auflage (2021)",
                  "Partie starten"], ["Start the play"], id="new-play"),
    pytest.param(lambda t: f"/plays/{t['mayflower']}",
                 ["Landvermesser", "Bandit", "Wer ist dran", "Neuer Siedler in die gewählte Spalte",
                  "Punktetafel", "Werten", "Spalte 0: die Küste"],
                 ["Surveyors", "New settler", "settlers left", "Whose turn"],
                 id="mayflower-play"),
    pytest.param(lambda t: f"/plays/{t['mayflower']}/mayflower/final-tally",
                 ["Schlusswertung", "Kein Siedler ist mehr auf der Karte"], ["Final tally"],
                 id="mayflower-final-tally"),
    pytest.param(lambda t: f"/plays/{t['great-western-trail']}",
                 ["Startgeld", "Gelieferte Herden", "Wertungskarten", "Lieferung eintragen"],
                 ["Delivered herds"], id="gwt-play"),
    pytest.param(lambda t: f"/plays/{t['great-western-trail']}/gwt/final-tally/0",
                 ["Rinder", "Bahnhofsvorsteher", "Aufträge", "Gebäude", "Städte", "Bahnhöfe", "Gefahren",
                  "Arbeiter", "Cowboys", "Handwerker", "Lokführer", "Jobmarkt-Marker"],
                 ["Station masters", "Objectives"], id="gwt-card"),
    pytest.param(lambda t: f"/plays/{t['gold-west']}",
                 ["Investitionen", "Plündern", "Vorratsleiste", "Camp", "Spedition", "Außer der Reihe"],
                 ["Loot"],
                 id="gold-west-ledger"),
    pytest.param(lambda t: f"/plays/{t['gold-west']}/gold-west/final-tally",
                 ["Camps im Wanted-Bereich", "Siedlungen", "Einfluss", "Wanted", "Minenmarker", "Rathaus",
                  "Übrige Rohstoffe auf der Vorratsleiste"], ["Settlements", "Influence"],
                 id="gold-west-end-scoring"),
    pytest.param(lambda t: f"/plays/{t['totals']}/result",
                 ["Anna gewinnt!", "Summe", "Zurück zur Gruppe"], ["wins!"], id="result"),
    pytest.param(lambda t: f"/plays/{t['gold-west-done']}/result",
                 ["Mehrheiten in den Geländen", "Gold: Anna und Ben teilen sich Platz 1: 9 + 5 = 14, je 7; "
                  "kein Platz 2.", "Wald: Cara auf Platz 1 (8); sonst hat niemand Einfluss.",
                  "Silber: hier hat niemand Einfluss.", "Gleichstände",
                  "Anna und Ben haben gleich viele SP (37); entscheidend: die wenigsten Camps im "
                  "Wanted-Bereich (Anna 0, Ben 2) – Anna Platz 2; Ben Platz 3."],
                 ["nobody has influence", "Terrain majorities"], id="gold-west-result"),
    pytest.param(lambda t: f"/groups/{t['group']}/history",
                 ["Verlauf", "Statistik", "Alle Spiele", "Den Verlauf mitnehmen"], ["Show all"],
                 id="history"),
    pytest.param(lambda t: f"/groups/{t['group']}/statistics",
                 ["Statistik", "Siege", "Siegquote", "Direkter Vergleich"], ["Win rate"], id="statistics"),
]


@pytest.mark.parametrize(("url", "german", "english"), GERMAN_PAGES)
def test_pages_speak_german_to_a_german_phone(client, tables, url, german, english):
    response = client.get(url(tables), headers=GERMAN)
    assert response.status_code == 200
    assert html_lang(response.text) == "de"
    text = page_text(response.text)
    for words in german:
        assert words in text
    for words in english:
        assert words not in text


@pytest.mark.parametrize(("delete", "shown_on"), [
    pytest.param(lambda t: f"/plays/{t['mayflower']}/delete", lambda t: f"/groups/{t['group']}", id="play"),
    pytest.param(lambda t: f"/groups/{t['group']}/delete", lambda t: "/", id="group"),
])
def test_the_trash_writes_the_day_of_deletion_in_german(app, client, tables, delete, shown_on):
    app.config["CLOCK"] = lambda: datetime(2026, 3, 1, 12, 0, tzinfo=UTC)  # that day the world over
    assert client.post(delete(tables)).status_code == 302
    text = page_text(client.get(shown_on(tables), headers=GERMAN).text)
    assert "gelöscht am 01.03.2026" in text and "2026-03-01" not in text


@pytest.mark.parametrize(("date", "shown"), [
    pytest.param("2024-02-23 19:45:00", "23.02.24, 19:45", id="on-the-groups-clocks"),
    pytest.param("2024-02-23T10:45:00+00:00", "23.02.24, 11:45", id="with-a-zone"),  # Berlin: UTC+1
    pytest.param("Friday evening", "Friday evening", id="no-date"),
])
def test_the_bg_stats_confirmation_writes_the_files_days_in_german(client, db, date, shown):
    group_id = create_group(client, "Freitagsrunde")
    store.save_group_settings(db, group_id, store.GroupSettings("Europe/Berlin", "", {}))

    def changed(document):
        document["plays"][0]["playerScores"][1]["winner"] = True  # winners the points do not give
        document["plays"][4]["playDate"] = date  # El Paso: not one of the companion's games

    page = client.post(f"/groups/{group_id}/import/bg-stats", headers=GERMAN,
                       data={"export": (BytesIO(mutated(changed)), "BGStatsExport.json")},
                       content_type="multipart/form-data")
    assert page.status_code == 200
    text = page_text(page.text)
    assert "Great Western Trail (05.01.2024)" in text
    assert re.search(rf"Great Western Trail: El Paso {re.escape(shown)} \S", text), text


def test_the_same_pages_stay_english_for_an_english_phone(client, tables):
    page = client.get(f"/plays/{tables['mayflower']}", headers=ENGLISH).text
    assert html_lang(page) == "en"
    assert "Surveyors: north in column 0" in page_text(page) and "Landvermesser" not in page


# --- the language switch ---------------------------------------------------------------------------


def switch(client, language: str, headers: dict, back_to: str = "/"):
    return client.post("/language", data={"lang": language, "next": back_to}, headers=headers)


def test_the_switch_overrides_the_browser_language_and_is_remembered(client, tables):
    play = f"/plays/{tables['mayflower']}"
    assert html_lang(client.get(play, headers=GERMAN).text) == "de"
    response = switch(client, "en", GERMAN, back_to=play)
    assert response.status_code == 302 and response.headers["Location"].endswith(play)
    assert re.search(r"\blang=en\b", response.headers["Set-Cookie"])
    for url in (play, "/", f"/groups/{tables['group']}/history"):
        page = client.get(url, headers=GERMAN).text
        assert html_lang(page) == "en" and "Game-Night Companion" in page
    assert "Surveyors: north in column 0" in page_text(client.get(play, headers=GERMAN).text)
    # and back: German wins over an English phone
    switch(client, "de", ENGLISH)
    page = client.get(play, headers=ENGLISH).text
    assert html_lang(page) == "de" and "Landvermesser: Nord in Spalte 0" in page_text(page)


@pytest.mark.parametrize("csrf", [False, True], ids=["no name", "no CSRF token"])
@pytest.mark.parametrize(("referrer", "back_to"), [
    ("http://companion.test/groups/new?x=1", "/groups/new?x=1"),
    ("http://elsewhere.example/groups/new", "/"),
    ("http://[::1", "/"),  # no URL a browser sends: urlsplit refuses it
    ("http://]x/", "/"),
])
def test_a_refused_form_offers_the_switch_back_to_the_page_it_came_from(tmp_path, csrf, referrer, back_to):
    client = make_app(tmp_path, WTF_CSRF_ENABLED=csrf).test_client()
    sent = {"name": "Friday night" if csrf else ""}  # without its CSRF token, or without a name
    refused = client.post("/groups", data=sent, headers={"Referer": referrer})
    assert refused.status_code == 400
    assert f'<input type="hidden" name="next" value="{html.escape(back_to)}">' in refused.text


def test_a_language_the_site_lacks_changes_nothing(client):
    response = switch(client, "fr", GERMAN)
    assert response.status_code == 302 and "Set-Cookie" not in response.headers
    assert html_lang(client.get("/", headers=GERMAN).text) == "de"
    assert html_lang(client.get("/", headers={"Accept-Language": "fr"}).text) == "en"


def test_the_header_offers_the_other_language(client):
    german = client.get("/", headers=GERMAN).text
    assert re.search(r'<button class="link" name="lang" value="en" lang="en">English</button>', german)
    english = client.get("/", headers=ENGLISH).text
    assert re.search(r'<button class="link" name="lang" value="de" lang="de">Deutsch</button>', english)


# --- rules errors shown on German pages ----------------------------------------------------------


def place_bandit(client, play_id: int, headers: dict):
    return client.post(f"/plays/{play_id}/mayflower/place",
                       data={"place-seat": "0", "place-role": "bandit", "place-column": "1"}, headers=headers)


@pytest.mark.parametrize(("headers", "words"), [
    pytest.param(GERMAN, "hat nur 5 Siedler; 6 können nicht gleichzeitig auf der Karte stehen.", id="german"),
    pytest.param(ENGLISH, "has only 5 settlers; 6 cannot be on the map at once.", id="english"),
])
def test_a_sixth_settler_is_refused_in_the_phones_language(client, db, tables, headers, words):
    play_id = tables["mayflower"]
    for _ in range(mayflower.SETTLERS_PER_PLAYER):
        assert place_bandit(client, play_id, headers).status_code == 302
    response = place_bandit(client, play_id, headers)
    assert response.status_code == 409
    assert words in page_text(response.text)
    assert len(store.list_events(db, play_id)) == mayflower.SETTLERS_PER_PLAYER


def test_a_misplaced_settler_in_the_final_tally_is_explained_in_german(client, db, tables):
    play_id = tables["mayflower"]
    for seat, role in ((0, "sheriff"), (1, "bandit")):
        placed = client.post(f"/plays/{play_id}/mayflower/place",
                             data={"place-seat": str(seat), "place-role": role, "place-column": "1"})
        assert placed.status_code == 302
    page = client.get(f"/plays/{play_id}/mayflower/final-tally", headers=GERMAN).text
    version = re.search(r'name="version" type="hidden" value="(\d+)"', page).group(1)
    # Ben's bandit and Anna's sheriff tapped as one feature
    response = client.post(f"/plays/{play_id}/mayflower/final-tally", headers=GERMAN, data={
        "version": version, "settlers": ["1-1", "0-1"], "tiles": "2"})
    assert response.status_code == 400
    refusal = ("Bandit von Ben in Spalte 1 und Sheriff von Anna in Spalte 1 können nicht auf einem Gebiet "
               "stehen: auf eine Straße gehören nur Banditen.")
    assert refusal in page_text(response.text)
    assert store.get_play(db, play_id).status == "active"


def test_a_broken_end_scoring_is_explained_in_german(client, db, tables):
    play_id = tables["gold-west"]
    response = client.post(f"/plays/{play_id}/gold-west/final-tally", headers=GERMAN, data={
        "confirmed": "y", "version": "0", "p1-largest_group": "3", "p1-second_group": "5"})
    assert response.status_code == 400
    assert ("Die zweitgrößte Gruppe von Ben (5) kann nicht größer sein als die größte Gruppe (3)."
            in page_text(response.text))
    assert store.list_events(db, play_id) == []


def seats_of(tables) -> dict[str, str]:
    return {"seat_0-player": str(tables["players"][0]), "seat_1-player": str(tables["players"][1])}


# WTForms' own messages, from forms inside another (a FormField) or read from a page's query
@pytest.mark.parametrize(("request_of", "english", "german"), [
    pytest.param(lambda t: ("post", f"/plays/{t['gold-west']}/gold-west/final-tally",
                            {"confirmed": "y", "version": "0", "p0-track_vp": "30", "p0-wanted": "150"}),
                 "Number must be between 0 and 99.", "Zahl muss zwischen 0 und 99 liegen.",
                 id="gold-west-tally"),
    pytest.param(lambda t: ("post", f"/groups/{t['group']}/plays/new/gold-west",
                            {**seats_of(t), "seat_1-player": "Ben"}),
                 "Invalid Choice: could not coerce.", "Ungültige Auswahl: Konnte nicht umwandeln.",
                 id="new-play-seat"),
    pytest.param(lambda t: ("post", f"/groups/{t['group']}/plays/new/great-western-trail",
                            {**seats_of(t), "options-edition": "3"}),
                 "Not a valid choice.", "Keine gültige Auswahl.", id="new-play-options"),
    pytest.param(lambda t: ("get", f"/groups/{t['group']}/history?page=x", {}),
                 "Not a valid integer value.", "Keine gültige, ganze Zahl.", id="history-page"),
])
def test_the_forms_own_messages_are_in_german_inside_other_forms(client, tables, request_of, english, german):
    method, url, data = request_of(tables)
    response = getattr(client, method)(url, data=data, headers=GERMAN)
    assert response.status_code == 400
    text = page_text(response.text)
    assert german in text and english not in text


def test_a_mayflower_feature_count_out_of_range_is_explained_in_german(client, tables):
    play_id = tables["mayflower"]
    assert place_bandit(client, play_id, GERMAN).status_code == 302
    page = client.get(f"/plays/{play_id}", headers=GERMAN).text
    version = re.search(r'name="complete-version" type="hidden" value="(\d+)"', page).group(1)
    response = client.post(f"/plays/{play_id}/mayflower/complete", headers=GERMAN, data={
        "complete-version": version, "complete-feature_1-settlers": "0-1", "complete-feature_1-tiles": "2",
        "complete-feature_1-trading_posts": "-3"})
    assert response.status_code == 400
    text = page_text(response.text)
    assert "Zahl muss zwischen 0 und 999 liegen." in text and "Number must be between" not in text


def test_cards_that_disagree_are_explained_in_german(client, db, tables):
    play_id = tables["great-western-trail"]
    card = {"revision": "0", "objective_rows": "8", "dollars": "10", "buildings_vp": "0", "cities_vp": "0",
            "stations_vp": "0", "hazards_vp": "0", "cattle_vp": "30", "cowboys": "1", "craftsmen": "1",
            "engineers": "1"}
    for seat in range(3):
        token = {"job_market_token": "y"} if seat < 2 else {}
        handed_in = client.post(f"/plays/{play_id}/gwt/final-tally/{seat}", data={**card, **token})
        assert handed_in.status_code == 302
    overview = page_text(client.get(f"/plays/{play_id}/gwt/final-tally", headers=GERMAN).text)
    assert "Alle Karten sind abgegeben, aber zusammen verstoßen sie gegen die Regeln:" in overview
    assert "Ben: Nur ein Spieler hat den Jobmarkt-Marker, und Anna hat ihn schon." in overview
    assert store.get_play(db, play_id).status == "active"


# --- a count of 1: "1 Punkt", "0 Punkte" -----------------------------------------------------------


def mayflower_scoring_of_1(client, db, tables) -> str:
    """The last scoring's report after a one-tile road with Anna's bandit (1 VP, no bonus)."""
    play_id = tables["mayflower"]
    assert place_bandit(client, play_id, GERMAN).status_code == 302
    road = {"kind": "road", "tiles": 1, "settlers": [(0, "bandit", 1)]}
    assert complete(client, db, play_id, road).status_code == 302
    return text_of(client.get(f"/plays/{play_id}", headers=GERMAN).text, "mf-report")


def gold_west_scores_read_out(client, db, tables) -> str:
    """What a screen reader says for each running score, Anna at 1 and the others at 0."""
    play_id = tables["gold-west"]
    assert client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "1"}).status_code == 302
    page = client.get(f"/plays/{play_id}", headers=GERMAN).text
    return " | ".join(re.findall(r'class="gw-score" aria-label="([^"]*)"', page))


def correction_below_0_from_1(client, db, tables) -> str:
    play_id = tables["mayflower"]
    assert client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "1"}).status_code == 302
    refused = client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "-5"}, headers=GERMAN)
    assert refused.status_code == 409
    return page_text(refused.text)


def hazards_of_1_worth_7(client, db, tables) -> str:
    """A Great Western Trail card whose one hazard tile (2 to 4 VP) is entered as 7 VP."""
    card = changed(ANNA_96, station_masters=["workers", "hazards"], hazards="1", hazards_vp="7")
    play_id = tables["great-western-trail"]
    refused = client.post(f"/plays/{play_id}/gwt/final-tally/0", data=card, headers=GERMAN)
    assert refused.status_code == 400
    return page_text(refused.text)


def backup_of_1_player_imported(client, db, tables) -> str:
    group_id = create_group(client, "Solorunde")
    add_players(client, group_id, ("Anna", "red"))
    backup = client.get(f"/groups/{group_id}/export/backup.json").data
    imported = client.post("/groups/import", data={"backup": (BytesIO(backup), "backup.json")},
                           content_type="multipart/form-data", headers=GERMAN, follow_redirects=True)
    return page_text(imported.text)


def solo_game_player_counts(client, db, tables) -> str:
    """What a screen reader says for the player-count tabs of a game played by 1 to 3 (in English)."""
    client.post(f"/groups/{tables['group']}/games/new",
                data={"name": "Solo", "min_players": "1", "max_players": "3"}, headers=ENGLISH)
    group_page = client.get(f"/groups/{tables['group']}").text
    game = re.search(r'/plays/new/(custom-\d+)">Solo<', group_page).group(1)
    page = client.get(f"/groups/{tables['group']}/plays/new/{game}", headers=ENGLISH).text
    return " | ".join(re.findall(r'<a class="button[^"]*"[^>]*aria-label="([^"]*)"', page))


@pytest.mark.parametrize(("shown", "says", "never"), [
    pytest.param(mayflower_scoring_of_1, "Anna: 1 Punkt", "1 Punkte", id="mayflower-last-scoring"),
    pytest.param(gold_west_scores_read_out, "1 Punkt | 0 Punkte | 0 Punkte", "1 Punkte",
                 id="gold-west-score"),
    pytest.param(correction_below_0_from_1,
                 "Der Punktestand von Anna ist 1; eine Korrektur um -5 brächte ihn unter 0.", "1 Punkte",
                 id="refused-correction"),
    pytest.param(hazards_of_1_worth_7, "bei einer Anzahl von 1 also 2 bis 4 SP, nicht 7",
                 "1 Gefahrenplättchen", id="gwt-hazard-tiles"),
    pytest.param(backup_of_1_player_imported, "Solorunde importiert (Spieler: 1, Partien: 0).",
                 "1 Spielern", id="backup-import"),
    pytest.param(solo_game_player_counts, "1 player | 2 players | 3 players", "1 players",
                 id="player-count-tabs-in-english"),
])
def test_a_count_of_1_is_written_in_the_singular(client, db, tables, shown, says, never):
    text = shown(client, db, tables)
    assert says in text
    assert not re.search(rf"(?<!\d){never}\b", text), text


def test_the_api_answers_in_english_whatever_the_phone_speaks(client):
    body = {"edition": 2, "players": [{"name": "Anna", "job_market_token": True},
                                      {"name": "Ben", "job_market_token": True}]}
    response = client.post("/api/v1/score/great-western-trail", json=body, headers=GERMAN)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(
        "Only one player holds the job-market token, and Anna already does.")


@pytest.mark.parametrize(("language", "number", "decimal_shown", "share", "percent_shown"), [
    ("en", 10.25, "10.3", 0.625, 63),  # halves up, as a table rounds by hand (5 wins in 8 plays)
    ("en", 16.24, "16.2", 0.285, 29),  # 0.285 × 100 is 28.499… in floats: still a half
    ("en", 69.0, "69", 1 / 3, 33),
    ("en", -0.04, "0", 0.0, 0),  # not "-0"
    ("de", 1234.25, "1.234,3", 0.0, 0),
])
def test_averages_and_win_rates_are_rounded_as_by_hand(app, language, number, decimal_shown, share,
                                                       percent_shown):
    with app.test_request_context(headers={"Accept-Language": language}):
        assert i18n.decimal(number) == decimal_shown
        assert i18n.percent(share) == percent_shown


@pytest.mark.parametrize(("language", "change", "shown"), [
    ("en", 2.65, "+2.7"),  # halves up, as ``decimal``
    ("en", -3.05, "-3.1"),
    ("de", 2.65, "+2,7"),
    ("de", -1234.25, "-1.234,3"),
    ("de", 3.0, "+3"),
    ("de", -0.04, "+0"),  # no "-0" for a loss too small to show
])
def test_rating_changes_are_signed_and_rounded_as_by_hand(app, language, change, shown):
    with app.test_request_context(headers={"Accept-Language": language}):
        assert i18n.signed_decimal(change) == shown
