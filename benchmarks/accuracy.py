"""Diagnosis accuracy on the real-incident corpus (tests/incidents/).

    python benchmarks/accuracy.py [--update-baseline]
    python benchmarks/accuracy.py --first-sight ID CASE...  # score a new batch, once
    python benchmarks/accuracy.py --after-fix ID            # re-score a batch after fixes
    python benchmarks/accuracy.py --after-fix all           # re-score every batch (one run of the corpus)

Triages every case's bundle with all runbooks, prints and writes docs/accuracy.md:
per runbook the cases, the right root cause as the first diagnosis, right runbook but
wrong or missing cause, missed, and false CRITICAL on benign cases; then every miss
with its reason. --update-baseline records each case's verdict in
tests/incidents/baseline.json, which the test suite holds the code to.

--first-sight records a new batch (cases committed, none scored before) with its commit
and every case's verdict in tests/incidents/batches.yaml; it refuses a batch that exists
or cases that are not committed. --after-fix records the batch's latest score. The
history of batches opens docs/accuracy.md: the figure to steer by.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocmdoctor.testing.corpus import ROOT as CASES_ROOT  # noqa: E402
from rocmdoctor.testing.batches import (BatchError, catalogue_causes, head_commit, history,  # noqa: E402
                                        known_causes, load_batches, record_after_fix, record_first_sight,
                                        save_batches, uncommitted)
from rocmdoctor.testing.corpus import Outcome, load_case, load_cases, run_case  # noqa: E402


def coverage(outcomes: list[Outcome]) -> str:
    """Every runbook diagnosis with the real cases it is the right first diagnosis of and the
    simulated nodes built for it: which root causes rest on real incidents and which do not yet."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.simnode.scenarios import SCENARIOS

    right: dict[tuple[str, str], list[str]] = {}
    also: dict[tuple[str, str], list[str]] = {}  # named after the first diagnosis of an incident
    for o in outcomes:
        name = o.case.case_id.split("/", 1)[1]
        if o.verdict == "right":
            right.setdefault((o.case.runbook, o.first_diagnosis), []).append(name)
        if not o.case.benign:
            for d in o.diagnoses[1:]:
                also.setdefault((o.case.runbook, d), []).append(name)
    sims: dict[str, list[str]] = {}
    for sc in SCENARIOS.values():
        d = (sc.expect or {}).get("diagnosis")
        if d:
            sims.setdefault(d, []).append(sc.name)
    rows, bare = [], []
    catalog = load_catalog()
    for rb in sorted(catalog.runbooks):
        for d in catalog.runbooks[rb].diagnoses:
            cases = right.pop((rb, d.id), [])
            named = sorted(set(also.get((rb, d.id), [])) - set(cases))
            rows.append(f"| {rb} | `{d.id}` | {len(cases)} | {', '.join(f'`{c}`' for c in cases) or '-'} "
                        f"| {', '.join(f'`{c}`' for c in named) or '-'} "
                        f"| {', '.join(f'`{n}`' for n in sorted(sims.get(d.id, []))) or '-'} |")
            if not cases and f"`{d.id}`" not in bare:
                bare.append(f"`{d.id}`")
    other = sorted(f"`{d}` ({len(c)})" for (_, d), c in right.items())
    return (
        "## Root causes and their real cases\n\n"
        "Each runbook diagnosis, the corpus cases it is the right first diagnosis of, the incidents where\n"
        "it is named after another first diagnosis, and the simulated nodes (`demo:NAME`) that reproduce\n"
        "it. A diagnosis with no case as first diagnosis rests on its simulated node and its sources\n"
        f"({len(bare)} diagnosis ids: {', '.join(bare) or 'none'}).\n"
        + (f"Cases made right by an error signature's own diagnosis: {', '.join(other)}.\n" if other else "")
        + "\n| runbook | diagnosis | real cases | cases | also named in | simulated nodes |\n|---|---|---:|---|---|---|\n"
        + "\n".join(rows) + "\n")


