"""The ``game-night-companion`` command of an installed copy: run, init-db, backup.

``game-night-companion run`` serves the site with gunicorn, as ``make serve`` does in a checkout;
``init-db`` and ``backup FILE`` are the site's own commands (also ``flask --app app init-db``).
Settings come from ``COMPANION_*`` environment variables and the instance folder's config.py.
"""

from __future__ import annotations

import os
import sys

import click
from flask import current_app
from flask.cli import FlaskGroup, with_appcontext

from companion.web.database import init_db_command
from companion.web.lan import print_addresses

ALL_INTERFACES = {"0.0.0.0", "::", ""}


def _create_app():
    from app import create_app  # the top-level module of the checkout, installed beside the package

    return create_app()


def gunicorn_arguments(host: str, port: int, workers: int, threads: int) -> list[str]:
    """The gunicorn command line that serves the site, as ``make serve`` runs it."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(workers),
            "--threads", str(threads), "--access-logfile", "-", "app:create_app()"]


@click.command("run")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address to listen on (0.0.0.0: every network, so phones on the Wi-Fi reach it).")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=3, show_default=True, type=click.IntRange(1, 64),
              help="gunicorn worker processes.")
@click.option("--threads", default=4, show_default=True, type=click.IntRange(1, 64),
              help="Threads per worker.")
@with_appcontext
def run_command(host: str, port: int, workers: int, threads: int) -> None:
    """Serve the site with gunicorn and print the addresses the phones should open."""
    click.echo(f"Data folder: {current_app.instance_path}")
    click.get_current_context().invoke(init_db_command)
    if host in ALL_INTERFACES:
        print_addresses(port)
    else:
        click.echo(f"Open http://{'[' + host + ']' if ':' in host else host}:{port}/", err=False)
    sys.stdout.flush()
    # gunicorn takes this process over, so a supervisor's signals (systemd's stop) reach it directly
    arguments = gunicorn_arguments(host, port, workers, threads)
    os.execv(arguments[0], arguments)


cli = FlaskGroup(
    name="game-night-companion",
    help="Game-Night Companion: scores for the phones at the table. "
         "Settings: COMPANION_* environment variables; data: COMPANION_INSTANCE_PATH "
         "(default: the per-user data folder, or instance/ in a checkout).",
    create_app=_create_app, add_default_commands=False, add_version_option=False, load_dotenv=False,
    set_debug_flag=False,
)
# FlaskGroup brings the site's own commands (init-db, backup …); its options for choosing an app,
# a .env file or debug mode have no use for this one site, so they are left out of --help.
cli.params = []
cli = click.version_option(package_name="game-night-companion", prog_name="game-night-companion")(cli)
cli.add_command(run_command)


def main() -> None:
    cli.main(prog_name="game-night-companion")
