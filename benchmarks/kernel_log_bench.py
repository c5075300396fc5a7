"""How long a triage takes when the node's kernel log is large: a bundle whose `dmesg` is about
1 MiB of amdgpu lines (the healthy-boot lines of rocmdoctor/simnode/formats/kernel_lines.py,
repeated: the worst case, since every line is one the GPU checks classify), triaged with every
runbook in-process, best of 3. Ten gathers of six checks read that log; each parse is done once
per text (rocmdoctor/parsers/__init__.py `parse_memoized`). Prints the figures and writes the
`kernel-log` section of docs/benchmarks.md.

    python benchmarks/kernel_log_bench.py [--mib 1] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _doc import best_of, write_section  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=1.0)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    from rocmdoctor.engine.core import TriageRequest, triage_target
    from rocmdoctor.simnode.formats.kernel_lines import HEALTHY_BOOT

    lines: list[str] = []
    size, ts = 0, 1.0
    while size < args.mib * 1024 * 1024:
        for msg, _ in HEALTHY_BOOT:
            line = f"[{ts:12.6f}] {msg}"
            lines.append(line)
            size += len(line) + 1
            ts += 0.001
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "commands" / "dmesg"
        out.mkdir(parents=True)
        (out / "stdout").write_text("\n".join(lines) + "\n")
        small = Path(tmp) / "small" / "commands" / "dmesg"
        small.mkdir(parents=True)
        (small / "stdout").write_text("\n".join(lines[:50]) + "\n")
        big_s = best_of(lambda: triage_target(TriageRequest(target="", bundle=tmp)))
        small_s = best_of(lambda: triage_target(TriageRequest(target="", bundle=str(Path(tmp) / "small"))))
        # the same lines as rsyslog writes them, all of the previous boot (the banner of this one
        # at the end), beside the small dmesg: what a node with a volatile journal costs
        syslog = Path(tmp) / "syslog"
        (syslog / "files" / "var" / "log").mkdir(parents=True)
        (syslog / "commands" / "dmesg").mkdir(parents=True)
        (syslog / "commands" / "dmesg" / "stdout").write_text("\n".join(lines[:50]) + "\n")
        banner = "Linux version 5.15.0-119-generic (buildd@lcy02-amd64-025) #129-Ubuntu SMP"
        (syslog / "files" / "var" / "log" / "kern.log").write_text(
            "".join(f"Oct  1 07:52:51 node01 kernel: {line}\n" for line in lines)
            + f"Oct  1 08:00:00 node01 kernel: [    0.000000] {banner}\n")
        syslog_s = best_of(lambda: triage_target(TriageRequest(target="", bundle=str(syslog))))

    text = f"""## Triage with a large kernel log

Produced by `python benchmarks/kernel_log_bench.py --mib {args.mib:g}` on {platform.node() or 'this host'}
({os.cpu_count()} CPUs, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}), best of 3,
in-process (`triage --from BUNDLE`, every runbook).

- `dmesg` of {size / 1e6:.1f} MB ({len(lines)} amdgpu lines, every one classified): **{big_s:.2f} s**
- the same bundle with 50 of those lines: **{small_s:.2f} s**
- 50 lines of `dmesg` and the {size / 1e6:.1f} MB as rsyslog's /var/log/kern.log, all of them the previous
  boot's (`hw.resets` and `thermal.kernel_events` read it when the journal is volatile): **{syslog_s:.2f} s**

The log is parsed once per parser (kernel_log, kernel_events, ras_log_counts), not once per check;
before that (measured by hand on 2026-11-23) the 1 MiB case took 5.4 s, 2.9 s of it in ten parses,
and the whole log was copied into five checks' results (now working outputs named `_log`/`_events`).
ras_log_counts takes its events from the same memo instead of classifying every line again
(measured by hand on 2026-11-23, same machine: 0.57 s before, the figure above after).
"""
    print(text)
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "kernel-log", text)
        print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
