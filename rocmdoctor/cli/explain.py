"""`rocmdoctor explain [TEXT|-|FILE]`: paste an error, get its meaning, the runbook, the
likely root causes ranked and the commands that confirm it on the node."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from rocmdoctor.cli.common import PathOpt, handle_errors

#: the most text explain reads from a file or stdin (the tail of a long job log)
MAX_INPUT = 16 << 20


def _read_input(arg: Optional[str]) -> tuple[str, str]:
    """(text, where it came from)."""
    from rocmdoctor.errors import RocmdoctorError

    if arg is None and sys.stdin.isatty():
        raise RocmdoctorError("nothing to explain", 'give the message, a FILE, or - to read stdin, '
                              'e.g. rocmdoctor explain "Unable to open /dev/kfd read-write: Invalid argument"')
    if arg is None or arg == "-":
        data = sys.stdin.buffer.read()
        return data[-MAX_INPUT:].decode("utf-8", errors="replace"), "<stdin>"
    path = Path(arg)
    if "\n" not in arg and len(arg) < 4096 and path.is_file():
        try:
            with path.open("rb") as fh:
                size = path.stat().st_size
                fh.seek(max(0, size - MAX_INPUT))
                return fh.read().decode("utf-8", errors="replace"), str(path)
        except OSError as exc:
            raise RocmdoctorError(f"cannot read {path}: {exc.strerror}", "check the path and its permissions") from None
    return arg, "<text>"


def _looks_like_a_path(text: str) -> bool:
    """One token naming a directory or a log-like file (`slurm-1234.err`, `./job.log`), not a message."""
    token = text.strip()
    return (bool(token) and len(token) < 4096 and not any(c.isspace() for c in token)
            and ("/" in token or token.endswith((".err", ".out", ".log", ".txt"))))


def _as_json(matches: list[Any], source: str, lines: int, host: str) -> dict[str, Any]:
    from rocmdoctor.engine.signatures import best_per_diagnosis

    return {
        "source": source, "lines": lines, "matched": bool(matches),
        "causes": [{"runbook": m.runbook, "diagnosis": m.diagnosis, "confidence": m.confidence,
                    "signature": m.signature_id, "line": m.line, "lineno": m.lineno,
                    "triage": f"rocmdoctor triage {host} --runbook {m.runbook}"} for m in best_per_diagnosis(matches)],
        "signatures": [m.to_dict() for m in matches],
        "next": [] if matches else [f"rocmdoctor triage {host}", f"rocmdoctor capture {host} -o {host}.tar.gz"],
    }


def _print_text(matches: list[Any], source: str, lines: int, host: str) -> None:
    from rocmdoctor.engine.signatures import best_per_diagnosis

    where = f"{lines} line(s) of {source}" if source != "<text>" else "the text"
    if not matches:
        print(f"No known error signature in {where}.")
        print(f"  To diagnose the node itself:  rocmdoctor triage {host}")
        print(f"  To hand its evidence to someone: rocmdoctor capture {host} -o {host}.tar.gz")
        return
    causes = best_per_diagnosis(matches)
    print(f"Likely root causes, most certain first ({len(matches)} signature(s) matched {where}):")
    for i, m in enumerate(causes, 1):
        print(f"  {i}. {m.runbook} / {m.diagnosis}  [{m.confidence}]  from line {m.lineno}")
    for m in matches:
        print(f"\n{m.signature_id}  ({m.family}; {m.confidence} confidence, {m.severity})")
        print(f"  line {m.lineno}" + (f" (and {m.count - 1} more)" if m.count > 1 else "") + f": {m.line}")
        print(f"  means: {m.means}")
        print(f"  runbook: {m.runbook}   root cause: {m.diagnosis}"
              + (f"   confirming check: {m.confirm_check}" if m.confirm_check else ""))
        print("  confirm on the node:")
        for c in m.commands:
            print(f"    {c}")
        print(f"    rocmdoctor triage {host} --runbook {m.runbook}")
        for alt in m.instead:
            when = ", ".join(f"{k} = {v}" for k, v in alt.outputs)
            print(f"  but if {alt.check or m.confirm_check} passes on the node{f' ({when})' if when else ''}: "
                  f"{alt.diagnosis}  [{alt.confidence}]")
            print(f"    {alt.means}")
        print(f"  seen in: {', '.join(m.urls)}")


def explain(
    text: Optional[str] = typer.Argument(None, help="The message, a FILE holding it, or - for stdin (default when piped)."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    host: str = typer.Option("HOST", "--host", help="Node name to put in the suggested commands."),
    path: Optional[List[str]] = PathOpt,
) -> None:
    """Explain an error message: which runbook, the likely root causes ranked, the line that
    decided it, and the commands that confirm it on the node.

    Examples:

      rocmdoctor explain "Unable to open /dev/kfd read-write: Invalid argument"

      rocmdoctor explain slurm-1234.err

      kubectl describe pod trainer-0 | rocmdoctor explain -
    """
    from rocmdoctor.engine.signatures import explain_text
    from rocmdoctor.errors import RocmdoctorError

    with handle_errors():
        if fmt not in ("text", "json"):
            raise RocmdoctorError(f"unknown --format {fmt!r}", "use text or json")
        body, source = _read_input(text)
        if source == "<text>" and _looks_like_a_path(body):
            # a mistyped log name would otherwise be matched as a message and found to mean nothing
            print(f"rocmdoctor: note: {body} is not a readable file; read as the message itself", file=sys.stderr)
        matches = explain_text(body, source, path or ())
        lines = len(body.splitlines())
        if fmt == "json":
            print(json.dumps(_as_json(matches, source, lines, host), indent=2))
        else:
            _print_text(matches, source, lines, host)


def register(app: typer.Typer) -> None:
    app.command("explain")(explain)
