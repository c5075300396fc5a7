"""`rocmdoctor validate` (issue 42, first part): RVS's own levels run on a simulated node whose `rvs`
prints RVS's real output (its user guide's examples); pass and fail judged with the deciding lines,
a busy node refused unless forced (the reason audited), a missing RVS named, --dry-run sends
nothing, a declined approval runs nothing, a hung rvs is stopped by its timeout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocmdoctor.engine.triage import Decision
from rocmdoctor.engine.validate import LEVELS, Level, run_validate
from rocmdoctor.parsers.rvs import parse_rvs_output
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.simnode.scenarios import validate_nodes
from rocmdoctor.status import State
from rocmdoctor.transports.audit import AuditLog

RVS = Path(__file__).resolve().parent / "fixtures" / "outputs" / "rvs"
YES = lambda p, h: Decision(True, "tester")  # noqa: E731


def _t(node, tmp_path, **kw):  # type: ignore[no-untyped-def]
    return sim_transport(node.materialize(tmp_path / "n"), audit=AuditLog(tmp_path / "audit.log"), **kw)


def test_every_rvs_example_parses_and_only_the_failing_one_fails() -> None:
    for f in sorted(RVS.glob("doc-*.txt")):
        out = parse_rvs_output(f.read_text())
        failed = [v for v in out["verdicts"] if not v["passed"]] + [a for a in out["actions"] if not a["passed"]]
        assert (out["verdicts"] or out["actions"]), f.name
        assert bool(failed) == ("fail" in f.name), f.name
    gst = parse_rvs_output((RVS / "doc-ug1main-mi355x-gst.txt").read_text())
    assert gst["verdicts"][0]["gpu"] == "42583" and gst["verdicts"][0]["passed"]


def test_a_passing_and_a_failing_node(tmp_path) -> None:
    with _t(validate_nodes.rvs_pass(), tmp_path / "a") as t:
        ok = run_validate(t, 1, YES)
    assert ok.state == State.PASS and ok.command.endswith("rvs -r 2")
    assert ok.evidence == ("| pcie_h2d_bandwidth               | PEBB           | PASS            |",)
    with _t(validate_nodes.rvs_fail(), tmp_path / "b") as t:
        bad = run_validate(t, 2, YES)
    assert bad.state == State.FAIL and bad.command.endswith("rvs -r 3")
    assert bad.message == ("RVS failed action_1 on GPU id(s) 3254, 33367, 50599; "
                           "TransferBench not installed: per-link bandwidth not measured; "
                           "hipblaslt-bench (hipBLASLt's benchmark client) not installed: GEMM results not checked")
    assert bad.evidence[0] == "[RESULT] [257936.568920] [action_1]  smqt 3254 pass: false"


def test_both_real_hipblaslt_bench_forms_parse() -> None:
    from rocmdoctor.parsers.hipblaslt_bench import parse_hipblaslt_bench

    bench = RVS.parent / "hipblaslt-bench"
    new = parse_hipblaslt_bench((bench / "readme-f32-validation.txt").read_text())["results"]
    assert [(r["type"], r["gflops"], r["norm_error"], r["rtol"]) for r in new] == [("f32_r", 403.298, 2.44879e-07, 1e-05)]
    old = parse_hipblaslt_bench((bench / "hipblaslt-radeonvii-gfx906-f32-relu-v-norm-error.txt").read_text())
    assert [(r["type"], r["gflops"], r["norm_error"], r["rtol"]) for r in old["results"]] == [("f32_r", 2.72763e06, 1.08487, None)]
    assert old["notes"][0].startswith("rocblaslt warning: No paths matched")


def test_level_2_checks_each_gpu_s_gemm_against_the_cpu(tmp_path) -> None:
    """RVS passes (gst measures throughput, not results); GPU 3's f32 GEMM is 108 % off the CPU's."""
    with _t(validate_nodes.rvs_pass(), tmp_path / "a") as t:
        ok = run_validate(t, 2, YES)
    assert ok.state == State.PASS and "GEMM results match the CPU's on 8 GPU(s)" in ok.message
    assert ok.figures["gemm GPU 7 f32_r Gflops"] == 403.298
    with _t(validate_nodes.gemm_wrong(), tmp_path / "b") as t:
        bad = run_validate(t, 2, YES)
    assert bad.state == State.FAIL
    assert bad.message.endswith("GEMM verification: GPU 3 f32_r GEMM 2048^3: relative error 1.08487 against the CPU's result")
    assert bad.evidence[1].startswith("GPU 3: N,N,0,1,2048,2048,2048") and bad.evidence[1].endswith(",1.08487")
    assert "No paths matched" in bad.evidence[2]
    assert [(p["name"], p["state"]) for p in bad.parts] == [("gemm-verify", "fail")]
    with _t(validate_nodes.rvs_pass(), tmp_path / "c") as t:
        level1 = run_validate(t, 1, YES)
    assert "hipblaslt-bench" not in level1.command       # level 1 stays short


def test_a_recorded_baseline_is_the_yardstick(tmp_path, capsys) -> None:
    from rocmdoctor.cli.main import run

    base = tmp_path / "mi350x.json"
    argv = ["validate", "demo:validate-slow-link", "--level", "1", "--yes", "--incidents-dir", str(tmp_path)]
    assert run([*argv, "--save-baseline", str(base)]) == 1
    figures = json.loads(base.read_text())["figures"]
    assert figures["link GPU 07 -> GPU 01 GB/s"] == 46.66 and len(figures) == 90     # 10 executors (2 CPUs, 8 GPUs), each to the 9 others
    capsys.readouterr()
    assert run([*argv, "--baseline", str(base), "--format", "json"]) == 1            # the slow link, not the baseline
    doc = json.loads(capsys.readouterr().out)
    assert doc["parts"][-1]["state"] == "pass" and "90 figure(s) within 85 % of the baseline mi350x.json" in doc["message"]
    faster = dict(figures, **{"link GPU 00 -> GPU 01 GB/s": 2 * figures["link GPU 00 -> GPU 01 GB/s"] + 1})
    base.write_text(json.dumps({"figures": faster}))
    assert run([*argv, "--baseline", str(base), "--format", "json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["parts"][-1]["state"] == "fail" and doc["evidence"][-1].startswith("link GPU 00 -> GPU 01 GB/s: ")
    from rocmdoctor.status import ExitStatus

    base.write_text("{not json")
    assert run([*argv, "--baseline", str(base)]) == ExitStatus.USAGE
    assert "is not readable JSON" in capsys.readouterr().err
    assert run([*argv, "--baseline", str(tmp_path / "none.json")]) == ExitStatus.USAGE
    assert "does not exist" in capsys.readouterr().err
    assert run(["validate", "demo:validate-rvs-pass", "demo:validate-slow-link", "--save-baseline", str(base)]) == ExitStatus.USAGE
    assert "--save-baseline records one host's figures; 2 hosts given" in capsys.readouterr().err


def test_level_1_enumerates_the_gpus_against_the_bus(tmp_path) -> None:
    """Before any load: KFD's GPU nodes against the AMD functions on the PCI bus, and SIMD counts."""
    with _t(validate_nodes.gpu_missing(), tmp_path) as t:
        r = run_validate(t, 1, YES)
    assert r.state == State.FAIL and "KFD enumerates 7 GPU(s) of the 8 on the PCI bus: `rocmdoctor triage mi300x" in r.message
    assert [p["name"] for p in r.parts] == ["enumeration"] and r.evidence[1].startswith("PCI: 8 AMD GPU function(s): 0000:05:00.0")
    from rocmdoctor.engine.validate import SEP, judge_enumeration, read_preflight

    # the preflight's own lines: one GPU of eight with 1140 of 1216 SIMDs (compute units disabled)
    nodes = "\n".join(f"{n} gfx_target_version 90402 simd_count {1140 if n == 5 else 1216}" for n in range(2, 10))
    pf = read_preflight(f"\n{SEP}\n/opt/rocm/bin/rvs\n{SEP}\n\n{SEP}\n\n{SEP}\n{SEP}\n{nodes}\n")
    state, message, _ = judge_enumeration(pf, "gpu042")
    assert (pf.rvs, pf.gpus) == ("/opt/rocm/bin/rvs", 8)
    assert state == State.WARN and message.endswith("node 5 (1140 SIMDs, its 7 sibling(s) of gfx_target_version 90402: 1216)")


