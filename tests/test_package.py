"""The installable package: the wheel carries the pages, and an installed copy serves them.

The slow test builds the wheel from a copy of the checkout, installs it into a fresh virtualenv in a
temporary folder (its dependencies come from the test's own environment through a .pth file, so no
network is needed) and serves the home page with ``game-night-companion run``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion import cli

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NOT_SHIPPED = shutil.ignore_patterns(".git", ".venv", "instance", "build", "dist", "*.egg-info",
                                     "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
                                     ".lighthouse", "node_modules", "test-results", "tests", "bench")


def test_every_package_of_the_checkout_is_listed_for_the_wheel():
    packages = {".".join(path.parent.relative_to(ROOT).parts)
                for path in (ROOT / "companion").rglob("__init__.py")}
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert packages <= listed, f"add {sorted(packages - listed)} to [tool.setuptools] packages"
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {
        "companion.templates": "templates", "companion.static": "static",
        "companion.translations": "translations"}


def test_runtime_requirements_are_pinned_within_the_declared_ranges():
    from packaging.requirements import Requirement

    declared = {Requirement(line).name.lower(): Requirement(line)
                for line in PYPROJECT["project"]["dependencies"]}
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    pinned = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    assert {r.name.lower() for r in pinned} == set(declared)
    for pin in pinned:
        version = next(iter(pin.specifier)).version
        allowed = declared[pin.name.lower()]
        assert allowed.specifier.contains(version), f"{pin} is outside {allowed}"


def test_the_licence_is_mit_and_the_package_says_so():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_the_command_lists_its_subcommands(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    result = CliRunner().invoke(cli.cli, ["--help"], prog_name="game-night-companion")
    assert result.exit_code == 0, result.output
    for command in ("run", "init-db", "backup", "restore"):
        assert f"  {command} " in result.output
    run_help = CliRunner().invoke(cli.cli, ["run", "--help"])
    assert "--host" in run_help.output and "--port" in run_help.output
    assert "--force" in CliRunner().invoke(cli.cli, ["restore", "--help"]).output


@pytest.mark.parametrize("arguments", [["--help"], ["run", "--help"], ["init-db", "--help"],
                                       ["backup", "--help"], ["restore", "--help"]])
def test_help_creates_no_file(tmp_path, arguments):
    env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", "from companion.cli import main; main()", *arguments],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []  # no data folder, no config.py, no database


def test_backup_without_a_database_says_so_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    result = CliRunner().invoke(cli.cli, ["backup", str(tmp_path / "copy.sqlite3")])
    assert result.exit_code == 1
    assert f"There is no database at {tmp_path / 'data' / 'companion.sqlite3'}" in result.output
    assert "Backed up" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_setting_that_is_no_number_stops_each_command_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_MAX_CONTENT_LENGTH", "256k")
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    for command in (["run"], ["init-db"], ["backup", str(tmp_path / "copy.sqlite3")]):
        result = CliRunner().invoke(cli.cli, command)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), repr(result.exception)
        assert ("COMPANION_MAX_CONTENT_LENGTH must be a whole number of bytes, 1 or more, not '256k'."
                in result.output)
    assert started == [] and list(tmp_path.iterdir()) == []


def test_the_pinned_gunicorn_knows_every_option_run_gives_it():
    arguments = cli.gunicorn_arguments("127.0.0.1", 8000, 1, 1)
    help_text = subprocess.run([*arguments[:3], "--help"], capture_output=True, text=True, check=True).stdout
    for option in (argument for argument in arguments[3:] if argument.startswith("--")):
        assert re.search(rf"(?:^\s+|, ){option}\b", help_text, re.M), f"gunicorn has no {option}"


def test_run_initialises_the_database_prints_the_addresses_and_hands_over_to_gunicorn(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    monkeypatch.setattr(cli, "print_addresses", lambda port: print(f"phones: http://192.168.1.20:{port}/"))
    port = free_port()
    result = CliRunner().invoke(cli.cli, ["run", "--port", str(port), "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"Data folder: {tmp_path}" in result.output
    assert "Applied migrations" in result.output and (tmp_path / "companion.sqlite3").exists()
    assert f"phones: http://192.168.1.20:{port}/" in result.output
    # each worker listens itself; no control socket: a service user has no home folder to keep it in
    assert started == [[sys.executable, "-m", "gunicorn", "--bind", f"0.0.0.0:{port}", "--workers", "2",
                        "--threads", "2", "--reuse-port", "--no-control-socket", "--access-logfile", "-",
                        "app:create_app()"]]


def test_run_serves_with_a_worker_per_core_and_two_threads_each_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    monkeypatch.setattr(cli, "print_addresses", lambda port: None)
    result = CliRunner().invoke(cli.cli, ["run", "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    [arguments] = started
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert arguments[arguments.index("--workers") + 1] == str(min(cores, 8))
    assert arguments[arguments.index("--threads") + 1] == "2"


def test_run_refuses_a_port_another_server_listens_on(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    with socket.socket() as running:  # as the site's workers listen: sharing the port with their like
        running.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        running.bind(("0.0.0.0", 0))
        running.listen()
        port = running.getsockname()[1]
        result = CliRunner().invoke(cli.cli, ["run", "--port", str(port)])
    assert result.exit_code == 1
    assert f"Port {port} is in use: is the site running already?" in result.output
    assert started == [] and list(tmp_path.iterdir()) == []  # nothing served, nothing created


def test_run_says_why_it_cannot_listen_on_an_address_of_another_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    result = CliRunner().invoke(cli.cli, ["run", "--host", "192.0.2.1", "--port", str(free_port())])
    assert result.exit_code == 1
    assert "Cannot listen on 192.0.2.1 port" in result.output and "assign" in result.output
    assert started == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("host", "bind"), [("127.0.0.1", "127.0.0.1:80"), ("::", "[::]:80")])
def test_gunicorn_binds_ipv4_and_ipv6_addresses(host, bind):
    assert cli.gunicorn_arguments(host, 80, 1, 1)[4] == bind


# --- a fresh machine: make test and make bench install what they need --------------------------------

def fake_system(tmp_path: Path, installed: set[str], uid: int) -> dict[str, str]:
    """A PATH whose dpkg-query knows ``installed``, whose id says ``uid`` and whose apt-get logs its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    scripts = {
        "dpkg-query": "for p in " + " ".join(sorted(installed)) + ' ; do [ "$p" = "${@: -1}" ] && '
                      "printf 'install ok installed' && exit 0; done; exit 1",
        "id": f"echo {uid}",
        "apt-get": f'echo "apt-get $*" >> {tmp_path / "apt.log"}',
    }
    for name, body in scripts.items():
        (bin_dir / name).write_text(f"#!/bin/bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def ensure(tmp_path: Path, env: dict[str, str], *packages: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOT / "scripts" / "ensure-apt.sh", *packages], env=env, capture_output=True,
                          text=True, timeout=30)