def render(outcomes: list[Outcome], batches: list[dict] | None = None) -> str:
    runbooks = sorted({o.case.runbook for o in outcomes})
    rows = []
    for rb in runbooks + ["all"]:
        mine = [o for o in outcomes if rb in ("all", o.case.runbook)]
        real = [o for o in mine if not o.case.benign]
        benign = [o for o in mine if o.case.benign]
        c = Counter(o.verdict for o in mine)
        pct = f"{100 * c['right'] / len(real):.0f}%" if real else "-"
        rows.append(f"| {rb} | {len(mine)} | {len(real)} | {c['right']} ({pct}) | {c['wrong-cause']} | {c['missed']} "
                    f"| {len(benign)} | {c['false-critical']} |")
    misses = [o for o in outcomes if o.verdict not in ("right", "benign-ok")]
    miss_lines = "\n".join(f"| `{o.case.case_id}` | {o.verdict} | {o.reason.replace('|', '/')} | {o.case.urls[0]} |"
                           for o in misses) or "| (none) | | | |"
    real = [o for o in outcomes if not o.case.benign]
    right = sum(o.verdict == "right" for o in real)
    return f"""# Diagnosis accuracy on real incidents

## At first sight: batches of incidents nobody here had read

Each batch was gathered from public threads no earlier case used (by a helper that did not read
rocmdoctor's rules), committed, and scored before any rule changed for it; then fixed from the
sources its misses pointed to and scored again. The first-sight column is the figure to steer
by: it is what an on-call engineer gets on the next incident. Per-case verdicts at first sight
are in `tests/incidents/batches.yaml`.

{history(batches or [])}
## The whole corpus

Generated by `python benchmarks/accuracy.py` on {time.strftime('%Y-%m-%d')} from the {len(outcomes)} cases in
`tests/incidents/` ({len(real)} incidents, {len(outcomes) - len(real)} benign). Each case is evidence copied
verbatim from a public thread into a hand-written bundle; its expected root cause is the one the
thread established (see each `case.md`). A case is triaged with every runbook, as
`rocmdoctor triage --from tests/incidents/<runbook>/<case>/bundle` would.

- **right**: the expected runbook's first diagnosis is one the thread supports;
- **wrong cause**: that runbook named another cause first;
- **missed**: that runbook named no cause: UNKNOWN (often: the evidence is not read yet), or a failure seen
  (a symptom such as "no ROCm-capable device") with its likely causes left open, each with the command that settles it;
- **false CRITICAL**: a benign case (healthy or expected output) made the triage CRITICAL.

How far to trust the figure: the cases were collected by the same team that writes the runbooks,
and several root causes got their diagnosis in the same session as their first cases (the error
signatures, PCIe atomics, DKMS build failures, the quiet fan curve, the per-process cap, an
allocation refused with VRAM free, a KFD that refused to start, a job that failed on the iGPU,
an init stuck in the SR-IOV mailbox, XGMI link errors read from the kernel log, a failed rocm_bandwidth_test data validation, a /dev/kfd only root can open, a leftover DKMS version directory, a GPU ROCm on WSL does not support, a Mesa library that needs a newer libdrm than the one loaded, an IP discovery table amdgpu could not read, a GPU whose own boot failed, an SR-IOV virtual function that failed init under an unsupported guest driver, a VBIOS that could not post the GPU, a GPU that aborted peer-to-peer DMA under IOMMU translation, a GPU that fell off the bus, copies that fail only between GPUs, a GPU that did not come back from runtime power-down, a DKMS module Secure Boot refused, a crash known only from the crashed boot's log, a GPU that reads 100 % busy without load, an amd-smi whose Python package comes from another ROCm release or whose Python cannot import it, a node its GPU powered off at the critical temperature, a framework wheel built for CUDA on an AMD node, an HSA_OVERRIDE_GFX_VERSION of another GPU generation, a GFX8 card that stops the runtime of a newer GPU (from rocminfo's generic HSA error alone, at low confidence), PyTorch's cache fragmentation, a slurmd that ignores the GPUs it detected (an unresolved thread, judged on Slurm's own messages), a GPU firmware release that was rolled back (MES 0x83), a GPU BAR that SR-IOV's VF BARs left unplaced, a GPU hang known only from the job's log, a crashed boot read from rsyslog's file that the crash cut short, nomodeset known only from amdgpu's refusal, the kernel's own amdgpu loaded by an initramfs older than the blacklist (its one real case stays a miss), a GPU product the runtime lists under another generation's target (read through AMD's product tables), a GPU AMD's metrics exporter marked unhealthy on one CPER record, a GPU held under its lowest clock level at 100 % busy (an unresolved thread, judged on rocm-smi's readings), an amdgpu missing from a pasted lsmod (the module check learned lsmod with that case), a docker CLI whose daemon does not see the host's devices (an unresolved thread: sudo docker worked; read from the docker line against the host's loaded amdgpu), a container that asked Docker for GPUs as a device request no driver serves (compose's `driver: rocm`; its fix confirmed by the fix's author and one tester, not merged), a GPU DaemonSet crash-looping on a CPU-only node (its one real case stays a miss: the ticket has no lspci), an LXC's /dev/kfd refused with EPERM by its device cgroup (an unresolved thread, judged on the errno), a DKMS build its install step refused as "not newer" than the kernel's own amdgpu (the fix is the reporter's, in a thread AMD did not conclude); the EINVAL open's cause was rewritten when its first case's full thread turned out to say a GPU back from a VM, not the LXC's device cgroup; two earlier misses turned right the same way: the MI50 over
Thunderbolt, the Kubernetes node read from rocm-smi). Cases marked "unresolved" in their `case.md` are judged
against what their evidence supports, not against a confirmed fix. The figure is a regression
baseline (`tests/incidents/baseline.json` holds the code to it), not an independent estimate;
the misses below are the honest part.

Right root cause first: **{right}/{len(real)} ({100 * right / max(1, len(real)):.0f}%)**.

| runbook | cases | incidents | right | wrong cause | missed | benign | false CRITICAL |
|---|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

## Misses

| case | verdict | why | thread |
|---|---|---|---|
{miss_lines}

{coverage(outcomes)}"""


