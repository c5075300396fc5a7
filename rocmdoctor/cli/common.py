"""Pieces shared by the CLI commands: error handling, consoles, --var parsing."""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

import typer

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.status import ExitStatus


def err_console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(stderr=True, highlight=False, emoji=False)


def out_console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(highlight=False, emoji=False)


@contextlib.contextmanager
def handle_errors() -> Iterator[None]:
    """Print a RocmdoctorError as one line plus a hint, and exit with its status; no traceback."""
    try:
        yield
    except RocmdoctorError as exc:
        print(f"rocmdoctor: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        raise typer.Exit(int(exc.exit_status)) from None
    except KeyboardInterrupt:
        print("rocmdoctor: interrupted", file=sys.stderr)
        raise typer.Exit(int(ExitStatus.INTERRUPTED)) from None


def parse_vars(pairs: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        if "=" not in pair or not pair.split("=", 1)[0].strip():
            raise RocmdoctorError(f"--var {pair!r} is not NAME=VALUE", "e.g. --var expect_gpus=8")
        k, v = pair.split("=", 1)
        out[k.strip()] = v
    return out


# Options shared by triage, tui, capture and sweep: declared once so their names and
# help read the same everywhere (typer only reads these objects, so they can be reused).
TargetArg = typer.Argument(..., help="local, demo:NAME, or an SSH host / ssh_config alias.")
RunbookOpt = typer.Option(None, "--runbook", "-r", help="Runbook id (repeatable); default all.")
VarOpt = typer.Option(None, "--var", help="Runbook variable NAME=VALUE (repeatable).")
PathOpt = typer.Option(None, "--path", help="Extra directory of checks/runbooks.")
SSHConfigOpt = typer.Option(None, "--ssh-config", help="OpenSSH config file (default ~/.ssh/config).")
AcceptNewOpt = typer.Option(False, "--accept-new-host-keys",
                            help="Trust unknown host keys (OpenSSH accept-new); changed keys are always refused.")
RootfsOpt = typer.Option("", "--rootfs", help="Read /sys, /proc, /dev, /etc under this directory.")