def test_nothing_happens_when_the_packages_are_there(tmp_path):
    result = ensure(tmp_path, fake_system(tmp_path, {"chromium", "fonts-dejavu-core"}, 1000),
                    "chromium", "fonts-dejavu-core")
    assert result.returncode == 0 and result.stdout == result.stderr == ""
    assert not (tmp_path / "apt.log").exists()


def test_root_installs_the_missing_packages_with_apt_get(tmp_path):
    env = fake_system(tmp_path, {"fonts-dejavu-core"}, 0)
    result = ensure(tmp_path, env, "chromium", "fonts-dejavu-core")
    assert result.returncode == 0, result.stderr
    log = (tmp_path / "apt.log").read_text().splitlines()
    assert log[0] == "apt-get update -qq"
    assert log[1].startswith("apt-get install -y") and log[1].endswith(" chromium")


def test_without_root_it_stops_with_the_one_command_to_run(tmp_path):
    result = ensure(tmp_path, fake_system(tmp_path, set(), 1000), "chromium", "fonts-dejavu-core")
    assert result.returncode == 1
    assert "sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core" in result.stderr
    assert not (tmp_path / "apt.log").exists()


def test_make_checks_the_packages_before_the_suite_and_the_benchmark():
    # --no-print-directory: when make itself runs the suite, a nested make would add "Entering directory"
    dry_run = {target: subprocess.run(["make", "--no-print-directory", "-n", target], cwd=ROOT,
                                      capture_output=True, text=True, check=True).stdout.splitlines()
               for target in ("test", "bench")}
    test, bench = dry_run["test"], dry_run["bench"]
    assert test[0] == "scripts/ensure-apt.sh chromium fonts-dejavu-core"
    assert any("pytest" in line for line in test)
    assert bench[0] == "scripts/ensure-apt.sh wrk"
    assert "make test" in (ROOT / ".ci" / "run").read_text()


