"""The rollout gate on a simulated 200-host fleet rolled out in three waves (issue 43): a kernel
update 5.15.0-105 -> 5.15.0-119 (a 5.15 security update: ROCm 6.2 supports MI300X on Ubuntu
22.04 with 5.15 only). Waves 1 (canary, 10 hosts) and 2 (90) take it cleanly; in wave 3
(100) a rack without kernel headers gets no amdgpu-dkms build for the new kernel. The gate passes
waves 1 and 2 and stops wave 3, naming every broken host, its diagnosis and the trigger."""

from __future__ import annotations

import functools
import json

import pytest

from rocmdoctor.fleet.gate import evaluate_gate, parse_expect, render_gate
from rocmdoctor.fleet.outputs.json_doc import sweep_doc
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.simnode.scenarios.kernel_driver import dkms_wrong_kernel, userspace_too_new
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.cohort_fleet import fleet_results

NAMES = [f"gpu{i:03d}" for i in range(1, 201)]
WAVES = (NAMES[:10], NAMES[10:100], NAMES[100:])
BROKEN = frozenset(NAMES[150:170])          # wave 3's rack without headers: 20 hosts
RUNBOOKS = ("kernel-driver-mismatch", "gpu-not-visible")
OLD, NEW = "5.15.0-105-generic", "5.15.0-119-generic"


def _on(kernel: str) -> SimNode:
    node = healthy()
    node.cmdline = node.cmdline.replace(node.kernel, kernel)
    node.kernel = kernel
    return node


def _old_kernel() -> SimNode:
    return _on(OLD)


def _new_kernel() -> SimNode:
    return _on(NEW)


def _no_headers() -> SimNode:
    from rocmdoctor.simnode.system import UBUNTU_2204_OS_RELEASE

    return dkms_wrong_kernel(NEW, OLD, UBUNTU_2204_OS_RELEASE)


def _one_gpu_lost() -> SimNode:
    node = _new_kernel()
    node.gpus.pop()
    return node


@functools.lru_cache(maxsize=1)
def _baseline() -> dict:
    return sweep_doc(fleet_results({"old": _old_kernel}, [(n, "old") for n in NAMES], RUNBOOKS))


def _wave(hosts: list[str], kinds: dict | None = None, broken: frozenset = frozenset(), bad: str = "broken") -> dict:
    kinds = kinds or {"new": _new_kernel, "broken": _no_headers}
    return sweep_doc(fleet_results(kinds, [(n, bad if n in broken else "new") for n in hosts], RUNBOOKS))


def test_good_waves_pass_and_the_broken_wave_stops_naming_hosts_and_trigger() -> None:
    expect = parse_expect([f"kernel={NEW}"])
    for wave in WAVES[:2]:
        verdict = evaluate_gate("before.json", _baseline(), _wave(wave), expect)
        assert verdict.passed and verdict.exit_status == ExitStatus.OK and len(verdict.hosts) == len(wave)
        assert render_gate(verdict).strip().startswith(f"Gate: PASS: {len(wave)} host(s)")
    verdict = evaluate_gate("before.json", _baseline(), _wave(WAVES[2], broken=BROKEN), expect)
    assert not verdict.passed and verdict.exit_status == ExitStatus.CRITICAL
    assert set(verdict.stopped_hosts) == BROKEN
    first, lost = [o for o in verdict.offences if o.host == "gpu151"]
    assert (first.kind, lost.kind) == ("newly-failing", "lost-gpu")
    assert first.text.startswith("pass -> fail: kernel-driver-mismatch/dkms-not-built-for-kernel")
    assert lost.text == "lost 8 GPU(s) driven by amdgpu: 8 -> 0"      # still on the bus: gpu_count stays 8
    t = verdict.trigger
    assert (t.attribute, t.before, t.after, t.stopped_with_it, t.stopped, t.moved) == \
        ("kernel", OLD, NEW, 20, 20, 100)
    text = render_gate(verdict)
    assert "Gate: STOP (fail): 20 of 100 host(s) gpu[151-170] differ from the baseline (before.json)" in text
    assert f"trigger: kernel {OLD} -> {NEW} on 20/20 stopped host(s) (20 of the 100 host(s) " \
           "that made this move); they fail with kernel-driver-mismatch/dkms-not-built-for-kernel" in text
    assert "roll back: rocmdoctor rollback 'gpu[151-170]' --baseline before.json --attribute kernel --dry-run" in text
    # dkms and the driver-reported attributes moved with the failure: not reported a second time as drift
    assert "unintended" not in text


