"""The project's benchmark: ``make bench``. Prints one table, each measure next to its target.

Rows: rules throughput per game; requests per second and p99 latency of what phones ask (the play
page of each game, the unchanged live poll, the group page, an entry, a static file) under gunicorn,
loaded by wrk with gzip accepted, side by side with a bare Flask app answering the very same bytes
(the two servers run at once and are loaded in turn, three rounds); the server CPU an idle phone
costs and how many idle phones two cores hold; every page's weight as a phone transfers it; an
entry's cost at 10 and at 3,000 events; the statistics page at 10,000 and 100,000 plays; a 30 MB
backup imported while phones of other groups write (``bench/imports.py``); and, beside the entry, the
least entry a Flask app can make (``bench/least_entry_app.py``), the floor it is set against.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.rules import RULE_BENCHMARKS, per_second  # noqa: E402
from bench.stats import stats_rows  # noqa: E402
from bench.weights import page_weight_rows, sample_pages  # noqa: E402
from companion import cli, config, store  # noqa: E402

Row = tuple[str, str, str]  # measure, value, note

POLL_SECONDS = config.LIVE_POLL_MS / 1000  # an open play page asks this often (static/live.js)
HOT_RATIO, GROUP_PAGE_RATIO, HOT_P99_MS, IDLE_P99_MS = 1.0, 0.5, 50.0, 200.0


@dataclass(frozen=True)
class Target:
    """One request the benchmark repeats: what phones ask most."""

    name: str
    path: str
    method: str = "GET"
    body: str = ""
    ratio: float | None = HOT_RATIO  # the share of bare Flask's requests per second it must reach
    # (None: a write, whose target is its p99 alone; its ratio is printed for comparison)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(app_spec: str, env: dict[str, str], workers: int) -> Iterator[tuple[int, int]]:
    """Serve ``app_spec`` with gunicorn on a free loopback port; yields (port, master pid)."""
    port = free_port()
    # threads and --reuse-port as ``run`` serves: the kernel spreads wrk's connections over the workers
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--worker-class", "gthread", "--threads", str(cli.THREADS), "--reuse-port",
               "--log-level", "warning", app_spec]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"gunicorn did not start {app_spec}")
        yield port, process.pid
    finally:
        process.terminate()
        process.wait(10)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its children (gunicorn's master and workers)."""
    total = 0.0
    for task in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{task}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (FileNotFoundError, IndexError, ValueError):
                continue
    return found


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def wrk(port: int, target: Target, cookie: str, seconds: float, connections: int,
        folder: Path) -> tuple[float, float, int]:
    """Requests per second, p99 latency (ms) and requests answered with an error, measured by wrk."""
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{max(1, round(seconds))}s", "--latency",
               "-H", f"Cookie: {cookie}", "-H", "Accept-Encoding: gzip"]
    if target.method == "POST":
        script = folder / f"{target.name.replace(' ', '-')}.lua"
        script.write_text(f'wrk.method = "POST"\nwrk.body = "{target.body}"\n'
                          'wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n')
        command += ["-s", str(script)]
    output = subprocess.run([*command, f"http://127.0.0.1:{port}{target.path}"], capture_output=True,
                            text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", output).groups()
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, float(value) * _UNITS[unit], int(errors.group(1)) if errors else 0


# --- the instance ------------------------------------------------------------------------------------

def sample_instance(folder: Path) -> tuple[list[Target], str]:
    """A group of four with a play of every game (made through the pages); the targets and the cookie."""
    os.environ["COMPANION_INSTANCE_PATH"] = str(folder)
    from app import create_app
    from companion import store

    app = create_app()
    db = store.connect(app.config["DATABASE"])
    store.migrate(db)
    client = app.test_client()
    pages = dict(sample_pages(app, client))
    cookie = f"session={client.get_cookie('session', domain=client.get('/').request.host).value}"
    targets = [Target(label.replace("play of ", "play page: "), path)
               for label, path in pages.items() if label.startswith("play of")]
    watched = targets[1].path  # not the play the entries go to (entry_target: the first one)
    version = store.get_play(db, int(watched.rsplit("/", 1)[1])).version
    db.close()
    targets += [
        Target("unchanged poll", f"{watched}/state.json?since={version}"),
        Target("group page", pages["group"], ratio=GROUP_PAGE_RATIO),
        Target("static file (style.css)", "/static/style.css"),
    ]
    return targets, cookie


# Headers gunicorn and Werkzeug write for any app: the bare app's server writes its own.
SERVER_HEADERS = frozenset({"server", "date", "connection", "content-length"})


def answer(port: int, target: Target, cookie: str) -> tuple[int, list[tuple[str, str]], bytes]:
    """One answer of the companion: status, every header its app wrote, and the body as sent."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Cookie": cookie, "Accept-Encoding": "gzip"}
    if target.method == "POST":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(target.method, target.path, body=target.body or None, headers=headers)
    response = conn.getresponse()
    kept = [(name, value) for name, value in response.getheaders() if name.lower() not in SERVER_HEADERS]
    return response.status, kept, response.read()


def entry_target(port: int, cookie: str, play_path: str) -> tuple[Target, str]:
    """An entry (a running score adjusted) with the phone's CSRF token; the cookie that goes with it."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", play_path, headers={"Cookie": cookie})
    response = conn.getresponse()
    html = response.read().decode()
    renewed = response.getheader("Set-Cookie")
    if renewed:  # the session now holds the CSRF secret: keep using it, so the token stays valid
        cookie = renewed.split(";", 1)[0]
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    body = urlencode({"seat": "0", "points": "1", "note": "", "csrf_token": token})
    return Target("entry (POST)", f"{play_path}/adjust", "POST", body, None), cookie


# --- the measures -------------------------------------------------------------------------------------

def page_rows(seconds: float, connections: int, workers: int, rounds: int) -> list[Row]:
    if shutil.which("wrk") is None:
        return [("requests per second", "not measured", "wrk is missing: make bench-tools installs it")]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        targets, cookie = sample_instance(folder / "instance")
        env = {"COMPANION_INSTANCE_PATH": str(folder / "instance")}
        with gunicorn("app:create_app()", env, workers) as (port, pid):
            entry, cookie = entry_target(port, cookie, targets[0].path)
            targets.append(entry)
            recorded = folder / "answers"
            recorded.mkdir()
            for number, target in enumerate(targets):
                status, headers, body = answer(port, target, cookie)
                (recorded / f"{number}.body").write_bytes(body)
                (recorded / f"{number}.head").write_text(repr((target.method, target.path, status, headers)))
            env_bare = {"BENCH_ANSWERS": str(recorded)}
            env_least = {"LEAST_ENTRY_DATABASE": str(folder / "least-entry.sqlite3")}
            with gunicorn("bench.bare_app:app", env_bare, workers) as (bare_port, _), \
                    gunicorn("bench.least_entry_app:app", env_least, workers) as (least_port, _):
                least_entry, least_cookie = entry_target(least_port, "", "/plays/1")
                least_runs: list[tuple] = []
                measured: dict[str, list[tuple]] = {t.name: [] for t in targets}
                cpu_per_poll: list[float] = []
                database = folder / "instance" / "companion.sqlite3"
                log_sizes: list[int] = []
                for _round in range(rounds):
                    for target in targets:
                        began = cpu_seconds(pid)
                        ours = wrk(port, target, cookie, seconds, connections, folder)
                        if target.method == "POST":
                            settle(database)
                            log_sizes.append(Path(f"{database}-wal").stat().st_size)
                            least_runs.append(wrk(least_port, least_entry, least_cookie, seconds, connections,
                                                  folder))
                        if target.name == "unchanged poll" and ours[0]:
                            cpu_per_poll.append((cpu_seconds(pid) - began) / (ours[0] * seconds))
                        bare = wrk(bare_port, target, cookie, seconds, connections, folder)
                        measured[target.name].append((ours, bare))
                rows += [_ratio_row(target, measured[target.name], connections) for target in targets]
                rows.append(_least_entry_row(least_runs, measured[entry.name], connections))
                rows.append(_log_row(log_sizes, sum(ours[0] * seconds for ours, _ in measured[entry.name])))
                rows += _idle_phone_rows(port, targets, cookie, seconds, folder, cpu_per_poll)
    return rows


def settle(database: Path, quiet_reads: int = 3, limit_seconds: float = 10.0) -> None:
    """Wait until the server has stored the entries still queued when wrk stopped.

    wrk closes its connections with requests in the server's queue; without this wait they would be
    stored while the next target is measured, and charge it with their work.
    """

    connection = sqlite3.connect(database)
    try:
        last, unchanged, deadline = None, 0, time.monotonic() + limit_seconds
        while unchanged < quiet_reads and time.monotonic() < deadline:
            newest = connection.execute("SELECT max(rowid) FROM events").fetchone()[0]
            unchanged = unchanged + 1 if newest == last else 0
            last = newest
            time.sleep(0.05)
    finally:
        connection.close()


def _ratio_row(target: Target, runs: list[tuple], connections: int) -> Row:
    ratios = [ours[0] / bare[0] for ours, bare in runs]
    ours_rate = statistics.median(ours[0] for ours, _ in runs)
    bare_rate = statistics.median(bare[0] for _, bare in runs)
    p99 = statistics.median(ours[1] for ours, _ in runs)
    bare_p99 = statistics.median(bare[1] for _, bare in runs)
    errors = sum(ours[2] for ours, _ in runs)
    median = statistics.median(ratios)
    if target.ratio is None:
        met, goal = p99 < HOT_P99_MS, f"p99 < {HOT_P99_MS:.0f} ms"
    else:
        hot = target.ratio >= HOT_RATIO
        met = median >= target.ratio and (not hot or p99 < HOT_P99_MS)
        goal = f"≥ {target.ratio:.0%}" + (f", p99 < {HOT_P99_MS:.0f} ms" if hot else "")
    note = (f"ratio {median:.0%} (spread {min(ratios):.0%}–{max(ratios):.0%}, {len(runs)} rounds); "
            f"p99 {p99:.1f} ms (bare {bare_p99:.1f}); target {goal}: {'met' if met else 'MISSED'}")
    if errors:
        note += f"; {errors} error answers"
    return (f"{target.name}: req/s (bare Flask), {connections} connections",
            f"{ours_rate:,.0f} ({bare_rate:,.0f})", note)


def _least_entry_row(least: list[tuple], runs: list[tuple], connections: int) -> Row:
    """The least entry through Flask (``bench/least_entry_app.py``), measured in the same rounds: the
    floor the companion's entry is set against."""
    rate, p99 = statistics.median(r[0] for r in least), statistics.median(r[1] for r in least)
    ours = statistics.median(ours[0] / run[0] for (ours, _), run in zip(runs, least, strict=True))
    met = p99 < HOT_P99_MS
    return (f"entry through the least Flask app: req/s, {connections} connections", f"{rate:,.0f}",
            f"p99 {p99:.1f} ms (rounds {min(r[1] for r in least):.1f}–{max(r[1] for r in least):.1f}); "
            f"the companion's entry reaches {ours:.0%} of its requests per second; "
            f"p99 < {HOT_P99_MS:.0f} ms: {'met' if met else 'MISSED'} by the least app itself")


def _log_row(sizes: list[int], entries: float) -> Row:
    """How long the write-ahead log grew under the rounds of entries."""
    return (f"write-ahead log during {entries:,.0f} entries", f"{max(sizes) / 2**20:.0f} MB",
            f"its largest after a round; restarted once it holds {store.LOG_RESTART_PAGES:,} pages "
            f"({store.LOG_SIZE_LIMIT / 2**20:.0f} MB)")


def _idle_phone_rows(port: int, targets: list[Target], cookie: str, seconds: float, folder: Path,
                     cpu_per_poll: list[float]) -> list[Row]:
    """What an idle phone (a play page open, polling) costs, and how many two cores hold."""
    poll = next(t for t in targets if t.name == "unchanged poll")
    per_poll = statistics.median(cpu_per_poll)
    per_minute_ms = per_poll * 60 / POLL_SECONDS * 1000
    held = 0.0
    for connections in (64, 128, 256, 512):
        rate, p99, errors = wrk(port, poll, cookie, seconds, connections, folder)
        if p99 >= IDLE_P99_MS or errors:
            break
        held = max(held, rate * POLL_SECONDS)
    return [
        ("server CPU per idle phone", f"{per_minute_ms:.1f} ms per minute",
         f"{per_poll * 1e6:.0f} µs per unchanged poll, one poll every {POLL_SECONDS} s"),
        ("idle phones one 2-core machine holds", f"{held:,.0f}",
         f"poll p99 < {IDLE_P99_MS:.0f} ms (wrk on the same two cores); CPU alone would allow "
         f"{2 / (per_poll / POLL_SECONDS):,.0f}"),
    ]


def entry_rows(repeats: int = 40) -> list[Row]:
    """The time one entry (a POST through the app) takes at 10 and at 3,000 events in the play's log."""
    from app import create_app
    from companion import store

    medians = {}
    for events in (10, 3000):
        with tempfile.TemporaryDirectory() as tmp:
            app = create_app({"SECRET_KEY": "entries", "WTF_CSRF_ENABLED": False,
                              "DATABASE": str(Path(tmp) / "companion.sqlite3")})
            db = store.connect(app.config["DATABASE"])
            store.migrate(db)
            client = app.test_client()
            pages = dict(sample_pages(app, client))
            play_path = next(path for label, path in pages.items() if label.startswith("play of"))
            play_id = int(play_path.rsplit("/", 1)[1])
            with store.write_transaction(db):  # a long evening's log, written at once
                for seq in range(store.get_play(db, play_id).version + 1, events + 1):
                    db.execute("INSERT INTO events (play_id, seq, kind, payload, created_at, version) "
                               "VALUES (?, ?, 'adjust', '{\"seat\": 0, \"points\": 1}', ?, ?)",
                               [play_id, seq, store.now(), seq])
                db.execute("UPDATE plays SET version = ? WHERE id = ?", [events, play_id])
            db.close()
            entry = {"seat": "1", "points": "2", "note": ""}
            client.post(f"/plays/{play_id}/adjust", data=entry)  # the first one folds the log once
            wall, cpu = [], []
            for _ in range(repeats):
                began, began_cpu = time.perf_counter(), time.process_time()
                response = client.post(f"/plays/{play_id}/adjust", data=entry)
                wall.append((time.perf_counter() - began) * 1000)
                cpu.append((time.process_time() - began_cpu) * 1000)
                if response.status_code != 302:
                    raise RuntimeError(f"an entry was answered {response.status_code}")
            medians[events] = (statistics.median(cpu), statistics.median(wall))
    growth = medians[3000][0] / medians[10][0]
    verdict = "flat" if growth < 1.5 else "GROWS"
    return [("entry cost at 10 events", f"{medians[10][0]:.2f} ms CPU",
             f"median of {repeats} POSTs in-process; wall {medians[10][1]:.1f} ms"),
            ("entry cost at 3,000 events", f"{medians[3000][0]:.2f} ms CPU",
             f"wall {medians[3000][1]:.1f} ms; CPU ×{growth:.2f} of the cost at 10 events; "
             f"target: flat (under ×1.5): {verdict}")]


def rule_rows(seconds: float) -> list[Row]:
    rows: list[Row] = []
    for label, make_work in RULE_BENCHMARKS:
        rate = per_second(make_work(), seconds)
        rows.append((f"{label} per second", f"{rate:,.0f}", f"{1e6 / rate:.1f} µs each"))
    return rows


def print_table(rows: list[Row]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    line = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    print(line)
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if index == 0:
            print(line)
    print(line)


def backup_import_rows(workers: int) -> list[Row]:
    from bench.imports import import_rows  # not at the top: it imports this module's gunicorn

    return import_rows(workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each wrk run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=cli.WORKERS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("rules", "pages", "weights", "entries", "statistics", "imports"),
                        action="append", help="run only these sections (repeatable); all by default")
    args = parser.parse_args()
    sections: dict[str, Callable[[], list[Row]]] = {
        "rules": lambda: rule_rows(1.0),
        "pages": lambda: page_rows(args.seconds, args.connections, args.workers, args.rounds),
        "weights": page_weight_rows,
        "entries": entry_rows,
        "statistics": lambda: stats_rows(args.seconds * 2),
        "imports": lambda: backup_import_rows(args.workers),
    }
    rows: list[Row] = [("measure", "value", "note")]
    load = os.getloadavg()[0]
    for name, section in sections.items():
        if not args.only or name in args.only:
            try:
                rows += section()
            except Exception as error:  # one broken section must not hide the others
                rows.append((f"{name}: not measured", type(error).__name__, str(error)[:100]))
    machine = platform.processor() or platform.machine()
    print(f"Game-Night Companion benchmark · {machine} · {os.cpu_count()} cores · "
          f"Python {platform.python_version()} · load average {load:.1f} at the start")
    print_table(rows)


if __name__ == "__main__":
    main()
