"""CLI start-up and single-node triage speed, measured on the built-in demo nodes.

    python benchmarks/cli_bench.py [--runs N] [--against REF]

--against REF also times `triage local` from a git worktree of REF (an earlier commit), runs of the
two interleaved, and reports the ratio: a new runbook must not make the node's own health check
slower than the bound its issue sets (issue 44: within 10 %).

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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Figures:
    wall: float  # median seconds
    best: float
    cpu: float  # median user+sys seconds of the rocmdoctor process and the children it reaped
    rss_mb: float  # median peak RSS of the rocmdoctor process
    runs: int


def timed(argv: list[str], env: dict[str, str], runs: int, cwd: Path = ROOT) -> Figures:
    """Each run a fresh `python -m rocmdoctor`; os.wait4 gives that one process's own
    CPU time and peak RSS (the probe's shell and tools are counted in CPU, not RSS)."""
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "rocmdoctor", *argv], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, cwd=cwd)
        _, _, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - t0)
        proc.returncode = 0  # reaped by wait4 above
        cpus.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024)
    return Figures(statistics.median(walls), min(walls), statistics.median(cpus), statistics.median(rss), runs)


def against(ref: str, env: dict[str, str], runs: int) -> tuple[Figures, Figures, str]:
    """`triage local` at HEAD and at REF (a worktree, its own caches), alternating one run each."""
    tree = Path(tempfile.mkdtemp(prefix="rocmdoctor-ref-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree), ref], check=True)
    try:
        sha = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        old_env = {**env, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": env["XDG_CACHE_HOME"] + "-ref"}
        new_env = {**env, "PYTHONPATH": str(ROOT)}
        timed(["triage", "local"], old_env, 1, tree)      # warm both caches
        timed(["triage", "local"], new_env, 1)
        old, new = [], []
        for _ in range(runs):
            old.append(timed(["triage", "local"], old_env, 1, tree))
            new.append(timed(["triage", "local"], new_env, 1))

        def merged(fs: list[Figures]) -> Figures:
            return Figures(statistics.median(f.wall for f in fs), min(f.best for f in fs),
                           statistics.median(f.cpu for f in fs), statistics.median(f.rss_mb for f in fs), len(fs))
        return merged(old), merged(new), sha
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


# Issue 8 targets for a health check that Slurm/cron runs on every node every few minutes.
TARGETS = {"triage-local": ("wall", 0.25), "sweep-local": ("cpu", 0.25)}
RSS_TARGET_MB = 40


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--against", metavar="REF", help="also time `triage local` at this earlier commit")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="rocmdoctor-clibench-"))
    env = {**os.environ, "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_DATA_HOME": str(home / "data")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files; so does this run
    rows: list[tuple[str, str, Figures]] = []
    rows.append(("cold", "`triage demo:healthy-mi300x` (first run: empty template, catalog and plan cache)",
                 timed(["triage", "demo:healthy-mi300x", "--format", "json"], env, 1)))
    timed(["triage", "local"], env, 1)  # warm the caches the rows below are about
    timed(["sweep", "local"], env, 1)
    for key, label, argv in [
        ("triage-local", "`triage local` (this box: no AMD GPU; all 8 runbooks and the fingerprint, table output)", ["triage", "local"]),
        ("sweep-local", "`sweep local` (Slurm HealthCheckProgram / cron form)", ["sweep", "local"]),
        ("help", "`rocmdoctor --help`", ["--help"]),
        ("list", "`runbooks list` (warm catalog cache)", ["runbooks", "list"]),
        ("demo-all", "`triage demo:healthy-mi300x` (8 runbooks, warm cache)", ["triage", "demo:healthy-mi300x", "--format", "json"]),
        ("demo-one", "`triage demo:amdgpu-not-loaded --runbook gpu-not-visible`", ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible"]),
    ]:
        rows.append((key, label, timed(argv, env, args.runs)))
    doc = json.loads(subprocess.run([sys.executable, "-m", "rocmdoctor", "runbooks", "compile", "--format", "json"],
                                    env=env, capture_output=True, text=True, cwd=ROOT).stdout)
    verdicts = []
    for key, label, f in rows:
        print(f"{label}: median {f.wall:.3f}s wall, {f.cpu:.3f}s CPU, {f.rss_mb:.0f} MB RSS; best {f.best:.3f}s over {f.runs} run(s)")
        if key in TARGETS:
            what, limit = TARGETS[key]
            value = getattr(f, what)
            verdicts.append(f"`{key.replace('-', ' ')}` {what} {value:.3f} s (target <= {limit} s): "
                            f"{'met' if value <= limit else 'NOT met'}; peak RSS {f.rss_mb:.0f} MB "
                            f"(target <= {RSS_TARGET_MB} MB): {'met' if f.rss_mb <= RSS_TARGET_MB else 'NOT met'}")
    if args.against:
        old, new, sha = against(args.against, env, args.runs)
        ratio = new.wall / old.wall
        verdicts.append(f"`triage local` now {new.wall:.3f} s against {old.wall:.3f} s at `{sha}` ({args.against}), "
                        f"{args.runs} interleaved runs each: ratio {ratio:.2f} (bound <= 1.10): "
                        f"{'met' if ratio <= 1.10 else 'NOT met'}; CPU {new.cpu:.3f} s against {old.cpu:.3f} s")
    for line in verdicts:
        print(line)
    table = "\n".join(f"| {label} | {f.wall:.3f} | {f.best:.3f} | {f.cpu:.3f} | {f.rss_mb:.0f} | {f.runs} |"
                      for _, label, f in rows)
    text = f"""## CLI start-up and one local triage

Produced by `python benchmarks/cli_bench.py --runs {args.runs}{' --against ' + args.against if args.against else ''}` on {platform.node()} ({os.cpu_count()} CPUs,
Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}), load average at the end
{'/'.join(f'{x:.1f}' for x in os.getloadavg())}. Each row is a fresh `python -m rocmdoctor` process run
from the checkout with byte-code caching on (as an installed package has); CPU is user+sys of
that process and the children it reaped (the probe's shell and tools included), RSS its own
peak. A demo triage includes writing the simulated node (~1000 files) and its one probe
({len(doc['gathers'])} gathers of {len(doc['checks'])} checks in {doc['round_trips']} round trip).
`triage local` and `sweep local` run the real probe against this VM, which has no AMD GPU.

| command | median wall (s) | best wall (s) | median CPU (s) | peak RSS (MB) | runs |
|---|---:|---:|---:|---:|---:|
{table}

{chr(10).join('- ' + v for v in verdicts)}
"""
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "cli", text)
        print("wrote docs/benchmarks.md (section cli)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
