"""How long the error-signature catalogue takes on job logs: a long log built from the real
lines of tests/signatures/real_messages.yaml between ordinary lines, and hostile megabyte
lines that hold a signature's anchors (the case the load-time pattern check and the anchor
window exist for). Prints the figures and writes the `signatures` section of docs/benchmarks.md.

    python benchmarks/signatures_bench.py [--lines 100000] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _doc import best_of, write_section  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    import yaml

    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.line_match import match_text

    sigs = load_catalog().signatures
    real = [m["text"] for m in yaml.safe_load((ROOT / "tests/signatures/real_messages.yaml").read_text())["messages"]]
    filler = "2026-05-08 11:47:02.257 [Info] (Process) (EngineCore pid=2651) step 1234 loss 0.4213 lr 3e-4"
    lines = [real[i // 1000 % len(real)] if i % 1000 == 0 else filler for i in range(args.lines)]
    log = "\n".join(lines)
    mb = len(log.encode()) / 1e6
    t_log = best_of(lambda: match_text(sigs, log, "job.log"))
    found = len(match_text(sigs, log, "job.log"))

    hostile = {
        "1 MB after 'Unable to open /dev/kfd read-write: '": "Unable to open /dev/kfd read-write: " + "a" * 1_000_000,
        "'BAR ' x 250,000 then 'no space'": ("BAR " * 250_000) + "no space",
        "'amdgpu: Unknown symbol ' x 40,000": "amdgpu: Unknown symbol " * 40_000 + "(err",
        "'OOM when allocating tensor with shape' + '[1,' x 300,000": "OOM when allocating tensor with shape"
        + "[1," * 300_000 + " and type",
    }
    rows = [(name, best_of(lambda t=text: match_text(sigs, t)), len(text) / 1e6) for name, text in hostile.items()]

    print(f"{len(sigs)} signatures; {args.lines} lines ({mb:.1f} MB): {t_log:.3f} s, {found} signature(s) found")
    for name, t, size in rows:
        print(f"hostile {name} ({size:.1f} MB): {t:.3f} s")
    table = "\n".join(f"| {name} | {size:.1f} | {t:.3f} |" for name, t, size in rows)
    text = f"""## Error signatures on job logs

Produced by `python benchmarks/signatures_bench.py --lines {args.lines}` on {platform.node()} ({os.cpu_count()} CPUs,
Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}), best of 3, in-process (`match_text`, the
function `--log` and `explain` use), {len(sigs)} signatures.

- A {args.lines}-line job log ({mb:.1f} MB; one real error line from tests/signatures/real_messages.yaml
  every 1000 lines): **{t_log:.3f} s**, {found} signatures found. `--log` reads only the last 1 MiB of each log.
- Hostile single lines that hold a signature's literal anchors (patterns only see 600 characters either
  side of the anchor; nested and unbounded repeats are refused when the catalogue loads):

| line | MB | seconds |
|---|---:|---:|
{table}
"""
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "signatures", text)
        print("wrote docs/benchmarks.md (section signatures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