def test_a_busy_node_is_refused_unless_forced_and_the_reason_is_audited(tmp_path) -> None:
    with _t(validate_nodes.busy(), tmp_path) as t:
        refused = run_validate(t, 1, YES)
        assert refused.state == State.UNKNOWN and refused.message.startswith("refused: 8 process(es) hold a GPU (PID 51000")
        forced = run_validate(t, 1, YES, force="RMA evidence, owner agreed")
    assert forced.state == State.PASS and forced.busy_pids[0] == 51000
    records = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert "forced over PID(s) [51000" in records[-1]["note"] and "RMA evidence, owner agreed" in records[-1]["note"]


def test_missing_rvs_dry_run_and_declined(tmp_path) -> None:
    with _t(validate_nodes.no_rvs(), tmp_path / "a") as t:
        missing = run_validate(t, 1, YES)
    assert missing.state == State.UNKNOWN and "install the rocm-validation-suite package" in missing.message
    with _t(validate_nodes.rvs_pass(), tmp_path / "b", dry_run=True) as t:
        dry = run_validate(t, 3, YES)
    assert dry.state == State.SKIPPED and "would run" in dry.message and "rvs -r 4;" in dry.command
    assert "--device \"$d\" --precision f32_r" in dry.command and "stopped after 136 min" in dry.message
    records = [json.loads(line) for line in (tmp_path / "b" / "audit.log").read_text().splitlines()]
    assert [r.get("dry_run", False) for r in records] == [False, True]      # the preflight read, the echoed run
    with _t(validate_nodes.rvs_pass(), tmp_path / "c") as t:
        declined = run_validate(t, 1, lambda p, h: Decision(False, "tester", "declined"))
    assert declined.state == State.UNKNOWN and declined.message == "not run: declined"


