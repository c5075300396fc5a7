"""Sweep benchmark: rocmdoctor vs a bare paramiko pool vs ClusterShell's clush, same run.

    apt-get install openssh-server clustershell     # sshd and /usr/bin/clush
    python benchmarks/sweep_bench.py                 # N = 100 500 1000, fanout 64
    python benchmarks/sweep_bench.py --sizes 100 --no-write

One loopback sshd (8 addresses, MaxStartups 2000) serves N ssh_config aliases,
each mapped onto the same simulated healthy MI300X node. All three clients
send the same compiled probe (the sweep_test runbook: a sysfs glob, a /proc
file and one command) once per host at fanout 64, each as its own process:
- rocmdoctor: `python -m rocmdoctor sweep node[001-N] --format json -o ...`
  (start-up, config parsing, audit log, evaluation, output included);
- paramiko: benchmarks/paramiko_pool.py, the floor for this SSH stack;
- clush: `clush -f 64 -w node[001-N] -o "-F ssh_config" 'sh -s' < probe`.
Measured per client: wall time, CPU (user+sys of the process and the children
it reaped, from wait4), peak RSS of the whole process tree (sampled from /proc
every 50 ms), hosts/s, exec round trips per host (sshd's own log), and hosts
that failed. Also the server's CPU per host (sshd's reaped children), and one
full triage (all built-in runbooks) of one host: one probe vs one exec per check.
Writes docs/benchmarks.md unless --no-write. Not a test: timings depend on the box.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rocmdoctor.testing.sweep_fleet import CATALOG, build_fleet  # noqa: E402

CLUSH = "/usr/bin/clush"


@dataclass
class Run:
    client: str
    n: int
    wall: float
    cpu: float
    rss_mb: float
    execs: int
    ok: int
    server_cpu: float

    @property
    def rate(self) -> float:
        return self.n / self.wall


def _children(pid: int) -> list[int]:
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(p))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _tree_rss_kb(pid: int) -> int:
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as fh:
                total += next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        except OSError:
            continue
        todo.extend(_children(p))
    return total


def _server_cpu(pid: int) -> float:
    """CPU of sshd's reaped per-connection children (cutime + cstime), seconds."""
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(f[13]) + int(f[14]) + int(f[11]) + int(f[12])) / tick


