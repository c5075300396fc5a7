"""How long the fleet cohort analysis takes on 1,000 and 10,000 host results: a fleet where a
kernel rollout broke a third of the nodes and a ROCm update a quarter of the rest, built from the
real triage reports of three simulated nodes (healthy MI300X, dkms-wrong-kernel,
rocm-driver-incompatible) repeated under distinct host names. Measures CPU time of
fleet.cohorts.analyse and of the sweep-to-sweep comparison; prints and writes the `cohorts`
section of docs/benchmarks.md.

    python benchmarks/cohort_bench.py [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _doc import best_of, write_section  # noqa: E402


def _cpu(fn, runs: int = 3) -> float:
    return best_of(fn, runs, clock=time.process_time)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from rocmdoctor.fleet.changes import compare
    from rocmdoctor.fleet.cohorts import analyse
    from rocmdoctor.fleet.outputs.json_doc import sweep_doc
    from rocmdoctor.simnode.scenarios.gpu_oom import healthy
    from rocmdoctor.simnode.scenarios.kernel_driver import dkms_wrong_kernel, userspace_too_new
    from rocmdoctor.testing.cohort_fleet import fleet_results

    seed = fleet_results({"ok": healthy, "kernel": dkms_wrong_kernel, "rocm": userspace_too_new},
                         [("ok", "ok"), ("kernel", "kernel"), ("rocm", "rocm")])
    by_kind = {h.host: h for h in seed.hosts}
    rows = []
    for n in (1_000, 10_000):
        hosts = []
        for i in range(n):
            kind = "kernel" if i % 3 == 0 else ("rocm" if i % 4 == 1 else "ok")
            hosts.append(replace(by_kind[kind], host=f"gpu{i:05d}"))
        sweep = replace(seed, hosts=tuple(hosts))
        cohorts = analyse(sweep.hosts)
        t_analyse = _cpu(lambda: analyse(sweep.hosts))
        doc = sweep_doc(sweep)
        t_compare = _cpu(lambda: compare("bench", doc, doc))
        top = cohorts[0]
        rows.append((n, t_analyse, t_compare, len(cohorts), top.findings[0].text if top.findings else "-"))
        print(f"{n:>6} results: cohorts {t_analyse:.3f} s CPU ({len(cohorts)} cohorts; top: {rows[-1][4]}), "
              f"sweep-to-sweep compare {t_compare:.3f} s CPU")
    if not args.no_write:
        lines = [
            "## Fleet cohort analysis (`benchmarks/cohort_bench.py`)",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
            "best of 3, CPU time of one process. Fleet: a third of the hosts broken by a kernel rollout, "
            "a quarter of the rest by a ROCm update (real triage reports of three simulated nodes under "
            "distinct names). Target: under 1 s of CPU for 10,000 results.",
            "",
            "| results | cohort analysis (s CPU) | --since compare (s CPU) | cohorts | top finding |",
            "|---|---|---|---|---|",
        ]
        lines += [f"| {n:,} | {a:.3f} | {c:.3f} | {k} | {t} |" for n, a, c, k, t in rows]
        write_section(ROOT / "docs" / "benchmarks.md", "cohorts", "\n".join(lines))
        print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
