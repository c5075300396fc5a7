"""What validate measures beyond RVS's verdicts: GEMM results checked against the CPU per GPU, and
the figures a later run is compared with (`--save-baseline` / `--baseline`).

RVS's gst runs GEMMs against per-model GFLOPS targets but does not check their results; a GPU that
computes wrong numbers fast passes it. hipblaslt-bench `-v` computes the same GEMM on the CPU and
prints the relative error of the GPU's result (`norm_error`, ||GPU - CPU|| / ||CPU||) beside its own
tolerance (`atol`, `rtol`). Expected throughput is never built in: the baseline is the user's own
record from a known-good node of the same model, as issue 42 asks.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.status import State

GEMM_MARK = "@@rocmdoctor-gemm@@"
#: one problem, small enough that the CPU reference takes seconds (hipBLASLt's README example runs
#: 128^3 with a 44 ms CPU reference; 512^3 is 64 times that)
GEMM_SIZE = 512
GEMM_BUDGET_S = 120.0     # per GPU
#: a relative error this large is no rounding: bf16's unit roundoff is 2^-8 (0.4 %), f32's 2^-24
WRONG_NORM = 0.1
#: a figure under this share of its baseline WARNs, under BASELINE_FAIL FAILs (as the link rule)
BASELINE_WARN, BASELINE_FAIL = 0.85, 0.5


def gemm_command(bench: str, devices: int) -> str:
    """f32 GEMM with verification on each GPU in turn (the precision every hipBLASLt target runs;
    lower precisions' throughput is RVS gst's, against the model's targets)."""
    n = GEMM_SIZE
    ids = " ".join(str(d) for d in range(devices))
    return (f"for d in {ids}; do echo \"{GEMM_MARK} $d\"; {shlex.quote(bench)} --device \"$d\" --precision f32_r "
            f"-m {n} -n {n} -k {n} -v 2>&1; done")


def _sections(stdout: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for chunk in stdout.split(GEMM_MARK)[1:]:
        head, _, body = chunk.partition("\n")
        if head.strip().isdigit():
            out.append((int(head.strip()), body))
    return out


def judge_gemm(stdout: str) -> tuple[State, str, tuple[str, ...], dict[str, float]]:
    """Per GPU: FAIL on a NaN/inf or a relative error of WRONG_NORM or more, WARN outside the
    bench's own rtol, UNKNOWN for a GPU that printed no result (its last line quoted)."""
    from rocmdoctor.parsers import ParseError
    from rocmdoctor.parsers.hipblaslt_bench import is_bad_number, parse_hipblaslt_bench

    worst, bad, unknown, evidence = State.PASS, [], [], []
    figures: dict[str, float] = {}
    sections = _sections(stdout)
    for dev, body in sections:
        try:
            parsed = parse_hipblaslt_bench(body)
        except ParseError:
            parsed = {"results": [], "notes": []}
        if not parsed["results"]:
            tail = [ln.strip() for ln in body.strip().splitlines() if ln.strip()][-1:] or ["no output"]
            unknown.append(f"GPU {dev}: no result ({tail[0][:160]})")
            continue
        for r in parsed["results"]:
            norm, rtol = r["norm_error"], r["rtol"]
            if r["gflops"] is not None and not is_bad_number(r["gflops"]):
                figures[f"gemm GPU {dev} {r['type']} Gflops"] = r["gflops"]
            label = f"GPU {dev} {r['type']} GEMM {r.get('m', r.get('M', '?'))}^3"
            if norm is None:
                unknown.append(f"{label}: printed no norm_error (was -v honoured?)")
                continue
            if is_bad_number(norm) or norm >= WRONG_NORM:
                state = State.FAIL
                why = f"relative error {norm:g} against the CPU's result"
            elif rtol is not None and norm > rtol:
                state = State.WARN
                why = f"relative error {norm:g} above the bench's own rtol {rtol:g}"
            else:
                continue
            worst = state if state.severity > worst.severity else worst
            bad.append(f"{label}: {why}")
            evidence.extend([f"GPU {dev}: {r['line'].strip()}", *(f"GPU {dev}: {n}" for n in parsed["notes"][:2])])
    if not sections:
        return State.UNKNOWN, "GEMM verification printed nothing", (), figures
    if bad:
        return worst, "GEMM verification: " + "; ".join(bad[:4]), tuple(evidence[:8]), figures
    if unknown and len(unknown) == len(sections):
        return State.UNKNOWN, "GEMM verification: " + "; ".join(unknown[:3]), (), figures
    checked = len(sections) - len(unknown)
    msg = f"GEMM results match the CPU's on {checked} GPU(s) (hipblaslt-bench -v, f32 {GEMM_SIZE}^3)"
    return State.PASS, msg + (f"; {'; '.join(unknown[:2])}" if unknown else ""), (), figures


def load_baseline(path: str) -> dict[str, float]:
    """The figures of `--save-baseline`; a clear error naming the file otherwise."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RocmdoctorError(f"baseline {path} does not exist",
                              "record one on a known-good node: rocmdoctor validate HOST --level 2 --save-baseline FILE")
    except (OSError, ValueError) as exc:
        raise RocmdoctorError(f"baseline {path} is not readable JSON: {exc}", "use a file written by --save-baseline")
    figures = doc.get("figures") if isinstance(doc, dict) else None
    if not isinstance(figures, dict) or not all(isinstance(v, (int, float)) for v in figures.values()):
        raise RocmdoctorError(f"baseline {path} has no `figures` object of numbers", "use a file written by --save-baseline")
    return {str(k): float(v) for k, v in figures.items()}


def save_baseline(path: str, host: str, level: int, figures: dict[str, float]) -> None:
    from rocmdoctor.fileio import write_atomic

    doc = {"kind": "rocmdoctor-validate-baseline", "host": host, "level": level, "figures": figures}
    try:
        write_atomic(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    except OSError as exc:
        raise RocmdoctorError(f"cannot write the baseline {path}: {exc.strerror or exc}", "choose a writable path")


def compare_baseline(figures: dict[str, float], baseline: dict[str, float],
                     name: str) -> tuple[State, str, tuple[str, ...]]:
    """Each figure the baseline also holds: under BASELINE_WARN of it WARNs, under BASELINE_FAIL FAILs."""
    common = sorted(set(figures) & set(baseline))
    if not common:
        return State.UNKNOWN, f"no figure of this run is in the baseline {name} (another level or GPU count?)", ()
    low = sorted(((k, figures[k], baseline[k]) for k in common if baseline[k] > 0 and figures[k] < BASELINE_WARN * baseline[k]),
                 key=lambda x: x[1] / x[2])
    if not low:
        return State.PASS, f"{len(common)} figure(s) within {int(BASELINE_WARN * 100)} % of the baseline {name}", ()
    state = State.FAIL if low[0][1] < BASELINE_FAIL * low[0][2] else State.WARN
    lines = tuple(f"{k}: {v:g}, {v / b:.0%} of the baseline {b:g}" for k, v, b in low[:6])
    return state, f"{len(low)} of {len(common)} figure(s) under {int(BASELINE_WARN * 100)} % of the baseline {name}", lines