def measure(client: str, n: int, argv: list[str], fleet, stdin_path: Path | None, out_path: Path) -> Run:
    execs0, server0 = fleet.sshd.exec_sessions(), _server_cpu(fleet.sshd.proc.pid)
    peak = [0]
    start = time.monotonic()
    with open(out_path, "wb") as out, open(stdin_path or os.devnull, "rb") as inp:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=inp, cwd=ROOT)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.05):
                peak[0] = max(peak[0], _tree_rss_kb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    wall = time.monotonic() - start
    time.sleep(0.5)  # let sshd log the last sessions and reap its children
    ok = _count_ok(client, out_path, n)
    return Run(client, n, wall, usage.ru_utime + usage.ru_stime, peak[0] / 1024,
               fleet.sshd.exec_sessions() - execs0, ok, _server_cpu(fleet.sshd.proc.pid) - server0)


def _count_ok(client: str, out_path: Path, n: int) -> int:
    text = out_path.read_text(errors="replace")
    if client == "rocmdoctor":
        doc = json.loads(Path(str(out_path) + ".json").read_text())
        return sum(1 for h in doc["hosts"] if h["reachable"] and h["state"] == "pass")
    if client == "paramiko":
        return int(text.split("ok=")[1].split()[0]) if "ok=" in text else 0
    return len({line.split(":", 1)[0] for line in text.splitlines() if line.endswith(":end:end:end")})


def probe_file(fleet, workdir: Path) -> Path:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.node import sim_transport

    t = sim_transport(fleet.roots["healthy"])
    plan = compile_plan(load_catalog([CATALOG]), ["sweep_test"], {})
    p = workdir / "probe.sh"
    p.write_text(plan.probe_script(root=t.root, env=t.env))
    return p


def sweep_round(fleet, n: int, workdir: Path, probe: Path, fanout: int) -> list[Run]:
    cfg = str(fleet.ssh_config)
    from rocmdoctor.fleet.hostlist import fold

    # node[001-999],node1000: ClusterShell refuses node[001-1000] ("padding length mismatch")
    hosts = fold(f"node{i:03d}" for i in range(1, n + 1))
    csv = workdir / f"hosts{n}.csv"
    lines = []
    for block in Path(cfg).read_text().split("Host ")[1:n + 1]:
        words = block.split()
        lines.append(f"{words[0]},{words[words.index('HostName') + 1]},{words[words.index('Port') + 1]}")
    csv.write_text("\n".join(lines) + "\n")
    out = workdir / f"out{n}"
    rocm = [sys.executable, "-m", "rocmdoctor", "sweep", hosts, "--ssh-config", cfg, "--fanout", str(fanout),
            "--timeout", "60", "--path", str(CATALOG), "-r", "sweep_test", "--format", "json",
            "-o", f"{out}-rocmdoctor.json", "--audit-log", str(workdir / "audit.log")]
    pool = [sys.executable, str(ROOT / "benchmarks" / "paramiko_pool.py"), str(csv), str(probe),
            str(fleet.workdir / "id_ed25519"), str(fleet.workdir / "known_hosts"), str(fanout)]
    clush = [CLUSH, "-f", str(fanout), "-w", hosts, "-o", f"-F {cfg}", "-t", "60", "-u", "120", "sh -s"]
    runs = [measure("rocmdoctor", n, rocm, fleet, None, Path(f"{out}-rocmdoctor")),
            measure("paramiko", n, pool, fleet, None, Path(f"{out}-paramiko")),
            measure("clush", n, clush, fleet, probe, Path(f"{out}-clush"))]
    for r in runs:
        print(f"N={n:5d} {r.client:10s} wall {r.wall:6.1f}s cpu {r.cpu:6.1f}s rss {r.rss_mb:6.0f}MB "
              f"{r.rate:6.1f} hosts/s execs/host {r.execs / n:.2f} ok {r.ok}/{n} sshd cpu/host "
              f"{1000 * r.server_cpu / n:.0f}ms", flush=True)
    return runs


def one_host_triage(fleet) -> dict[str, float]:
    """All built-in runbooks on one host over SSH: one probe vs one exec per check."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.transports.audit import AuditLog
    from rocmdoctor.transports.ssh import SSHTransport
    from rocmdoctor.engine.triage import run_triage

    plan = compile_plan(load_catalog(), (), {})
    audit = AuditLog(fleet.workdir / "triage-audit.log")
    out: dict[str, float] = {"checks": len(plan.checks), "gathers": len(plan.gathers)}
    t0 = time.monotonic()
    with SSHTransport("node001", ssh_config=str(fleet.ssh_config), audit=audit) as t:
        report = run_triage(t, plan)
        out["probe_wall"], out["probe_round_trips"] = time.monotonic() - t0, report.round_trips
    t0 = time.monotonic()
    with SSHTransport("node001", ssh_config=str(fleet.ssh_config), audit=audit) as t:
        for check_id in plan.checks:
            gathers = plan.gathers_for([check_id])
            if gathers:
                t.collect(gathers)
        out["each_wall"], out["each_round_trips"] = time.monotonic() - t0, t.round_trips
    return out


sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import write_section  # noqa: E402


def write_doc(runs: list[Run], triage: dict[str, float], command: str, path: Path, load: str) -> None:
    by = {(r.client, r.n): r for r in runs}
    sizes = sorted({r.n for r in runs})
    rows = ["| N | client | wall (s) | client CPU (s) | peak RSS (MB) | hosts/s | execs/host | ok | sshd CPU/host (ms) |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        for c in ("rocmdoctor", "paramiko", "clush"):
            r = by[(c, n)]
            rows.append(f"| {n} | {c} | {r.wall:.1f} | {r.cpu:.1f} | {r.rss_mb:.0f} | {r.rate:.1f} | "
                        f"{r.execs / n:.2f} | {r.ok}/{n} | {1000 * r.server_cpu / n:.0f} |")
    ratios = []
    for n in sizes:
        rd, pm, cl = by[("rocmdoctor", n)], by[("paramiko", n)], by[("clush", n)]
        ratios.append(f"| {n} | {rd.wall / pm.wall:.2f}x | {cl.wall / rd.wall:.2f}x | "
                      f"{rd.cpu / pm.cpu:.2f}x | {(rd.cpu - pm.cpu) * 1000 / n:.1f} |")
    text = f"""## Sweep benchmark

Produced by:

    {command}

on {platform.node()} ({os.cpu_count()} CPUs, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}).
All clients talk to ONE loopback sshd (8 addresses, MaxStartups 2000) on the same box,
so the server's CPU is shared with the client's: compare within one run, not across boxes.
Load average (1/5/15 min) at start and end of the run: {load}.
Every client sends the same probe (runbook `sweep_test`: a sysfs glob, /proc/modules and
one command on a simulated MI300X node) once per host at fanout 64. "client CPU" is
user+sys of the client process and the children it reaped (clush's `ssh` processes
included); "peak RSS" is the sum over the client's process tree, sampled every 50 ms;
"execs/host" counts exec requests in sshd's log; "ok" counts hosts whose probe completed.

