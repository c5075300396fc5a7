"""The triage core on a small real node tree: verdicts, evidence, branching,
unknowns, diagnoses, approved and verified remediations, dry-run, quoting."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.events import Event
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.transports.local import LocalTransport
from rocmdoctor.engine.triage import Decision, run_triage

ENGINE = Path(__file__).parent / "data" / "engine"
MODULES_OK = "amdgpu 15458304 3 - Live 0x0000000000000000\nvideo 65536 1 amdgpu, Live 0x0\n"


@pytest.fixture
def node(tmp_path: Path) -> Path:
    root = tmp_path / "node"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "modules").write_text(MODULES_OK)
    (root / "etc").mkdir()
    bin_dir = root / "bin"
    bin_dir.mkdir()
    _tool(bin_dir / "engtool", 'echo \'[{"gpu": 0}, {"gpu": 1}]\'')
    _tool(bin_dir / "engps", "true")
    return root


def _tool(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _triage(root: Path, tmp_path: Path, *, vars: dict | None = None, fix: bool = False,
            approve: bool = True, dry_run: bool = False, events: list[Event] | None = None):
    catalog = load_catalog([ENGINE])
    plan = compile_plan(catalog, ["engine-test"], vars or {})
    import os

    t = LocalTransport(root=str(root), env={"PATH": f"{root}/bin:{os.environ['PATH']}", "ENGROOT": str(root)},
                       audit=AuditLog(tmp_path / "audit.log"), dry_run=dry_run)
    approver = lambda plan, host: Decision(approve, "tester", "" if approve else "declined")  # noqa: E731
    return run_triage(t, plan, fix=fix, approver=approver,
                      on_event=(events.append if events is not None else lambda e: None))


def _step(report, step_id):
    (rb,) = report.runbooks
    return next(s for s in rb.steps if s.step_id == step_id)


def test_healthy_node_passes_in_one_round_trip(node: Path, tmp_path: Path) -> None:
    report = _triage(node, tmp_path)
    assert report.round_trips == 1
    assert _step(report, "module").check.message == "amdgpu loaded, refcount 3"
    assert _step(report, "tool").check.message == "engtool lists 2"
    assert _step(report, "optional").check.message == "no /etc/eng.conf: defaults apply"
    assert _step(report, "applog").state == State.SKIPPED
    assert "--var log=" in _step(report, "applog").skipped_because
    assert report.state == State.PASS and report.exit_status == ExitStatus.OK


def test_failed_step_gates_dependent_step_and_is_diagnosed(node: Path, tmp_path: Path) -> None:
    (node / "proc" / "modules").write_text("video 65536 0 - Live 0x0\n")
    report = _triage(node, tmp_path)
    module = _step(report, "module")
    assert module.state == State.FAIL
    assert module.check.evidence == ("cat /proc/modules: no line starting with 'amdgpu '",)
    tool = _step(report, "tool")
    assert tool.state == State.SKIPPED and "steps.module.outputs.loaded" in tool.skipped_because
    (diag,) = report.runbooks[0].diagnoses
    assert diag.diagnosis_id == "module-missing" and diag.cause == "amdgpu is not loaded on local"
    assert diag.evidence == module.check.evidence
    assert diag.remediations[0].verify_check == "eng.module"
    assert report.exit_status == ExitStatus.CRITICAL


def test_missing_tool_is_unknown_with_reason(node: Path, tmp_path: Path) -> None:
    (node / "bin" / "engtool").unlink()
    report = _triage(node, tmp_path)
    tool = _step(report, "tool")
    assert tool.state == State.UNKNOWN and tool.check.message == "engtool: command not found"
    assert report.exit_status == ExitStatus.UNKNOWN


def test_hanging_tool_is_unknown_and_bounded(node: Path, tmp_path: Path) -> None:
    _tool(node / "bin" / "engtool", "sleep 30")
    report = _triage(node, tmp_path)
    tool = _step(report, "tool")
    assert tool.state == State.UNKNOWN and "timed out after 2s" in tool.check.message
    assert report.duration_ms < 10_000


def test_failing_or_garbled_tool_is_unknown(node: Path, tmp_path: Path) -> None:
    _tool(node / "bin" / "engtool", "echo 'engtool: cannot open /dev/kfd' >&2; exit 1")
    tool = _step(_triage(node, tmp_path), "tool")
    assert tool.state == State.UNKNOWN
    assert tool.check.message == "`engtool --json` exited 1: engtool: cannot open /dev/kfd"
    _tool(node / "bin" / "engtool", "echo 'not json'")
    tool = _step(_triage(node, tmp_path), "tool")
    assert tool.state == State.UNKNOWN and tool.check.message.startswith("could not parse `engtool --json`: not JSON")


def test_optional_file_present_is_judged(node: Path, tmp_path: Path) -> None:
    (node / "etc" / "eng.conf").write_text("mode=strict\n")
    step = _step(_triage(node, tmp_path), "optional")
    assert step.state == State.WARN and step.check.evidence == ("/etc/eng.conf: mode=strict",)


def test_variables_reach_gathers(node: Path, tmp_path: Path) -> None:
    (node / "job.err").write_text("step 1\nRuntimeError: out of memory\n")
    step = _step(_triage(node, tmp_path, vars={"log": "/job.err"}), "applog")
    assert step.state == State.FAIL and step.check.message == "OOM in /job.err"


def test_fix_runs_approved_remediation_and_verifies(node: Path, tmp_path: Path) -> None:
    (node / "proc" / "modules").write_text("video 65536 0 - Live 0x0\n")
    events: list[Event] = []
    report = _triage(node, tmp_path, fix=True, events=events)
    (outcome,) = report.remediations
    assert outcome.result is not None and outcome.result.exit_status == 0
    assert outcome.verify is not None and outcome.verify.state == State.PASS and outcome.fixed
    assert "amdgpu" in (node / "proc" / "modules").read_text()
    assert report.round_trips == 4  # probe, remediation, verify probe, re-triage probe
    assert report.exit_status == ExitStatus.OK  # the failed step was fixed and verified
    assert report.after is not None
    tool = next(s for s in report.after[0].steps if s.step_id == "tool")
    assert tool.state == State.PASS  # the step the fault had gated off ran after the fix
    kinds = [e.kind for e in events]
    assert kinds.index("remediation_decided") < kinds.index("remediation_ran") < kinds.index("remediation_verified")
    audit = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert [a["command"] for a in audit][1].startswith("printf")
    assert "approved by tester" in audit[1]["note"]


def test_declined_and_dry_run_change_nothing(node: Path, tmp_path: Path) -> None:
    (node / "proc" / "modules").write_text("video 65536 0 - Live 0x0\n")
    before = (node / "proc" / "modules").read_text()
    report = _triage(node, tmp_path, fix=True, approve=False)
    assert report.remediations[0].result is None and report.remediations[0].decision.reason == "declined"
    report = _triage(node, tmp_path, fix=True, dry_run=True)
    assert report.remediations[0].result is None
    assert report.remediations[0].decision.reason == "dry run: printed, not run"
    assert (node / "proc" / "modules").read_text() == before
    assert report.exit_status == ExitStatus.CRITICAL


def test_hostile_process_names_cannot_inject(node: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    _tool(node / "bin" / "engps", f"echo '$(touch {marker})'; echo 'a;touch {marker}'; echo '`touch {marker}`'")
    report = _triage(node, tmp_path, fix=True)
    (outcome,) = report.remediations
    assert outcome.result is not None and outcome.result.exit_status == 0
    assert not marker.exists()
    killed = (node / "killed").read_text().splitlines()
    assert killed[1:] == [f"$(touch {marker})", f"a;touch {marker}", f"`touch {marker}`"]
