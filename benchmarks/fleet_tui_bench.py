"""How fast the fleet view answers keys while a 1,000-host sweep streams in: host results (real
triage reports of two simulated nodes under 1,000 names) arrive from a worker thread at a steady
rate, and sort / filter keys are pressed meanwhile through Textual's test pilot. Prints the key
latencies (median and worst of each kind) and writes the `fleet-tui` section of docs/benchmarks.md.

    python benchmarks/fleet_tui_bench.py [--hosts 1000] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _doc import write_section  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from rocmdoctor.simnode.scenarios.gpu_oom import healthy
    from rocmdoctor.simnode.scenarios.kernel_driver import dkms_wrong_kernel
    from rocmdoctor.testing.cohort_fleet import fleet_results
    from rocmdoctor.tui.fleet import FleetApp, FleetSession

    seed = fleet_results({"ok": healthy, "bad": dkms_wrong_kernel}, [("ok", "ok"), ("bad", "bad")],
                         ("kernel-driver-mismatch",))
    kinds = {h.host: h for h in seed.hosts}
    hosts = [replace(kinds["bad" if i % 3 == 0 else "ok"], host=f"gpu{i:04d}") for i in range(args.hosts)]
    result = replace(seed, hosts=tuple(hosts))
    spread = 8.0   # seconds over which the results arrive (a fan-out of 64 at ~0.5 s per host)

    def sweep(on_host):  # type: ignore[no-untyped-def]
        for h in hosts:
            on_host(h)
            time.sleep(spread / len(hosts))
        return result

    timings: dict[str, list[float]] = {"sort (s)": [], "filter keystroke": []}

    async def run() -> int:
        with tempfile.TemporaryDirectory() as d:
            app = FleetApp(FleetSession(sweep, journal_dir=d), None)
            async with app.run_test(size=(200, 50)) as pilot:
                while len(app.hosts) < 50:
                    await pilot.pause(0.01)
                end = time.monotonic() + spread * 0.6
                while time.monotonic() < end and app.phase == "sweeping":
                    t0 = time.perf_counter()
                    await pilot.press("s")
                    timings["sort (s)"].append(time.perf_counter() - t0)
                    for key in ("/", "0", "backspace", "escape"):
                        t0 = time.perf_counter()
                        await pilot.press(key)
                        if key == "0":
                            timings["filter keystroke"].append(time.perf_counter() - t0)
                    await pilot.pause(0.05)
                in_flight = len(hosts) - len(app.hosts)
                while app.phase != "done":
                    await pilot.pause(0.05)
        return in_flight

    left = asyncio.run(run())
    rows = []
    for name, vals in timings.items():
        vals_ms = [v * 1000 for v in vals]
        rows.append((name, len(vals_ms), statistics.median(vals_ms), max(vals_ms)))
        print(f"{name:18} {len(vals_ms):3} presses: median {statistics.median(vals_ms):6.1f} ms, worst {max(vals_ms):6.1f} ms")
    print(f"{left} host(s) still in flight at the last measured key")
    if not args.no_write:
        lines = [
            "## Fleet view key latency (`benchmarks/fleet_tui_bench.py`)",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}. "
            f"{args.hosts} host results stream in over {spread:g} s from a worker thread (the table redrawn on each); "
            "keys pressed through Textual's test pilot at 200x50, time from press to handled. Target: under 100 ms.",
            "",
            "| key | presses | median (ms) | worst (ms) |",
            "|---|---|---|---|",
        ]
        lines += [f"| {n} | {k} | {m:.1f} | {w:.1f} |" for n, k, m, w in rows]
        write_section(ROOT / "docs" / "benchmarks.md", "fleet-tui", "\n".join(lines))
        print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
