"""For every simulated node: triage of its capture equals triage of the node (issue 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.evidence.bundle import build_bundle, read_bundle, write_bundle
from rocmdoctor.engine.capture import EXTRA_GATHERS
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.simnode.demo import demo_vars
from rocmdoctor.simnode.scenarios import SCENARIOS
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.transports.replay import ReplayTransport
from rocmdoctor.engine.triage import run_triage


def _verdicts(report) -> list[tuple]:
    return [(rb.runbook_id, s.step_id, s.state.value, s.check.message if s.check else s.skipped_because,
             s.check.evidence if s.check else ()) for rb in report.runbooks for s in rb.steps] + [
        (d.runbook_id, d.diagnosis_id, d.cause, tuple(p.command for p in d.remediations))
        for rb in report.runbooks for d in rb.diagnoses]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_capture_replays_to_the_live_verdicts(name: str, sim_node, tmp_path: Path) -> None:
    root = sim_node(SCENARIOS[name].build())
    plan = compile_plan(load_catalog(), (), demo_vars(f"demo:{name}"))
    live = run_triage(sim_transport(root), plan)

    gathers = list(plan.gathers) + [g for g in EXTRA_GATHERS if g.key not in {x.key for x in plan.gathers}]
    transport = sim_transport(root)
    evidence = transport.collect(gathers)
    assert transport.round_trips == 1
    out = write_bundle(build_bundle(transport.host, gathers, evidence), tmp_path / f"{name}.tar.gz")
    replayed = run_triage(ReplayTransport(read_bundle(out)), plan)

    assert _verdicts(replayed) == _verdicts(live)
    assert replayed.state == live.state
