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
    if "\n" not in arg and len(arg) < 4096 and _is_file(path):
        try:
            with path.open("rb") as fh:
                size = path.stat().st_size
                fh.seek(max(0, size - MAX_INPUT))
                return fh.read().decode("utf-8", errors="replace"), str(path)
        except OSError as exc:
            raise RocmdoctorError(f"cannot read {path}: {exc.strerror}", "check the path and its permissions") from None
    return arg, "<text>"


def _is_file(path: Path) -> bool:
    """A message longer than a file name may be (255 bytes a component) is not a file: the OS says
    ENAMETOOLONG, which Path.is_file() raises instead of answering False."""
    try:
        return path.is_file()
    except OSError:
        return False


def _looks_like_a_path(text: str) -> bool:
    """One token naming a directory or a log-like file (`slurm-1234.err`, `./job.log`), not a message."""
    token = text.strip()
    return (bool(token) and len(token) < 4096 and not any(c.isspace() for c in token)
            and ("/" in token or token.endswith((".err", ".out", ".log", ".txt"))))


def _codes_in(body: str) -> list[Any]:
    """Every status code in the text, once each, in order: named even where no signature knows the line."""
    from rocmdoctor.catalog.status_codes import read_codes

    seen: dict[tuple[str, int], Any] = {}
    for lineno, line in enumerate(body.splitlines(), 1):
        for r in read_codes(line):
            seen.setdefault((r.numbering, r.value), (lineno, r))
    return list(seen.values())


def _causes(body: str, paths: tuple[str, ...]) -> tuple[list[Any], list[tuple[str, Any]]]:
    """The diagnoses a triage of a bundle holding only this text makes, failing runbooks first and,
    among them, the surest first cause first (a generic low-confidence reading in one runbook does not
    go before a precise one in another): the same reading `--log` and a triage of a node give."""
    from rocmdoctor.engine.core import explain_report
    from rocmdoctor.engine.line_match import CONFIDENCE_RANK
    from rocmdoctor.status import State

    report = explain_report(body, paths)
    order = {State.FAIL: 0, State.WARN: 1}
    runbooks = sorted((r for r in report.runbooks if r.diagnoses),
                      key=lambda r: (order.get(r.state, 2), CONFIDENCE_RANK.get(r.diagnoses[0].confidence, 9)))
    return [d for r in runbooks for d in r.diagnoses], _left_open(report)


def _left_open(report: Any) -> list[tuple[str, Any]]:
    """(runbook, open cause) of each runbook a symptom line failed without naming a cause ("no ROCm-capable
    device"): its likely causes, most likely first, each with the command that settles it, as a triage lists them."""
    from rocmdoctor.status import State

    return [(r.runbook_id, c) for r in report.runbooks
            if not r.diagnoses and r.state in (State.FAIL, State.WARN) for c in r.open_causes]


def _signature_of(d: Any, matches: list[Any]) -> dict[str, Any]:
    """The signature whose line made a cause, if one did (null for a cause a runbook's own check read)."""
    m = next((m for m in matches if m.runbook == d.runbook_id and m.diagnosis == d.diagnosis_id), None)
    return {"signature": m.signature_id if m else None, "line": m.line if m else None,
            "lineno": m.lineno if m else None}


def _as_json(matches: list[Any], source: str, lines: int, host: str, codes: list[Any],
             causes: list[Any], left_open: list[tuple[str, Any]]) -> dict[str, Any]:
    return {
        "source": source, "lines": lines, "matched": bool(matches or causes),
        "codes": [{"lineno": n, "numbering": r.numbering, "name": r.name, "value": r.value, "written": r.written,
                   "meaning": r.meaning, "header": r.header} for n, r in codes],
        "causes": [{"runbook": d.runbook_id, "diagnosis": d.diagnosis_id, "confidence": d.confidence,
                    "cause": d.cause, "evidence": [_where(e) for e in d.evidence],
                    **_signature_of(d, matches),
                    "triage": f"rocmdoctor triage {host} --runbook {d.runbook_id}"} for d in causes],
        "open_causes": [{"runbook": rb, "diagnosis": c.diagnosis_id, "settle": c.settle} for rb, c in left_open],
        "signatures": [m.to_dict() for m in matches],
        "next": [] if matches or causes else [f"rocmdoctor triage {host}", f"rocmdoctor capture {host} -o {host}.tar.gz"],
    }


