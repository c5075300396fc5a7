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

    return Console(stderr=True, highlight=False)


def out_console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(highlight=False)


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
