"""A ticket's rocminfo alone ("Permission denied" and "<user> is not member of "render" group")
names the missing group and the fix; root refused is not a group problem; a node whose listing
and `id` are in the evidence is judged from those, not from rocminfo's sentence."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios import gpu_not_visible as gnv
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RUNBOOK = "gpu-not-visible"
NAVIN = ('ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n'
         'navin is not member of "render" group, the default DRM access group. Users must be a member of the '
         '"render" group or another DRM access group in order for ROCm applications to run successfully.\n')


def _ticket(tmp_path: Path, rocminfo: str) -> str:
    d = tmp_path / "bundle" / "commands" / "rocminfo"
    d.mkdir(parents=True)
    (d / "stdout").write_text(rocminfo)
    return str(tmp_path / "bundle")


def test_rocminfo_alone_names_user_group_and_fix(tmp_path: Path) -> None:
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, NAVIN), runbooks=(RUNBOOK,)))
    s = steps(report)
    assert s["rocminfo"].state == State.FAIL and s["access"].state == State.UNKNOWN
    d = diagnoses(report)["user-not-in-render-group"]
    assert d.cause.startswith('rocminfo could not open /dev/kfd (Permission denied) and its own check says '
                              'navin is not in the "render" group')
    assert "`id navin` would confirm it" in d.cause
    (fix,) = d.remediations
    assert fix.remediation_id == "add-user-to-drm-group"
    assert fix.command == "usermod -aG render navin" and fix.rollback == "gpasswd -d navin render"
    assert fix.verify_check == "runtime.rocminfo_errors" and fix.risk == "low"


def test_root_refused_is_not_a_group_problem(tmp_path: Path) -> None:
    """ollama/ollama#6685's container: root may open any node; its EACCES is a user namespace."""
    rocminfo = NAVIN.replace("navin is not member", "root is not member")
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, rocminfo), runbooks=(RUNBOOK,)))
    assert steps(report)["rocminfo"].state == State.FAIL
    assert "user-not-in-render-group" not in diagnoses(report)


def test_a_hostile_user_name_from_rocminfo_is_one_quoted_word(tmp_path: Path) -> None:
    rocminfo = NAVIN.replace("navin is not member", "$(reboot) is not member")
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, rocminfo), runbooks=(RUNBOOK,)))
    (fix,) = diagnoses(report)["user-not-in-render-group"].remediations
    assert fix.command == "usermod -aG render '$(reboot)'"


def test_node_evidence_decides_when_it_is_there(tmp_path: Path) -> None:
    """On a live node the listing and `id` name the groups; rocminfo's sentence adds no second fix."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    _, report = triage_node(gnv.user_not_in_render(), tmp_path, compile_plan(load_catalog(), [RUNBOOK]))
    d = diagnoses(report)["user-not-in-render-group"]
    assert steps(report)["access"].state == State.FAIL
    assert [p.remediation_id for p in d.remediations] == ["add-user-to-gpu-groups"]
    assert d.cause.startswith("bob cannot open /dev/kfd")


# ROCm 3.3's rocminfo as a user in "video" alone (ROCm/ROCm#1080): that rocminfo (before 3.6) only checks membership
# of "video" and never opens /dev/kfd itself; the runtime did not start
XEON = ("ROCk module is loaded\nxeon is member of video group\n"
        "hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n"
        "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
        "This error may also occur when the core runtime library needs to spawn threads or create internal "
        "OS-specific events.\n")


def test_video_alone_with_the_runtime_out_of_resources_is_the_render_group(tmp_path: Path) -> None:
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, XEON), runbooks=(RUNBOOK,)))
    d = diagnoses(report)["user-not-in-render-group"]
    assert report.runbooks[0].diagnoses[0].diagnosis_id == "user-not-in-render-group"
    assert 'lists xeon in the "video" group, then the runtime failed' in d.cause
    assert "rocminfo before ROCm 3.6" in d.cause and "never opened /dev/kfd itself" in d.cause
    assert "render node (/dev/dri/renderD*" in d.cause
    assert any("HSA_STATUS_ERROR_OUT_OF_RESOURCES" in e for e in d.evidence)


def test_root_in_video_with_the_runtime_out_of_resources_is_not_read_as_a_group(tmp_path: Path) -> None:
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, XEON.replace("xeon is", "root is")),
                                         runbooks=(RUNBOOK,)))
    assert "user-not-in-render-group" not in diagnoses(report)


def test_the_render_group_fix_for_a_video_only_user_is_planned_quoted(tmp_path: Path) -> None:
    report = triage_target(TriageRequest(target="", bundle=_ticket(tmp_path, XEON.replace("xeon is", "x;reboot is")),
                                         runbooks=(RUNBOOK,)))
    (fix,) = diagnoses(report)["user-not-in-render-group"].remediations
    assert fix.command == "usermod -aG render 'x;reboot'" and fix.rollback == "gpasswd -d 'x;reboot' render"
