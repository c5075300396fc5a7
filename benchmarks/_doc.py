"""Write one benchmark's generated section of docs/benchmarks.md, keeping the rest
(other benchmarks' sections and hand-written notes) as it is; and time a call the way
the benchmarks report it (best of N wall-clock runs)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Callable


def best_of(fn: Callable[[], Any], runs: int = 3, clock: Callable[[], float] = time.perf_counter) -> float:
    """The fastest of `runs` timings of fn(), in seconds (wall clock; `time.process_time` for CPU)."""
    best = float("inf")
    for _ in range(runs):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def write_section(path: Path, name: str, text: str) -> None:
    begin, end = f"<!-- begin:{name} (generated) -->", f"<!-- end:{name} -->"
    block = f"{begin}\n{text.strip()}\n{end}"
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    new = pattern.sub(lambda _: block, old) if pattern.search(old) else old.rstrip() + "\n\n" + block + "\n"
    path.write_text(new)
