"""CLI start-up and single-node triage speed, measured on the built-in demo nodes.

    python benchmarks/cli_bench.py [--runs N]

Prints the figures and writes the "cli" section of docs/benchmarks.md. Not a test:
timings depend on the box; compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rocmdoctor", *argv], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=ROOT, timeout=300)
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), min(walls)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="rocmdoctor-clibench-"))
    env = {**os.environ, "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_DATA_HOME": str(home / "data")}
    rows = []
    cold = timed(["triage", "demo:healthy-mi300x", "--format", "json"], env, 1)
    rows.append(("`triage demo:healthy-mi300x` (first run: empty template and catalog cache)", cold, 1))
    for label, argv in [
        ("`rocmdoctor --help`", ["--help"]),
        ("`runbooks list` (warm catalog cache)", ["runbooks", "list"]),
        ("`triage demo:healthy-mi300x` (5 runbooks, warm cache)", ["triage", "demo:healthy-mi300x", "--format", "json"]),
        ("`triage demo:amdgpu-not-loaded --runbook gpu-not-visible`", ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible"]),
    ]:
        rows.append((label, timed(argv, env, args.runs), args.runs))
    doc = json.loads(subprocess.run([sys.executable, "-m", "rocmdoctor", "runbooks", "compile", "--format", "json"],
                                    env=env, capture_output=True, text=True, cwd=ROOT).stdout)
    for label, (median, best), n in rows:
        print(f"{label}: median {median:.3f}s, best {best:.3f}s over {n} run(s)")
    table = "\n".join(f"| {label} | {median:.2f} | {best:.2f} | {n} |" for label, (median, best), n in rows)
    text = f"""## CLI start-up and one local triage

Produced by `python benchmarks/cli_bench.py --runs {args.runs}` on {platform.node()} ({os.cpu_count()} CPUs,
Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}), load average at the end
{'/'.join(f'{x:.1f}' for x in os.getloadavg())}. Each row is a fresh `python -m rocmdoctor` process; a
demo triage includes writing the simulated node (~1000 files) and its one probe
({len(doc['gathers'])} gathers of {len(doc['checks'])} checks in {doc['round_trips']} round trip).

| command | median (s) | best (s) | runs |
|---|---:|---:|---:|
{table}
"""
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "cli", text)
        print("wrote docs/benchmarks.md (section cli)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
