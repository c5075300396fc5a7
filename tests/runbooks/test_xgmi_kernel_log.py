"""XGMI link errors as the kernel log counts them (amdgpu_ras.c's "socket: S, die: D, N [new]
correctable hardware errors detected in [total in] xgmi_wafl block"): read from a ticket's dmesg
where no sysfs is at hand, and not counted twice on a live node where sysfs has the same count."""

from __future__ import annotations

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.ras_log_counts import parse_ras_log_counts
from rocmdoctor.status import State
from rocmdoctor.testing.corpus import ROOT
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "gpu-hardware-fault"
CASE = ROOT / RB / "mi300x-axolotl-xgmi-wafl-correctable-hive-reset"
TOTAL_LINE = ("[76914.190529] amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 correctable hardware errors "
              "detected in total in xgmi_wafl block")


def test_ticket_dmesg_names_the_gpu_and_its_count() -> None:
    """ROCm/legacy-rocm-build#4021: no sysfs, no KFD topology; the log alone decides."""
    report = triage_target(TriageRequest(target="", bundle=str(CASE / "bundle"), runbooks=(RB,)))
    xgmi = steps(report)["xgmi"]
    assert xgmi.state == State.WARN
    assert xgmi.check.message == "correctable XGMI link errors on 0000:9d:00.0 (1533)"
    assert xgmi.check.evidence == ("dmesg: " + TOTAL_LINE,)
    d = diagnoses(report)
    assert d["xgmi-link-errors"].evidence[0] == "dmesg: " + TOTAL_LINE
    # the hang comes first; its cause points at the links logged in the same second
    assert next(iter(d)) == "gpu-reset-failed"
    assert "The XGMI links reported errors in the same log (correctable XGMI link errors on 0000:9d:00.0 (1533))" \
        in d["gpu-reset-failed"].cause


def test_live_node_counts_sysfs_once_and_quotes_it() -> None:
    report = triage_target(TriageRequest(target="demo:hw-xgmi-errors-logged", runbooks=(RB,)))
    xgmi = steps(report)["xgmi"]
    assert xgmi.check.message == "correctable XGMI link errors on 0000:a6:00.0 (1533)"
    assert xgmi.check.evidence == ("/sys/bus/pci/devices/0000:a6:00.0/ras/xgmi_wafl_err_count: ue: 0 ce: 1533",)


def test_without_topology_and_without_log_errors_the_check_says_unknown() -> None:
    """A bundle with neither the KFD topology nor an XGMI line in its log cannot pass the hive."""
    report = triage_target(TriageRequest(
        target="", bundle=str(ROOT / RB / "mi300x-axolotl-athub-aca-events" / "bundle"), runbooks=(RB,)))
    xgmi = steps(report)["xgmi"]
    assert xgmi.state == State.UNKNOWN
    assert xgmi.check.message.endswith("hive membership not checked; no XGMI link error in the kernel log")


def test_totals_supersede_new_lines_and_zero_totals_count_nothing() -> None:
    text = "\n".join([
        "[1.0] amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 new correctable hardware errors detected in xgmi_wafl block",
        "[1.1] amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 correctable hardware errors detected in total in xgmi_wafl block",
        "[2.0] amdgpu 0000:9d:00.0: {2}socket: 6, die: 1, 7 new correctable hardware errors detected in xgmi_wafl block",
        "[2.1] amdgpu 0000:9d:00.0: {2}socket: 6, die: 1, 1540 correctable hardware errors detected in total in xgmi_wafl block",
        "[2.2] amdgpu 0000:9d:00.0: {2}socket: 6, die: 0, 0 uncorrectable hardware errors detected in total in xgmi_wafl block",
        # before Linux 6.7: no socket/die and no total line, so the new-error lines add up
        "[3.0] amdgpu 0000:05:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block",
        "[3.1] amdgpu 0000:05:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block",
        # a count that names no GPU cannot be put on one
        "[4.0] 9 correctable hardware errors detected in total in gfx block",
    ])
    counts = parse_ras_log_counts(text)
    assert set(counts) == {"0000:9d:00.0", "0000:05:00.0"}
    x = counts["0000:9d:00.0"]["xgmi_wafl"]
    assert (x["ue"], x["ce"], x["de"]) == (0, 1540, 0)
    assert x["lines"][-1].endswith("1540 correctable hardware errors detected in total in xgmi_wafl block")
    assert counts["0000:05:00.0"]["umc"]["ue"] == 3
