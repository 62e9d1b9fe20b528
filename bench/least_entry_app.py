"""The least an entry through Flask can be: the yardstick for the companion's entry.

A signed session cookie naming the phone's group, Flask-WTF's CSRFProtect, a FlaskForm with the
companion's three entry fields and limits, one INSERT into a SQLite database in WAL mode, and a redirect
back to the play. No gate, no rules, no request ids, no read cache: what any Flask site pays for a
checked POST that stores a row. ``LEAST_ENTRY_DATABASE`` names the database file.
"""

from __future__ import annotations

import os
import sqlite3
import threading

from flask import Flask, abort, redirect, render_template_string, session
from flask_wtf import FlaskForm
from flask_wtf.csrf import CSRFProtect
from wtforms import IntegerField, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

app = Flask(__name__)
# one key for every worker: a cookie one signed, another reads
app.config.update(SECRET_KEY="the least entry", WTF_CSRF_TIME_LIMIT=None, SESSION_REFRESH_EACH_REQUEST=False)
CSRFProtect(app)
DATABASE = os.environ["LEAST_ENTRY_DATABASE"]
_local = threading.local()

with sqlite3.connect(DATABASE) as setup:
    setup.execute("PRAGMA journal_mode = WAL")
    setup.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, play_id INTEGER, seat INTEGER, "
                  "points INTEGER, note TEXT)")


def db() -> sqlite3.Connection:
    if not hasattr(_local, "connection"):
        connection = sqlite3.connect(DATABASE, timeout=10, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA synchronous = NORMAL")
        _local.connection = connection
    return _local.connection


class AdjustForm(FlaskForm):
    seat = SelectField(coerce=int, choices=[(seat, str(seat)) for seat in range(4)])
    points = IntegerField(validators=[InputRequired(), NumberRange(-999, 999)])
    note = StringField(validators=[Optional(), Length(max=80)])


@app.get("/plays/<int:play_id>")
def play(play_id: int):
    session.permanent = True
    session["group"] = 1
    return render_template_string('<form method="post" action="/plays/{{ id }}/adjust">{{ form.csrf_token }}'
                                  "</form>", id=play_id, form=AdjustForm())


@app.post("/plays/<int:play_id>/adjust")
def adjust(play_id: int):
    if session.get("group") != 1:
        abort(404)
    form = AdjustForm()
    if not form.validate():
        abort(400)
    db().execute("INSERT INTO events (play_id, seat, points, note) VALUES (?, ?, ?, ?)",
                 [play_id, form.seat.data, form.points.data, form.note.data or ""])
    return redirect(f"/plays/{play_id}#scoreboard")