def test_a_hung_rvs_is_stopped_by_its_timeout(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(LEVELS, 1, Level(2, 1.0, "a second", "a stub that hangs"))
    node = validate_nodes.rvs_pass().stub("rvs", "sleep 30\n")
    with _t(node, tmp_path) as t:
        hung = run_validate(t, 1, YES)
    assert hung.state == State.UNKNOWN and hung.message == "rvs did not finish within 1 s and was stopped"


def test_one_slow_link_is_named_against_the_node_s_own_links(tmp_path) -> None:
    """TransferBench p2p of a real 8x MI350X node: GPU 07 -> GPU 01 at 46.66 GB/s, the other 55 links ~57.5."""
    with _t(validate_nodes.slow_link(), tmp_path) as t:
        r = run_validate(t, 1, YES)
    assert r.state == State.WARN and r.command.endswith("TransferBench p2p")
    assert r.message.endswith("slow GPU-to-GPU link(s): GPU 07 -> GPU 01 46.66 GB/s (81% of the median 57.50)")
    assert r.evidence[-1].startswith("  GPU 07  ->     55.43")
    from rocmdoctor.engine.validate import judge_links

    assert judge_links("no matrix here")[0] == State.UNKNOWN


@pytest.mark.parametrize("demo, status", [("validate-rvs-pass", 0), ("validate-rvs-fail", 2), ("validate-busy", 3),
                                          ("validate-no-rvs", 3), ("validate-slow-link", 1)])
def test_cli_exit_statuses(demo: str, status: int, capsys) -> None:
    from rocmdoctor.cli.main import run

    assert run(["validate", f"demo:{demo}", "--level", "1", "--yes", "--format", "json"]) == status
    doc = json.loads(capsys.readouterr().out)
    assert doc["level"] == 1 and doc["rvs_level"] == 2 and doc["exit_status"] == status


def test_the_run_and_its_verdict_go_to_the_incident_journal(tmp_path) -> None:
    from rocmdoctor.cli.main import run
    from rocmdoctor.incident.journal import load_all

    assert run(["validate", "demo:validate-slow-link", "--level", "1", "--yes", "--incidents-dir", str(tmp_path)]) == 1
    (incident,) = list(load_all(tmp_path))
    kinds = [e.kind for e in incident.events]
    assert kinds == ["remediation_decided", "remediation_ran", "note"]
    assert incident.header.front_end == "validate" and incident.header.command.endswith("--level=1")
    assert "WARN: RVS passed 1 action(s); slow GPU-to-GPU link(s): GPU 07 -> GPU 01 46.66 GB/s" in incident.events[-1].text
    from rocmdoctor.incident.postmortem import render_postmortem

    draft = render_postmortem(incident)
    assert draft.startswith("# Postmortem draft: demo:validate-slow-link: validate level 1: WARN: RVS passed 1 action(s)")
    assert "was validated with rocmdoctor on" in draft and "ended the incident in state" not in draft


def test_a_host_list_is_validated_one_host_after_the_other(capsys) -> None:
    from rocmdoctor.cli.main import run

    argv = ["validate", "demo:validate-rvs-pass", "demo:validate-slow-link", "demo:validate-busy", "--level", "1", "--yes"]
    assert run([*argv, "--format", "json"]) == 1          # worst first: warn outranks unknown (as for sweeps)
    doc = json.loads(capsys.readouterr().out)
    assert [(h["host"], h["state"]) for h in doc["hosts"]] == [
        ("demo:validate-rvs-pass", "pass"), ("demo:validate-slow-link", "warn"), ("demo:validate-busy", "unknown")]
    assert run(argv) == 1
    assert "3 host(s): 1 warn, 1 unknown, 1 pass" in capsys.readouterr().out


def test_prometheus_and_junit_outputs(tmp_path, capsys) -> None:
    import xml.etree.ElementTree as ET

    from rocmdoctor.cli.main import run

    argv = ["validate", "demo:validate-rvs-fail", "demo:validate-slow-link", "--level", "1", "--yes"]
    prom = tmp_path / "validate.prom"
    assert run([*argv, "--format", "prometheus", "-o", str(prom)]) == 2
    text = prom.read_text()
    assert 'rocmdoctor_validate_state{host="demo:validate-rvs-fail",level="1"} 2' in text
    assert 'rocmdoctor_validate_state{host="demo:validate-slow-link",level="1"} 1' in text
    assert run([*argv, "--format", "junit"]) == 2
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suites = {s.get("name"): s for s in root}
    assert suites["demo:validate-rvs-fail"].get("failures") == "1"
    slow = suites["demo:validate-slow-link"]
    assert [c.get("name") for c in slow] == ["pcie_h2d_bandwidth", "p2p", "gemm-verify"][:2]
    assert slow[1].find("failure").get("type") == "warn"
    assert run(["validate", "demo:validate-gemm-wrong", "--level", "2", "--yes", "--format", "junit"]) == 2
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    cases = {c.get("name"): c for c in root[0]}
    assert cases["pcie_h2d_bandwidth"].find("failure") is None
    assert "relative error 1.08487" in cases["gemm-verify"].find("failure").get("message")
