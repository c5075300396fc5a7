"""A leftover amdgpu DKMS version directory (no dkms.conf) stops DKMS for every kernel: found from
`dkms status` on the node or from the install log alone, named before the build failures it
causes, fixed by moving the directory aside (never by a shell-built path), and told apart from
a node whose amdgpu is still installed for the running kernel (a warning, not an outage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios import kernel_driver as kd
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.triage_helpers import diagnoses, evidence, steps, triage_node

RUNBOOK = kd.RUNBOOK
ERROR = ("Error! Could not locate dkms.conf file.\n"
         "File: /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source/dkms.conf does not exist.\n")


@pytest.fixture(scope="module")
def plan():
    return compile_plan(load_catalog(), [RUNBOOK])


def _bundle(tmp_path: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        path = tmp_path / "bundle" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "bundle")


def test_node_whose_dkms_stops_at_a_leftover_directory(tmp_path: Path, plan) -> None:
    _, report = triage_node(kd.dkms_stale_tree(), tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.FAIL
    assert s["dkms"].check.message.startswith("DKMS stops at /var/lib/dkms/amdgpu/6.7.0-1787201.22.04: a leftover")
    assert ("dkms status: Error! Could not locate dkms.conf file. File: "
            "/var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source/dkms.conf does not exist.") in evidence(s["dkms"])
    d = diagnoses(report)
    first = report.runbooks[0].diagnoses[0]
    assert first.diagnosis_id == "dkms-stale-tree" and first.confidence == "high"
    assert "/var/lib/dkms/amdgpu/6.7.0-1787201.22.04 has no dkms.conf" in first.cause
    assert "leaves kernel 6.8.0-45-generic without a DKMS-built amdgpu" in first.cause
    # the leftover directory is the cause: not "DKMS was not run", not "no module at all"
    assert "dkms-not-built-for-kernel" not in d and "no-module-for-kernel" not in d
    (fix,) = first.remediations
    assert fix.command == ('d=/var/lib/rocmdoctor/stale-dkms-trees; mkdir -p "$d" && mv -T -- '
                           '/var/lib/dkms/amdgpu/6.7.0-1787201.22.04 "$d"/amdgpu-6.7.0-1787201.22.04 && dkms status')
    assert fix.rollback.startswith("mv -T -- /var/lib/rocmdoctor/stale-dkms-trees/amdgpu-6.7.0-1787201.22.04 "
                                   "/var/lib/dkms/amdgpu/6.7.0-1787201.22.04")
    assert fix.sudo and fix.risk == "medium" and fix.verify_check == "kernel.amdgpu_dkms"
    assert report.exit_status == ExitStatus.CRITICAL


def test_amdgpu_still_installed_for_the_running_kernel_is_a_warning(tmp_path: Path, plan) -> None:
    """dkms 3.x reports the broken directory and goes on listing: the node works until its next build."""
    node = kd.healthy()
    ver = f"{node.driver_version}-{kd.DKMS_BUILD}"
    node.command("dkms", "status", stderr=ERROR, stdout=f"amdgpu/{ver}, {node.kernel}, x86_64: installed\n")
    _, report = triage_node(node, tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.WARN
    assert s["dkms"].check.message.startswith(f"amdgpu/{ver} is installed for {node.kernel}, but DKMS also finds")
    assert f"dkms status: amdgpu/{ver}, {node.kernel}, x86_64: installed" in evidence(s["dkms"])
    first = report.runbooks[0].diagnoses[0]
    assert first.diagnosis_id == "dkms-stale-tree"
    assert "the next kernel or driver update is the one that fails" in first.cause
    assert report.exit_status == ExitStatus.WARNING


def test_install_log_alone_names_it_before_the_build_failure(tmp_path: Path) -> None:
    """ROCm/ROCm#2933's output: the package's 'dkms failed for running kernel' is the consequence."""
    log = ("Error! Could not locate dkms.conf file.\n"
           "File: /var/lib/dkms/amdgpu/5.18.13-1577590.22.04/source/dkms.conf does not exist.\n"
           "WARNING: amdgpu dkms failed for running kernel\n")
    report = triage_target(TriageRequest(target="", bundle=_bundle(tmp_path, {"files/ticket/install.log": log}),
                                         runbooks=(RUNBOOK,), vars={"log": "/ticket/install.log"}))
    s = steps(report)
    assert s["buildconsole"].state == State.FAIL
    assert "/ticket/install.log:2: File: /var/lib/dkms/amdgpu/5.18.13-1577590.22.04" in evidence(s["buildconsole"])
    assert "/ticket/install.log:3: WARNING: amdgpu dkms failed for running kernel" in evidence(s["buildconsole"])
    assert [d.diagnosis_id for d in report.runbooks[0].diagnoses] == ["dkms-stale-tree"]
    (fix,) = report.runbooks[0].diagnoses[0].remediations
    assert "mv -T -- /var/lib/dkms/amdgpu/5.18.13-1577590.22.04 " in fix.command


def test_a_compiler_error_beside_it_is_a_second_cause(tmp_path: Path) -> None:
    log = (ERROR + "/var/lib/dkms/amdgpu/6.8.5-2009582.22.04/build/amd/amdgpu/amdgpu_drv.c:12:10: "
           "error: implicit declaration of function 'drm_foo'\n"
           "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n")
    report = triage_target(TriageRequest(target="", bundle=_bundle(tmp_path, {"files/ticket/install.log": log}),
                                         runbooks=(RUNBOOK,), vars={"log": "/ticket/install.log"}))
    assert [d.diagnosis_id for d in report.runbooks[0].diagnoses] == ["dkms-stale-tree", "dkms-build-failed"]


def test_dkms_status_without_the_running_kernel(tmp_path: Path) -> None:
    """A ticket's `dkms status` alone: the leftover directory decides it; ordinary lines need the
    running kernel and stay UNKNOWN rather than guess."""
    broken = _bundle(tmp_path / "a", {"commands/dkms status/stdout": ERROR})
    s = steps(triage_target(TriageRequest(target="", bundle=broken, runbooks=(RUNBOOK,))))
    assert s["dkms"].state == State.FAIL and "6.7.0-1787201.22.04" in s["dkms"].check.message
    ordinary = _bundle(tmp_path / "b", {"commands/dkms status/stdout":
                                        "amdgpu/6.8.5-2009582.22.04, 6.5.0-35-generic, x86_64: installed\n"})
    s = steps(triage_target(TriageRequest(target="", bundle=ordinary, runbooks=(RUNBOOK,))))
    assert s["dkms"].state == State.UNKNOWN
    assert s["dkms"].check.message.startswith("cannot compare `dkms status` with the running kernel's amdgpu")


def test_another_modules_leftover_directory_does_not_blame_amdgpu(tmp_path: Path, plan) -> None:
    """pop-os/system76-driver#336: the broken directory is another package's."""
    node = kd.healthy()
    ver = f"{node.driver_version}-{kd.DKMS_BUILD}"
    node.command("dkms", "status", stderr=("Error! Could not locate dkms.conf file.\nFile: /var/lib/dkms/system76/"
                                           "1.0.18~1743109511~24.04~8b1da53/source/dkms.conf does not exist.\n"),
                 stdout=f"amdgpu/{ver}, {node.kernel}, x86_64: installed\n")
    _, report = triage_node(node, tmp_path, plan)
    assert steps(report)["dkms"].state == State.PASS
    assert "dkms-stale-tree" not in diagnoses(report)