def _record(args: argparse.Namespace, batches: list[dict]) -> list[dict]:
    """Score one batch and write it to batches.yaml (first sight once, after-fix each time)."""
    if args.first_sight:
        if not args.cases:
            raise BatchError("--first-sight needs the batch's case directories")
        paths = [Path(p).resolve() for p in args.cases]
        dirty = uncommitted(ROOT, paths)
        if dirty:
            raise BatchError("commit the batch before scoring it; not committed: " + ", ".join(dirty[:5]))
        outcomes = [run_case(load_case(p)) for p in paths]
        batch = record_first_sight(batches, args.first_sight, outcomes, head_commit(ROOT), args.note,
                                   known_causes((o.case for o in outcomes), catalogue_causes(ROOT)))
        label = "first sight"
    elif args.after_fix == "all":  # every batch from one run of the corpus: after a fix that reaches several
        by_id = {o.case.case_id: o for o in (run_case(c) for c in load_cases())}
        for b in batches:
            record_after_fix(batches, b["id"], [by_id[c] for c in b.get("cases", {}) if c in by_id], head_commit(ROOT))
            s = b["after_fix"]
            print(f"batch {b['id']} after fixes: {s['right']}/{s['incidents']} right, {s['false_critical']} false CRITICAL")
        save_batches(batches)
        return batches
    else:
        ids = set(next((b for b in batches if b["id"] == args.after_fix), {}).get("cases", {}))
        outcomes = [run_case(c) for c in load_cases() if c.case_id in ids]
        batch = record_after_fix(batches, args.after_fix, outcomes, head_commit(ROOT))
        label = "after fixes"
    for o in outcomes:
        print(f"{label}: {o.verdict:15s} {o.case.case_id:55s} {o.reason}")
    s = batch["first_sight" if args.first_sight else "after_fix"]
    print(f"batch {batch['id']} {label}: {s['right']}/{s['incidents']} right, {s['false_critical']} false CRITICAL")
    save_batches(batches)
    return batches


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--first-sight", metavar="ID", help="record a new batch: its cases are the CASE arguments")
    ap.add_argument("--after-fix", metavar="ID", help="record the batch's score after fixes ('all': every batch)")
    ap.add_argument("--note", default="", help="with --first-sight: where the batch was gathered from")
    ap.add_argument("cases", nargs="*", help="with --first-sight: the batch's case directories")
    args = ap.parse_args()
    batches = load_batches()
    try:
        if args.first_sight or args.after_fix:
            batches = _record(args, batches)
    except BatchError as exc:
        print(f"accuracy.py: {exc}", file=sys.stderr)
        return 2
    outcomes = [run_case(c) for c in load_cases()]
    for o in outcomes:
        print(f"{o.verdict:15s} {o.case.case_id:55s} {o.reason}")
    text = render(outcomes, batches)
    if not args.no_write:
        (ROOT / "docs" / "accuracy.md").write_text(text)
        print("wrote docs/accuracy.md")
    if args.update_baseline:
        baseline = {o.case.case_id: o.verdict for o in outcomes}
        (CASES_ROOT / "baseline.json").write_text(json.dumps(baseline, indent=1, sort_keys=True) + "\n")
        print("wrote tests/incidents/baseline.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