# --- the wheel, installed outside the checkout -----------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, **headers: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, answer.read().decode()


def wait_for(url: str, server: subprocess.Popen, deadline: float) -> None:
    """Wait until the server answers (or fail if it exits or the deadline passes)."""
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server stopped: {server.stdout.read()}")
        try:
            fetch(url)
            return
        except OSError:
            time.sleep(0.2)  # the server is still starting: poll its socket again
    pytest.fail("the installed server did not answer within the deadline")


@pytest.mark.slow
def test_the_wheel_installed_elsewhere_serves_the_site(tmp_path):
    source, dist, venv, home = tmp_path / "src", tmp_path / "dist", tmp_path / "venv", tmp_path / "home"
    shutil.copytree(ROOT, source, ignore=NOT_SHIPPED)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", str(dist), str(source)], check=True)
    wheel = next(dist.glob("game_night_companion-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"app.py", "companion/templates/base.html", "companion/static/style.css",
            "companion/translations/de/LC_MESSAGES/messages.mo"} <= set(names)
    metadata = zipfile.ZipFile(wheel).read("game_night_companion-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "game_night_companion-0.1.0.dist-info/licenses/LICENSE" in names

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    # the dependencies: the test environment's own, visible to the new virtualenv through a .pth file
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("COMPANION_", "PYTHON", "FLASK_"))}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    command = venv / "bin" / "game-night-companion"
    where = subprocess.run([python, "-c", "import app, companion; print(app.__file__, companion.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path, env=env).stdout
    assert str(ROOT) not in where and where.count(str(venv)) == 2
    version = subprocess.run([command, "--version"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "game-night-companion, version 0.1.0" in version.stdout

    port = free_port()
    server = subprocess.Popen([command, "run", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
                               "--threads", "2"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/healthz", server, time.monotonic() + 45)
        status, home_page = fetch(f"http://127.0.0.1:{port}/", **{"Accept-Language": "en"})
        assert status == 200 and "Start a group" in home_page
        assert fetch(f"http://127.0.0.1:{port}/static/style.css")[0] == 200
        _, german = fetch(f"http://127.0.0.1:{port}/", **{"Accept-Language": "de"})
        assert '<html lang="de">' in german and "Start a group" not in german
    finally:
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=30)
    data = home / "data" / "game-night-companion"
    assert f"Data folder: {data}" in output
    assert f"Open http://127.0.0.1:{port}/" in output
    assert (data / "companion.sqlite3").exists() and (data / "config.py").exists()

    backup = subprocess.run([command, "backup", str(tmp_path / "copy.sqlite3")], capture_output=True,
                            text=True, cwd=tmp_path, env=env)
    assert backup.returncode == 0, backup.stderr
    assert (tmp_path / "copy.sqlite3").stat().st_size > 0
