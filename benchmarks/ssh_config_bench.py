"""How long an ssh_config with a thousand Host blocks takes to read: rocmdoctor's own
lookup (rocmdoctor/transports/ssh_config.py, written because paramiko's was measured too
slow for a 1000-host sweep) against paramiko's SSHConfig on the same file, parse plus one
lookup per host, best of 3. Prints the figures and writes the `ssh-config` section of
docs/benchmarks.md. Speed is measured here, not asserted in a timed test.

    python benchmarks/ssh_config_bench.py [--hosts 1000] [--paramiko-hosts 100] [--no-write]
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


def config_text(hosts: int) -> str:
    """One Host block per node, as a fleet's generated ssh_config has them, and a catch-all."""
    blocks = "".join(f"Host node{i:04d}\n  HostName 10.1.{i // 250}.{i % 250}\n  Port 2222\n"
                     f"  IdentityFile ~/.ssh/id_{i}\n  SetEnv ROCMDOCTOR_ROOTFS=/sim/{i}\n" for i in range(hosts))
    return blocks + "Host *\n  User ops\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--paramiko-hosts", type=int, default=100,
                    help="lookups timed with paramiko (it is slow; the per-lookup figure is what matters)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    import paramiko

    from rocmdoctor.transports.ssh_config import SSHConfigFile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config"
        path.write_text(config_text(args.hosts))
        names = [f"node{i:04d}" for i in range(args.hosts)]

        def ours() -> None:
            cfg = SSHConfigFile(path)
            for name in names:
                cfg.lookup(name)

        def theirs() -> None:
            cfg = paramiko.SSHConfig.from_path(str(path))
            for name in names[:args.paramiko_hosts]:
                cfg.lookup(name)

        ours_s = best_of(ours)
        theirs_s = best_of(theirs)
    per_ours = ours_s / args.hosts * 1e3
    per_theirs = theirs_s / args.paramiko_hosts * 1e3
    text = f"""## ssh_config with many Host blocks (`benchmarks/ssh_config_bench.py`)

Produced by `python benchmarks/ssh_config_bench.py --hosts {args.hosts}` on {platform.node() or 'this host'}
({os.cpu_count()} CPUs, Python {platform.python_version()}, paramiko {paramiko.__version__},
{time.strftime('%Y-%m-%d')}), best of 3: a file of {args.hosts} `Host` blocks and a `Host *`.

- rocmdoctor's lookup, parse and {args.hosts} lookups: **{ours_s:.3f} s** ({per_ours:.3f} ms per host)
- paramiko's SSHConfig, parse and {args.paramiko_hosts} lookups: **{theirs_s:.3f} s**
  ({per_theirs:.1f} ms per host, about {per_theirs * args.hosts / 1e3:.0f} s for all {args.hosts})
"""
    print(text)
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "ssh-config", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