def _where(evidence: str) -> str:
    """An evidence line quoted from the text explain triaged, as `line N: ...`."""
    from rocmdoctor.engine.core import EXPLAIN_LOG

    return evidence.replace(f"{EXPLAIN_LOG}:", "line ", 1) if evidence.startswith(EXPLAIN_LOG) else evidence


def _first_sentence(text: str, limit: int = 220) -> str:
    flat = " ".join(text.split())
    cut = flat.find(". ")
    flat = flat[:cut + 1] if 0 < cut < limit else flat
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


def _print_codes(codes: list[Any]) -> None:
    if codes:
        print("Status codes in the text:")
        for lineno, r in codes:
            print(f"  line {lineno}: {r.describe()}")


def _print_text(matches: list[Any], source: str, lines: int, host: str, codes: list[Any],
                causes: list[Any], left_open: list[tuple[str, Any]]) -> None:
    where = f"{lines} line(s) of {source}" if source != "<text>" else "the text"
    if not matches and not causes:
        print(f"No known error signature in {where}.")
        _print_codes(codes)
        print(f"  To diagnose the node itself:  rocmdoctor triage {host}")
        print(f"  To hand its evidence to someone: rocmdoctor capture {host} -o {host}.tar.gz")
        return
    if causes:
        print(f"Likely root causes, most certain first ({len(matches)} signature(s) matched {where}):")
    for i, d in enumerate(causes, 1):
        print(f"  {i}. {d.runbook_id} / {d.diagnosis_id}  [{d.confidence}]")
        print(f"     {_first_sentence(d.cause)}")
        if d.evidence:
            print(f"     from: {_where(d.evidence[0])}")
    if left_open:
        print(f"{len(matches)} signature(s) matched {where}: it shows a failure, not its cause; the likely causes, "
              "most likely first, each with the command that settles it on the node:")
        for i, (rb, c) in enumerate(left_open, 1):
            print(f"  {i}. {rb} / {c.diagnosis_id}:  {c.settle}")
    if not causes and not left_open:
        print("  (the lines below name no cause a runbook would make without the node)")
    for m in matches:
        print(f"\n{m.signature_id}  ({m.family}; {m.confidence} confidence, {m.severity})")
        print(f"  line {m.lineno}" + (f" (and {m.count - 1} more)" if m.count > 1 else "") + f": {m.line}")
        print(f"  means: {m.means}")
        for c in m.codes:
            print(f"  code: {c}")
        print(f"  runbook: {m.runbook}   root cause: {m.diagnosis}"
              + (f"   confirming check: {m.confirm_check}" if m.confirm_check else ""))
        print("  confirm on the node:")
        for c in m.commands:
            print(f"    {c}")
        print(f"    rocmdoctor triage {host} --runbook {m.runbook}")
        for alt in m.instead:
            when = ", ".join([*(f"{k} = {v}" for k, v in alt.outputs), *(f"with {k}" for k in alt.present)])
            ends = " or ".join({"pass": "passes", "warn": "warns", "fail": "fails", "unknown": "cannot decide"}.get(s, s)
                               for s in alt.states)
            print(f"  but if {alt.check or m.confirm_check} {ends} on the node{f' ({when})' if when else ''}: "
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
        codes = _codes_in(body)
        causes, left_open = _causes(body, tuple(path or ()))
        if fmt == "json":
            print(json.dumps(_as_json(matches, source, lines, host, codes, causes, left_open), indent=2))
        else:
            _print_text(matches, source, lines, host, codes, causes, left_open)


def register(app: typer.Typer) -> None:
    app.command("explain")(explain)
