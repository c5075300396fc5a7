"""Sweep outputs: table, json, prometheus (textfile collector), junit.

Each renderer is a pure function SweepResult -> str; `write_output` puts the
text on stdout or, with -o FILE, writes it atomically (temp file in the same
directory, fsync, rename), because node_exporter's textfile collector and
CI runners read the file while we write it and must never see half of it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

FORMATS = ("table", "json", "prometheus", "junit")


def renderer(fmt: str) -> Callable[..., str]:
    if fmt == "table":
        from rocmdoctor.fleet.outputs.table import render_table as fn
    elif fmt == "json":
        from rocmdoctor.fleet.outputs.json_doc import render_json as fn
    elif fmt == "prometheus":
        from rocmdoctor.fleet.outputs.prometheus import render_prometheus as fn
    elif fmt == "junit":
        from rocmdoctor.fleet.outputs.junit import render_junit as fn
    else:
        from rocmdoctor.errors import RocmdoctorError

        raise RocmdoctorError(f"unknown --format {fmt!r}", f"use one of: {', '.join(FORMATS)}")
    return fn


def render(fmt: str, sweep: Any) -> str:
    return renderer(fmt)(sweep)


def write_atomic(path: str | os.PathLike[str], text: str, mode: int = 0o644) -> None:
    """Replace `path` with `text` in one rename; readers see the old or the new file, never a part."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        from rocmdoctor.errors import RocmdoctorError

        raise RocmdoctorError(f"-o {path}: directory {directory} does not exist", "create it, or pick another path")
    from rocmdoctor.fileio import write_atomic as replace_file

    replace_file(target, text, mode)


def write_output(text: str, path: str | None) -> None:
    if path and path != "-":
        try:
            write_atomic(path, text)
        except OSError as exc:
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError(f"-o {path}: cannot write: {exc.strerror or exc}",
                                  "check the directory exists and is writable") from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