def test_a_host_that_did_not_take_the_update_or_changed_more_stops_the_gate() -> None:
    wave = NAMES[:4]
    doc = _wave(wave)
    doc["hosts"][0]["fingerprint"]["kernel"] = OLD          # the reboot never happened
    doc["hosts"][1]["fingerprint"]["container_runtime"] = "Docker version 27.3.1, build ce12230"
    verdict = evaluate_gate("b", _baseline(), doc, parse_expect([f"kernel={NEW}"]))
    texts = {o.host: o.text for o in verdict.offences}
    h0, h1 = doc["hosts"][0]["host"], doc["hosts"][1]["host"]
    assert texts[h0] == f"expected kernel={NEW}, runs {OLD} (unchanged since the baseline: the update did not take)"
    assert texts[h1].startswith("unintended change: container_runtime ") and texts[h1].endswith(
        "-> Docker version 27.3.1, build ce12230 (not in --expect)")
    assert len(verdict.stopped_hosts) == 2
    # without --expect, the kernel move itself is unintended
    plain = evaluate_gate("b", _baseline(), _wave(wave))
    assert {o.kind for o in plain.offences} == {"drift"} and len(plain.stopped_hosts) == 4
    assert plain.offences[0].text == f"unintended change: kernel {OLD} -> {NEW} (not in --expect)"


def test_a_lost_gpu_stops_the_gate_even_when_the_runbooks_pass() -> None:
    wave = NAMES[:3]
    doc = _wave(wave, {"new": _new_kernel, "lost": _one_gpu_lost}, frozenset(wave[:1]), "lost")
    verdict = evaluate_gate("b", _baseline(), doc, parse_expect([f"kernel={NEW}"]))
    lost = [o for o in verdict.offences if o.kind == "lost-gpu"]
    assert [o.host for o in lost] == [wave[0], wave[0]]
    assert sorted(o.text for o in lost) == ["lost 1 GPU(s) driven by amdgpu: 8 -> 7", "lost 1 GPU(s) on the PCI bus: 8 -> 7"]


def test_failing_before_and_after_is_not_the_wave_s_doing_but_unreachable_and_new_hosts_are_unknown() -> None:
    before = sweep_doc(fleet_results({"old": healthy, "rocm64": userspace_too_new},
                                     [("a", "rocm64"), ("b", "old"), ("c", "old")], ("kernel-driver-mismatch",)))
    now = sweep_doc(fleet_results({"rocm64": userspace_too_new, "old": healthy},
                                  [("a", "rocm64"), ("b", "old"), ("c", "old"), ("d", "old")], ("kernel-driver-mismatch",)))
    for h in now["hosts"]:
        if h["host"] == "c":
            h.update(reachable=False, state="unknown", reason="timeout", message="no SSH banner within 10 s",
                     fingerprint={})
    verdict = evaluate_gate("b", before, now)
    assert {(o.host, o.kind) for o in verdict.offences} == {("c", "unreadable"), ("d", "not-in-baseline")}
    assert verdict.state == State.UNKNOWN and verdict.exit_status == ExitStatus.UNKNOWN


@pytest.mark.parametrize("item, message", [
    ("kernel", "not ATTRIBUTE=VALUE"), ("colour=blue", "no fingerprint attribute 'colour'"),
])
def test_bad_expectations_are_one_clear_error(item: str, message: str) -> None:
    from rocmdoctor.errors import RocmdoctorError

    with pytest.raises(RocmdoctorError, match=message):
        parse_expect([item])


def test_cli_gate_exit_status_table_and_json(tmp_path, capsys) -> None:
    """`sweep --baseline FILE --gate` on demo nodes: the baseline is the healthy node's sweep under the
    broken node's name (the same node before its kernel update)."""
    from rocmdoctor.cli.main import run

    argv = ["-r", "kernel-driver-mismatch", "--format", "json"]
    assert run(["sweep", "demo:healthy-mi300x", *argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc["hosts"][0]["host"] = "demo:dkms-wrong-kernel"
    base = tmp_path / "before.json"
    base.write_text(json.dumps(doc))
    gate = ["--baseline", str(base), "--gate", "--expect", "kernel=6.8.0-45-generic"]
    assert run(["sweep", "demo:dkms-wrong-kernel", *argv, *gate]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["exit_status"] == 2 and out["gate"]["stopped_hosts"] == ["demo:dkms-wrong-kernel"]
    assert out["gate"]["trigger"]["attribute"] == "kernel"
    assert run(["sweep", "demo:dkms-wrong-kernel", "-r", "kernel-driver-mismatch", *gate]) == 2
    table = capsys.readouterr().out
    assert "Gate: STOP (fail): 1 of 1 host(s) demo:dkms-wrong-kernel differ from the baseline" in table
    assert run(["sweep", "demo:dkms-wrong-kernel", "--expect", "kernel=1"]) == 2
    assert "--expect without --gate" in capsys.readouterr().err
    assert run(["sweep", "demo:dkms-wrong-kernel", "--gate"]) == 2
    assert "--gate needs a baseline" in capsys.readouterr().err


def test_the_gate_is_in_the_sweep_schema() -> None:
    from pathlib import Path

    import jsonschema

    from rocmdoctor.fleet.changes import compare

    now = _wave(WAVES[2][:60], broken=frozenset(NAMES[150:160]))
    doc = {**now, "changes": compare("before.json", _baseline(), now).to_dict(),
           "gate": evaluate_gate("before.json", _baseline(), now, parse_expect([f"kernel={NEW}"])).to_dict()}
    assert doc["gate"]["stopped_hosts"] == NAMES[150:160]
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "sweep-schema.json").read_text())
    jsonschema.validate(doc, schema)
