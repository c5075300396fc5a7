"""Fleet diagnosis on 200-host simulated fleets: a kernel rollout that broke a third of the nodes
and a ROCm update that broke a quarter are named with the separating attribute and its counts;
`--since` after the rollback lists the recovered hosts and the fingerprint drift."""

from __future__ import annotations

import functools

from rocmdoctor.fleet.changes import compare, render_changes
from rocmdoctor.fleet.cohorts import render_cohorts
from rocmdoctor.fleet.outputs.json_doc import sweep_doc
from rocmdoctor.fleet.outputs.table import render_table
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.simnode.scenarios.kernel_driver import dkms_wrong_kernel, userspace_too_new
from rocmdoctor.testing.cohort_fleet import fleet_results

NAMES = [f"gpu{i:03d}" for i in range(1, 201)]
RUNBOOKS = ("kernel-driver-mismatch", "gpu-not-visible")


def _rocm60() -> object:
    node = healthy()
    node.driver_version, node.rocm_version = "6.3.6", "6.0.0"
    return node


@functools.lru_cache(maxsize=1)
def _kernel_rollout():
    broken = frozenset(NAMES[::3])                 # 67 of 200
    return fleet_results({"ok": healthy, "new-kernel": dkms_wrong_kernel},
                         [(n, "new-kernel" if n in broken else "ok") for n in NAMES], RUNBOOKS), broken


def test_kernel_rollout_names_the_kernel_with_counts() -> None:
    sweep, broken = _kernel_rollout()
    top = [c for c in sweep.cohorts if c.runbook == "kernel-driver-mismatch"][0]
    assert (top.diagnosis, len(top.hosts), set(top.hosts)) == ("dkms-not-built-for-kernel", 67, broken)
    f = top.findings[0]
    assert (f.attribute, f.value, f.in_group, f.group_size, f.in_healthy, f.healthy_size) == \
        ("kernel", "6.8.0-45-generic", 67, 67, 0, 133)
    assert f.text == "67/67 failing hosts have kernel 6.8.0-45-generic; 0/133 healthy do"
    assert top.conclusion.startswith("the kernel update to 6.8.0-45-generic is the likely trigger of "
                                     "kernel-driver-mismatch/dkms-not-built-for-kernel on 67 host(s)")
    table = render_table(sweep)
    assert "FAIL kernel-driver-mismatch/dkms-not-built-for-kernel: 67 host(s) gpu[001,004,007" in table
    doc = sweep_doc(sweep)
    assert doc["cohorts"][0]["findings"][0]["text"] == f.text or any(
        c["findings"] and c["findings"][0]["text"] == f.text for c in doc["cohorts"])
    assert doc["hosts"][0]["fingerprint"]["kernel"] in ("6.8.0-45-generic", "5.15.0-119-generic")


def test_rocm_update_names_the_rocm_release() -> None:
    broken = set(NAMES[::4])                       # 50 of 200
    sweep = fleet_results({"ok": _rocm60, "rocm64": userspace_too_new},
                          [(n, "rocm64" if n in broken else "ok") for n in NAMES], ("kernel-driver-mismatch",))
    top = sweep.cohorts[0]
    assert (top.diagnosis, set(top.hosts)) == ("userspace-driver-mismatch", broken)
    f = top.findings[0]
    assert (f.attribute, f.value, f.in_group, f.in_healthy, f.healthy_size) == ("rocm", "6.4.0", 50, 0, 150)
    assert "the ROCm update to 6.4.0 is the likely trigger" in top.conclusion
    assert "amdgpu" not in {x.attribute for x in top.findings}   # same driver everywhere: not a separator


def test_since_last_after_the_rollback_lists_recovered_hosts_and_drift() -> None:
    before, broken = _kernel_rollout()
    after = fleet_results({"ok": healthy}, [(n, "ok") for n in NAMES], RUNBOOKS)
    changes = compare("last", sweep_doc(before), sweep_doc(after))
    assert {c.host for c in changes.recovered} == broken and not changes.newly_failing
    assert {c.host for c in changes.drifted} == broken
    assert ("kernel", "6.8.0-45-generic", "5.15.0-119-generic") in changes.recovered[0].drift
    text = render_changes(changes)
    assert "recovered: 67 host(s) gpu[001,004,007" in text
    assert "drift: kernel 6.8.0-45-generic -> 5.15.0-119-generic on 67 host(s)" in text
    back = compare("last", sweep_doc(after), sweep_doc(before))
    assert {c.host for c in back.newly_failing} == broken
    assert render_cohorts(after.cohorts) == ""      # a healthy fleet has no cohort


def test_sweep_document_with_cohorts_and_changes_matches_the_schema() -> None:
    import json
    from pathlib import Path

    import jsonschema

    before, _ = _kernel_rollout()
    doc = sweep_doc(before)
    doc["changes"] = compare("last", doc, doc).to_dict()
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "sweep-schema.json").read_text())
    jsonschema.validate(doc, schema)


def test_cli_since_last_and_baseline_errors(tmp_path, capsys) -> None:
    """Every sweep is kept; the next `--since last` reads it; a bad baseline is one clear error."""
    import json

    from rocmdoctor.cli.main import run

    argv = ["sweep", "demo:healthy-mi300x", "demo:dkms-wrong-kernel", "-r", "kernel-driver-mismatch", "--format", "json"]
    assert run([*argv, "--since", "last"]) == 2          # nothing saved yet
    assert "--since last: no earlier sweep is saved yet" in capsys.readouterr().err
    assert run(argv) == 2
    first = json.loads(capsys.readouterr().out)
    assert first["cohorts"][0]["findings"][0]["text"] == "1/1 failing hosts have kernel 6.8.0-45-generic; 0/1 healthy do"
    assert run([*argv, "--since", "last"]) == 2
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert changes["newly_failing"] == [] and changes["recovered"] == [] and changes["drifted"] == []
    bad = tmp_path / "notasweep.json"
    bad.write_text('{"schema": "something/else"}')
    assert run([*argv, "--baseline", str(bad)]) == 2
    assert "not a rocmdoctor.sweep/1 document" in capsys.readouterr().err


def test_device_plugin_version_is_a_fingerprint_attribute() -> None:
    """A Kubernetes node's AMD device plugin version comes from the first lines of its pod log
    (verbatim from siderolabs/extensions#307); a cohort of nodes that all run it is named by it."""
    from rocmdoctor.simnode.scenarios.container_mount import k8s_not_allocatable

    names = NAMES[:30]
    broken = set(names[::3])
    sweep = fleet_results({"ok": healthy, "k8s": k8s_not_allocatable},
                          [(n, "k8s" if n in broken else "ok") for n in names], ("container-mount-failure",),
                          {"k8s_node": "mi300x-01"})
    fps = {h.host: h.report.fingerprint for h in sweep.hosts}
    assert {fps[n]["device_plugin"] for n in broken} == {"v1.25.2.7-0-g4503704"}
    assert {fps[n]["device_plugin"] for n in set(names) - broken} == {None}   # no pod log: no plugin
    top = sweep.cohorts[0]
    assert (top.diagnosis, set(top.hosts)) == ("k8s-gpus-not-allocatable", broken)
    f = next(f for f in top.findings if f.attribute == "device_plugin")
    assert f.text == "10/10 failing hosts have device_plugin v1.25.2.7-0-g4503704; 0/20 healthy do"