{chr(10).join(rows)}

| N | rocmdoctor / paramiko wall | clush / rocmdoctor wall | rocmdoctor / paramiko CPU | rocmdoctor CPU overhead per host (ms) |
|---:|---:|---:|---:|---:|
{chr(10).join(ratios)}

{_verdict(by, max(sizes))}

## One full triage of one host (all built-in runbooks, over SSH, connect included)

| | round trips | wall (s) |
|---|---:|---:|
| rocmdoctor: one compiled probe ({triage['gathers']:.0f} gathers, {triage['checks']:.0f} checks) | {triage['probe_round_trips']:.0f} | {triage['probe_wall']:.2f} |
| each check as its own command | {triage['each_round_trips']:.0f} | {triage['each_wall']:.2f} |
"""
    write_section(path, "sweep", text)


def _verdict(by: dict, n: int) -> str:
    rd, pm, cl = by[("rocmdoctor", n)], by[("paramiko", n)], by[("clush", n)]
    ratio = rd.wall / pm.wall
    within = "met" if ratio <= 1.15 else "NOT met"
    ahead = "met" if rd.wall < cl.wall else "NOT met"
    return (f"Issue 5 targets at N={n}: wall time within 1.15x of the bare paramiko pool: {within} "
            f"({ratio:.2f}x); ahead of clush: {ahead} ({rd.wall:.1f}s vs {cl.wall:.1f}s). "
            f"Hosts lost: rocmdoctor {n - rd.ok}, paramiko {n - pm.ok}, clush {n - cl.ok}.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000])
    ap.add_argument("--fanout", type=int, default=64)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    args = ap.parse_args()
    if not os.path.exists(CLUSH):
        print("clush not found: apt-get install clustershell", file=sys.stderr)
        return 2
    load0 = "/".join(f"{x:.1f}" for x in os.getloadavg())
    workdir = Path(tempfile.mkdtemp(prefix="rocmdoctor-bench-"))
    fleet = build_fleet(workdir, max(args.sizes), healthy_kinds=("healthy",))
    try:
        probe = probe_file(fleet, workdir)
        runs = []
        for n in args.sizes:
            runs += sweep_round(fleet, n, workdir, probe, args.fanout)
        triage = one_host_triage(fleet)
        print(json.dumps(triage))
    finally:
        fleet.stop()
    if not args.no_write:
        load1 = "/".join(f"{x:.1f}" for x in os.getloadavg())
        write_doc(runs, triage, "python benchmarks/sweep_bench.py " + " ".join(sys.argv[1:]), Path(args.out),
                  f"{load0} -> {load1}")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
