"""Large simulated fleets for the cohort analysis tests and benchmark, cheaply.

Each node kind is materialised once and probed once; every host of that kind is then triaged
from the kind's evidence (run_triage(evidence=...)): the verdicts are the real ones for that
node, and a 200-host fleet costs 200 evaluations instead of 200 probes.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Callable

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.triage import run_triage
from rocmdoctor.fleet.inventory import HostSpec
from rocmdoctor.fleet.sweep import HostResult, SweepResult, from_report
from rocmdoctor.simnode.node import SimNode, sim_transport


def fleet_results(kinds: dict[str, Callable[[], SimNode]], assignment: list[tuple[str, str]],
                  runbooks: tuple[str, ...] = (), variables: dict[str, str] | None = None) -> SweepResult:
    """assignment: [(host name, kind)] -> a SweepResult as `rocmdoctor sweep` would return it
    (variables: as `--var`)."""
    plan = compile_plan(load_catalog(), list(runbooks), dict(variables or {}))
    evidence = {}
    with tempfile.TemporaryDirectory() as d:
        for kind, build in kinds.items():
            root = build().materialize(Path(d) / kind)
            with sim_transport(root) as t:
                evidence[kind] = (t.collect(list(plan.gathers)), root)
        hosts: list[HostResult] = []
        for name, kind in assignment:
            ev, root = evidence[kind]
            with sim_transport(root, host=name) as t:
                report = run_triage(t, plan, target=name, evidence=ev)
            hosts.append(from_report(HostSpec(name=name), report, report.duration_ms))
    return SweepResult(hosts=tuple(hosts), runbooks=tuple(rb.id for rb in plan.runbooks),
                       started_at=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()), duration_s=0.0,
                       fanout=64, timeout=60.0, deadline=None)
