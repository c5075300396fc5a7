"""gpu-hardware-fault on its simulated nodes: every fault names its diagnosis with the deciding
counter or kernel line; healthy MI300X and no-GPU nodes stay OK; correctable counters are judged
by how they moved since this host's last reading; the drain and the GPU reset run only with
approval (the reset refuses while processes hold GPUs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.engine.readings import ReadingStore
from rocmdoctor.engine.triage import run_triage
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.simnode.scenarios import SCENARIOS
from rocmdoctor.simnode.scenarios import hardware
from rocmdoctor.simnode.formats import kernel_lines
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "gpu-hardware-fault"


def triage(name: str, **kw):
    return triage_target(TriageRequest(target=f"demo:{name}", runbooks=(RB,), **kw))


@pytest.mark.parametrize("name", ["healthy-mi300x", "healthy-no-gpu", "busy-healthy", "hw-pcie-idle-power-saving"])
def test_healthy_nodes_stay_ok(name: str) -> None:
    report = triage(name)
    assert report.exit_status == ExitStatus.OK
    assert {s.state for s in steps(report).values()} <= {State.PASS, State.SKIPPED}
    assert diagnoses(report) == {}


@pytest.mark.parametrize("name", [c[0] for c in hardware.CASES])
def test_each_fault_is_named_with_its_evidence(name: str) -> None:
    expect = SCENARIOS[name].expect
    report = triage(name)
    s = steps(report)[expect["step"]]
    assert s.state in (State.FAIL, State.WARN), s.check.message
    d = diagnoses(report)
    assert expect["diagnosis"] in d, (list(d), s.check.message)
    made = d[expect["diagnosis"]]
    # the deciding line or counter is quoted in the diagnosis's evidence
    assert made.evidence and any(line in made.evidence for line in s.check.evidence)
    assert report.exit_status == (ExitStatus.CRITICAL if s.state == State.FAIL else ExitStatus.WARNING)


def test_uncorrectable_ecc_quotes_the_counter_and_the_kernel_line() -> None:
    report = triage("hw-ecc-uncorrectable")
    ecc = steps(report)["ecc"]
    assert ecc.check.message.startswith("uncorrectable errors on 0000:65:00.0 umc (2)")
    assert "/sys/bus/pci/devices/0000:65:00.0/ras/umc_err_count: ue: 2 ce: 5" in ecc.check.evidence
    assert any("uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!" in e for e in ecc.check.evidence)
    # the reset that began after the interrupt never logged a result: the GPU is not back
    assert steps(report)["resets"].state == State.FAIL
    drain = [p for p in diagnoses(report)["uncorrectable-ecc"].remediations if p.remediation_id == "drain-node"][0]
    assert "State=DRAIN" in drain.command and "'rocmdoctor: uncorrectable errors on 0000:65:00.0 umc (2)" in drain.command
    assert drain.risk == "medium"


def test_unrecovered_hang_offers_a_typed_reset_guarded_by_kfd_processes() -> None:
    report = triage("hw-hang-unrecovered")
    d = diagnoses(report)["gpu-reset-failed"]
    reset = [p for p in d.remediations if p.remediation_id == "reset-gpu"][0]
    assert reset.risk == "high" and reset.confirm == "typed"
    assert reset.command.endswith("amd-smi reset -G -g 0000:85:00.0")
    assert "ls /sys/class/kfd/kfd/proc" in reset.command
    assert steps(report)["resets"].check.evidence[-1].endswith("amdgpu: MES failed to respond to msg=REMOVE_QUEUE")


def test_recovered_hang_is_a_warning_without_a_reset() -> None:
    report = triage("hw-hang-recovered")
    assert report.exit_status == ExitStatus.WARNING
    d = diagnoses(report)["gpu-hang-recovered"]
    assert d.remediations == ()
    assert "GPU reset succeeded, trying to resume" in d.cause


def test_previous_boot_is_read_and_its_absence_is_said() -> None:
    s = steps(triage("hw-previous-boot-fault"))["resets"]
    assert s.state == State.WARN and s.check.evidence[0].startswith("journalctl -k -b -1: ")
    healthy = steps(triage("healthy-mi300x"))["resets"]
    assert "previous boot's log not available (no persistent journal, no rsyslog file reaching back to it)" \
        in healthy.check.message


def test_previous_boot_from_rsyslog_when_the_journal_is_volatile() -> None:
    """RHEL-family nodes keep no journal of the boot before; rsyslog's file does, cut by the crash."""
    report = triage("hw-previous-boot-in-kern-log")
    s = steps(report)["resets"]
    assert s.state == State.WARN
    assert s.check.message.startswith("the previous boot logged 3 GPU fault line(s) (0 ring timeout(s), 1 GPU reset(s))")
    assert s.check.message.endswith("/var/log/kern.log ends that boot in NUL bytes: the node went down before its log "
                                    "was written out")
    assert s.check.evidence[-1].startswith("/var/log/kern.log: Oct  1 07:52:51 ")
    assert s.check.evidence[-1].endswith("amdgpu 0000:85:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE")
    d = diagnoses(report)["previous-boot-gpu-fault"]
    assert "the kernel lines before this boot's start in /var/log/kern.log" in d.follow_up[0]
    assert d.follow_up[1].startswith("The log ends in NUL bytes")


def test_previous_boot_answers_when_this_boots_log_is_missing() -> None:
    """A ticket written after the crash holds only the crashed boot's log (ROCm/legacy-rocm-build#5997):
    the previous boot's faults are the verdict, and nothing claims the node looks healthy now."""
    case = Path(__file__).parents[1] / "incidents" / RB / "rx9060xt-previous-boot-hang-froze-desktop" / "bundle"
    report = triage_target(TriageRequest(target="", bundle=str(case), runbooks=(RB,)))
    s = steps(report)["resets"]
    assert s.state == State.WARN
    assert s.check.message.startswith("the previous boot logged 3 GPU fault line(s) (2 ring timeout(s), 1 GPU reset(s))")
    assert s.check.message.endswith("(this boot's kernel log could not be read)")
    assert s.check.evidence[-1].endswith("amdgpu: MES(1) failed to respond to msg=REMOVE_QUEUE")
    d = diagnoses(report)["previous-boot-gpu-fault"]
    assert "looks healthy now" not in d.cause
    assert "looks healthy now" in diagnoses(triage("hw-previous-boot-fault"))["previous-boot-gpu-fault"].cause


def test_xgmi_dropped_gpu_named_and_hive_size_var(tmp_path: Path) -> None:
    s = steps(triage("hw-xgmi-dropped"))["xgmi"]
    assert s.check.message.startswith("0000:a6:00.0 not in the XGMI hive its 7 peer(s) share")
    assert "KFD topology node 0000:a6:00.0: hive_id 0x0" in s.check.evidence
    short = steps(triage("healthy-mi300x", vars={"xgmi_hive_size": "16"}))["xgmi"]
    assert short.state == State.FAIL and short.check.message == "an XGMI hive has 8 member(s), 16 expected (--var xgmi_hive_size)"


def test_no_hive_at_all_fails_only_when_a_hive_is_expected(tmp_path: Path) -> None:
    """Every GPU left at hive_id 0 (a bridge not pressed home, ROCm/legacy-rocm-build#2722) reads as
    a node without XGMI unless the expected hive size is given."""
    node = SCENARIOS["healthy-mi300x"].build()
    for g in node.gpus:
        g.hive_id = 0
    root = node.materialize(tmp_path / "node")

    def run(vars: dict[str, str]):
        with sim_transport(root) as t:
            return run_triage(t, compile_plan(load_catalog(), [RB], vars))

    unset = steps(run({}))["xgmi"]
    assert unset.state == State.PASS and unset.check.message.startswith("no XGMI hive on this node (8 GPU(s)")
    report = run({"xgmi_hive_size": "8"})
    s = steps(report)["xgmi"]
    assert s.state == State.FAIL
    assert s.check.message.startswith("no GPU joined an XGMI hive (8 GPU(s), all hive_id 0; a hive of 8 expected")
    assert "KFD topology node 0000:05:00.0: hive_id 0x0" in s.check.evidence
    d = diagnoses(report)["gpu-dropped-from-xgmi-hive"]
    assert "bridge not pressed fully onto every card" in d.cause
    assert any("XGMI: Add node N, hive 0x" in f for f in d.follow_up)


def test_bad_page_limit_from_the_parameter_or_vram_size() -> None:
    over = steps(triage("hw-bad-pages-threshold"))["pages"]
    assert over.check.message.startswith("0000:c6:00.0 has 8 retired VRAM pages, at or over its limit 8 (bad_page_threshold 8)")
    pending = steps(triage("hw-bad-pages-pending"))["pages"]
    # automatic threshold: 196592 MiB / 100 MiB = 1965 pages
    assert "2 page(s) pending retirement (5 in its list, limit 1965)" in pending.check.message


def test_correctable_errors_warn_only_when_they_rise(tmp_path: Path) -> None:
    """Counts are cumulative since the driver loaded: the first reading passes, a rise warns,
    an unchanged count passes again; a replayed bundle neither reads nor writes readings."""
    node = SCENARIOS["hw-bad-pages-pending"].build()
    node.gpus[2].bad_pages = []
    root = node.materialize(tmp_path / "node")
    plan = compile_plan(load_catalog(), [RB], {})
    store = ReadingStore(tmp_path / "readings")

    def run():
        with sim_transport(root) as t:
            return {s.step_id: s for s in run_triage(t, plan, readings=store).runbooks[0].steps}

    first = run()["ecc"]
    assert first.state == State.PASS and "first reading on this host" in first.check.message
    umc = root / "sys/devices/pci0000:00/0000:46:00.0/ras/umc_err_count"
    umc.write_text("ue: 0\nce: 21\n")
    second = run()["ecc"]
    assert second.state == State.WARN
    assert second.check.message == "correctable errors rising since the last reading: 0000:46:00.0 umc 14 -> 21"
    assert second.check.evidence == ("/sys/bus/pci/devices/0000:46:00.0/ras/umc_err_count: ce: 21 (last reading 14)",)
    third = run()["ecc"]
    assert third.state == State.PASS and "none new since the last reading" in third.check.message


def test_gpu_lost_from_bus_is_not_offered_a_reset() -> None:
    """ROCm/TheRock#8232: after "device lost from bus!" the ring timeout is a consequence; a GPU reset
    cannot bring back a device that is gone, so only the drain is offered."""
    report = triage("hw-gpu-lost-from-bus")
    resets = steps(report)["resets"]
    assert resets.check.message.startswith("a GPU fell off the PCIe bus on 0000:65:00.0: device lost from bus!")
    d = diagnoses(report)
    assert list(d)[0] == "gpu-lost-from-bus" and "gpu-reset-failed" not in d
    assert [p.remediation_id for p in d["gpu-lost-from-bus"].remediations] == ["drain-node"]


def test_completer_abort_under_iommu_translation_is_named_before_the_link() -> None:
    """ROCm/legacy-rocm-build#1493: the firmware's record of a Completer Abort on a GPU, IOMMU
    translating: iommu=pt first, the slot only if the aborts go on in passthrough mode."""
    report = triage("hw-p2p-completer-abort")
    pcie = steps(report)["pcie"]
    assert pcie.check.message.startswith("1 fatal PCIe error(s) reported by the platform firmware on GPU 0000:a6:00.0 "
                                         "(Completer Abort, Transaction Layer, agent Completer ID)")
    assert any("aer_uncor_status: 0x00008000" in e for e in pcie.check.evidence)
    d = diagnoses(report)
    assert list(d)[0] == "iommu-blocks-peer-to-peer"
    assert "iommu: Default domain type: Translated" in d["iommu-blocks-peer-to-peer"].cause
    assert "pcie-errors" in d      # the link reading stays as the second explanation


def test_completer_abort_in_passthrough_mode_is_the_link(tmp_path: Path) -> None:
    root = hardware.p2p_completer_abort(kernel_lines.IOMMU_PASSTHROUGH).materialize(tmp_path / "node")
    with sim_transport(root) as transport:
        report = run_triage(transport, compile_plan(load_catalog(), [RB], {}))
    d = diagnoses(report)
    assert "iommu-blocks-peer-to-peer" not in d and list(d)[0] == "pcie-errors"


def test_pcie_replays_rising_warn(tmp_path: Path) -> None:
    node = SCENARIOS["healthy-mi300x"].build()
    root = node.materialize(tmp_path / "node")
    plan = compile_plan(load_catalog(), [RB], {})
    store = ReadingStore(tmp_path / "readings")
    with sim_transport(root) as t:
        assert run_triage(t, plan, readings=store).state == State.PASS
    (root / "sys/devices/pci0000:00/0000:c6:00.0/pcie_replay_count").write_text("412\n")
    with sim_transport(root) as t:
        report = run_triage(t, plan, readings=store)
    pcie = {s.step_id: s for s in report.runbooks[0].steps}["pcie"]
    assert pcie.state == State.WARN and "0000:c6:00.0 (replays 0 -> 412)" in pcie.check.message
    assert "pcie-errors" in {d.diagnosis_id for d in report.runbooks[0].diagnoses}


def test_pcie_link_of_a_radeon_package_is_read_above_its_own_switch() -> None:
    # the GPU function 0d:00.0 reports 16 GT/s x16 (its internal link); the package's port 0b:00.0
    # trained at 2.5 GT/s in a root port that can do 16 GT/s: a fault the GPU's own files hide
    report = triage("hw-pcie-trained-down")
    pcie = steps(report)["pcie"]
    assert pcie.state == State.WARN
    assert pcie.check.message.startswith("PCIe link trained down on 0000:0d:00.0 (its package's port 0000:0b:00.0): x16 at 2.5 GT/s PCIe")
    assert ("/sys/bus/pci/devices/0000:0b:00.0/current_link_width: 16 (max_link_width: 16); current_link_speed: 2.5 GT/s PCIe "
            "(max_link_speed: 16.0 GT/s PCIe)") in pcie.check.evidence
    assert "/sys/bus/pci/devices/0000:00:03.1/max_link_width: 16; max_link_speed: 16.0 GT/s PCIe" in pcie.check.evidence
    made = diagnoses(report)["pcie-link-degraded"]
    assert any("lspci -vv -s 0000:0b:00.0" in f for f in made.follow_up)


def test_pcie_link_at_the_slots_maximum_is_the_platforms_limit_not_a_fault() -> None:
    report = triage("hw-pcie-limited-by-slot")
    pcie = steps(report)["pcie"]
    assert pcie.state == State.WARN and report.exit_status == ExitStatus.WARNING
    assert "x16 at 8.0 GT/s PCIe, all the slot at 0000:00:03.1 can do; the card can do x16 at 16.0 GT/s PCIe" in pcie.check.message
    assert "/sys/bus/pci/devices/0000:00:03.1/max_link_speed: 8.0 GT/s PCIe; max_link_width: 16" in pcie.check.evidence
    d = diagnoses(report)
    assert "pcie-link-limited-by-slot" in d and "pcie-link-degraded" not in d
    assert not d["pcie-link-limited-by-slot"].remediations   # nothing to drain for a slot's limit


def test_pcie_boot_note_alone_names_the_limit_and_how_to_tell_its_cause(tmp_path: Path) -> None:
    # a ticket with only the kernel's boot line (Umio-Yasuno/amdgpu_top#33): no sysfs path to read
    bundle = tmp_path / "b"
    (bundle / "commands" / "dmesg").mkdir(parents=True)
    (bundle / "commands" / "dmesg" / "stdout").write_text(
        "[    0.584108] pci 0000:0b:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x16 link "
        "at 0000:00:03.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n")
    report = triage_target(TriageRequest(target="ticket", bundle=str(bundle), runbooks=(RB,)))
    pcie = steps(report)["pcie"]
    assert pcie.state == State.WARN, pcie.check.message
    assert "0000:0b:00.0 limited by 8.0 GT/s x16 at 0000:00:03.1, capable of 16.0 GT/s x16" in pcie.check.message
    made = diagnoses(report)["pcie-link-limited"]
    assert any("lspci -vv -s 0000:00:03.1" in f for f in made.follow_up)


def test_pcie_boot_notes_of_other_devices_are_not_blamed_on_the_gpu(tmp_path: Path) -> None:
    # a full boot log names AMD's functions as it enumerates them; the same note for a device
    # behind a chipset uplink (not AMD's) is left out, the GPU package's own is reported
    from rocmdoctor.simnode.formats.kernel_lines import FAULTS

    amd_port, vega = (m for m, _ in FAULTS["amd_pci_device"])
    cm4_note, chipset_note = (m for m, _ in FAULTS["pcie_bw_limited"][1:])
    bundle = tmp_path / "b"
    (bundle / "commands" / "dmesg").mkdir(parents=True)
    (bundle / "commands" / "dmesg" / "stdout").write_text(
        "".join(f"[    1.{i:06d}] {m}\n" for i, m in enumerate([amd_port, cm4_note, chipset_note])))
    report = triage_target(TriageRequest(target="ticket", bundle=str(bundle), runbooks=(RB,)))
    pcie = steps(report)["pcie"]
    assert pcie.state == State.WARN
    assert pcie.check.message.startswith("PCIe link below the card's speed: 0000:01:00.0 limited by 5.0 GT/s x1 at 0000:00:00.0")
    assert "0000:07:00.0" not in pcie.check.message and not any("0000:07:00.0" in e for e in pcie.check.evidence)


def test_drain_runs_only_with_approval_and_is_audited(tmp_path: Path) -> None:
    from rocmdoctor.testing.triage_helpers import triage_node

    node = hardware.ecc_uncorrectable()
    node.stub("scontrol", 'printf "%s\\n" "$*" >> "$R/.sim/scontrol.log"')
    plan = compile_plan(load_catalog(), [RB], {})
    root, declined = triage_node(node, tmp_path / "a", plan, fix=True, approve=False)
    assert not (root / ".sim/scontrol.log").exists()
    root, approved = triage_node(hardware.ecc_uncorrectable().stub("scontrol", 'printf "%s\\n" "$*" >> "$R/.sim/scontrol.log"'),
                                 tmp_path / "b", plan, fix=True, approve=True)
    ran = [o for o in approved.remediations if o.plan.remediation_id == "drain-node"][0]
    assert ran.result is not None and ran.result.exit_status == 0, ran.result
    logged = (root / ".sim/scontrol.log").read_text()
    assert logged.startswith("update NodeName=") and "State=DRAIN Reason=rocmdoctor: uncorrectable errors on 0000:65:00.0" in logged
    assert "drain-node" in (tmp_path / "b" / "audit.log").read_text()


def test_sweep_exports_the_counters_to_prometheus(tmp_path: Path, capsys) -> None:
    from rocmdoctor.cli.main import run
    from rocmdoctor.testing.promtext import parse

    prom = tmp_path / "hw.prom"
    code = run(["sweep", "demo:hw-ecc-uncorrectable", "demo:hw-bad-pages-pending", "demo:healthy-mi300x",
                "-r", RB, "--format", "prometheus", "-o", str(prom)])
    assert code == 2
    fams = parse(prom.read_text())
    ue = {(s["host"], s["gpu"], s["block"]): v for s, v in fams["rocmdoctor_gpu_ras_errors"]["samples"] if s["type"] == "ue"}
    assert ue[("demo:hw-ecc-uncorrectable", "0000:65:00.0", "umc")] == 2.0
    assert sum(ue.values()) == 2.0
    pages = {(s["host"], s["gpu"], s["flag"]): v for s, v in fams["rocmdoctor_gpu_retired_pages"]["samples"]}
    assert pages[("demo:hw-bad-pages-pending", "0000:46:00.0", "P")] == 2.0
    resets = {(s["host"], s["event"]): v for s, v in fams["rocmdoctor_gpu_kernel_events"]["samples"]}
    assert resets[("demo:hw-ecc-uncorrectable", "gpu_reset")] == 1.0 and resets[("demo:healthy-mi300x", "gpu_reset")] == 0.0
    width = {(s["host"], s["gpu"], s["link"]): v for s, v in fams["rocmdoctor_gpu_pcie_link_width"]["samples"]}
    assert width[("demo:healthy-mi300x", "0000:05:00.0", "current")] == 16.0
    speed = {(s["host"], s["gpu"], s["link"]): v for s, v in fams["rocmdoctor_gpu_pcie_link_speed_gts"]["samples"]}
    assert speed[("demo:healthy-mi300x", "0000:05:00.0", "current")] == 32.0


def test_prometheus_link_of_a_radeon_package_is_its_slot_link(tmp_path: Path) -> None:
    # the GPU function of the RX 6800 says 16 GT/s (internal); the metric is the slot's 8 GT/s
    from rocmdoctor.cli.main import run
    from rocmdoctor.testing.promtext import parse

    prom = tmp_path / "hw.prom"
    run(["sweep", "demo:hw-pcie-limited-by-slot", "-r", RB, "--format", "prometheus", "-o", str(prom)])
    speed = {(s["gpu"], s["link"]): v for s, v in parse(prom.read_text())["rocmdoctor_gpu_pcie_link_speed_gts"]["samples"]}
    assert speed == {("0000:0d:00.0", "current"): 8.0, ("0000:0d:00.0", "max"): 16.0}


def test_failed_resume_from_runtime_power_down_offers_a_guarded_driver_reload() -> None:
    """ROCm/legacy-rocm-build#4226: an idle GPU that did not leave BACO is gone until the driver is
    reloaded; the MES timeouts after it are not a hang of their own."""
    report = triage("hw-gpu-resume-failed")
    resets = steps(report)["resets"]
    assert resets.check.message.startswith("a GPU did not come back from a power-down on 0000:0d:00.0: "
                                           "Failed to exit BACO state!")
    first, *rest = resets.check.evidence
    assert first.endswith("] amdgpu 0000:0d:00.0: amdgpu: Failed to exit BACO state!")
    # the security processor's refusal after "PSP is resuming..." is the same failed re-init, quoted too
    assert any(e.endswith("] amdgpu 0000:0d:00.0: amdgpu: PSP resume failed") for e in rest)
    assert any(e.endswith("] amdgpu 0000:0d:00.0: amdgpu: amdgpu_device_ip_resume failed (-62).") for e in rest)
    d = diagnoses(report)
    assert list(d) == ["gpu-resume-failed"]
    plans = {p.remediation_id: p for p in d["gpu-resume-failed"].remediations}
    assert list(plans) == ["drain-node", "reload-driver"]
    reload = plans["reload-driver"]
    assert reload.risk == "high" and reload.confirm == "typed"
    assert "ls /sys/class/kfd/kfd/proc" in reload.command and reload.command.endswith("modprobe -r amdgpu && modprobe amdgpu")
    assert any("options amdgpu runpm=0" in f for f in d["gpu-resume-failed"].follow_up)


def test_failed_resume_is_what_gpu_not_visible_names_for_the_failing_rocminfo() -> None:
    report = triage_target(TriageRequest(target="demo:hw-gpu-resume-failed", runbooks=("gpu-not-visible",)))
    d = diagnoses(report)
    assert list(d)[0] == "gpu-resume-failed"
    assert "Failed to exit BACO state!" in d["gpu-resume-failed"].cause


def test_baco_exit_failing_inside_a_failed_reset_is_the_reset(tmp_path: Path) -> None:
    """A BACO reset enters and leaves BACO: its exit failing is that reset's failure."""
    node = hardware.healthy()
    gpu = node.gpus[1].bdf
    node.add_kernel_log([kernel_lines.with_bdf(m, gpu) for m in (
        kernel_lines.sequence("hang_unrecovered")[2],                      # GPU reset begin!
        kernel_lines.sequence("resume_failed")[1],                         # Failed to exit BACO state!
        "amdgpu 0000:c5:00.0: amdgpu: GPU reset(1) failed")])
    root = node.materialize(tmp_path / "node")
    with sim_transport(root) as transport:
        report = run_triage(transport, compile_plan(load_catalog(), [RB], {}))
    d = diagnoses(report)
    assert list(d)[0] == "gpu-reset-failed" and "gpu-resume-failed" not in d


def test_a_reset_that_vfio_pci_began_is_the_passthrough_reset(tmp_path: Path) -> None:
    """A Proxmox host's kernel messages (gnif/vendor-reset#81, verbatim; the simulated node prints them as dmesg
    does): vendor-reset's BACO reset of a GPU bound to vfio-pci began and no result followed; that is the hand-over
    to a VM failing, not amdgpu's own recovery."""
    node = hardware.healthy()
    node.add_kernel_log([
        "vfio-pci 0000:0b:00.0: AMD_VEGA10: performing reset",
        "vfio-pci 0000:0b:00.0: SMU error 0x0",
        "vfio-pci 0000:0b:00.0: AMD_VEGA10: could not get enabled SMU features, trying BACO reset anyway [ret -110]",
        "vfio-pci 0000:0b:00.0: AMD_VEGA10: entering BACO"])
    root = node.materialize(tmp_path / "node")
    with sim_transport(root) as transport:
        report = run_triage(transport, compile_plan(load_catalog(), [RB], {}))
    d = diagnoses(report)
    assert list(d) == ["passthrough-gpu-reset-failed"]
    assert "bound to vfio-pci" in d["passthrough-gpu-reset-failed"].cause
    assert any("trying BACO reset anyway" in e for e in d["passthrough-gpu-reset-failed"].evidence)


def _firmware_step(node):
    import tempfile

    from rocmdoctor.testing.triage_helpers import triage_node

    with tempfile.TemporaryDirectory() as d:
        report = triage_node(node, Path(d), compile_plan(load_catalog(), [RB]))[1]
    return steps(report)["firmware"], diagnoses(report)


def test_known_bad_mes_firmware_only_on_the_targets_it_faults_on() -> None:
    step, d = _firmware_step(hardware.mes_firmware_known_bad())
    assert step.state == State.FAIL and step.check.message.startswith(
        "0000:c5:00.0 (gfx1151) runs MES firmware 0x00000083, a release that was rolled back")
    assert "/sys/bus/pci/drivers/amdgpu/0000:c5:00.0/fw_version/mes_fw_version: MES firmware version 0x00000083 " \
           "(KFD target gfx1151)" in step.check.evidence
    assert any("Faulty UTCL2 client ID: CPF (0x4)" in e for e in step.check.evidence)
    assert "known-bad-gpu-firmware" in d and "drain-node" in [r.remediation_id for r in d["known-bad-gpu-firmware"].remediations]
    # the release the threads rolled back to
    step, d = _firmware_step(hardware.mes_firmware_known_bad("0x00000080"))
    assert step.state == State.PASS and step.check.message.startswith("MES firmware 0x00000080 on 1 GPU(s)")
    assert "known-bad-gpu-firmware" not in d
    # a GPU without MES prints 0x00000000: nothing to judge
    step, _ = _firmware_step(hardware.mes_firmware_known_bad("0x00000000"))
    assert step.state == State.SKIPPED and step.skipped_because.startswith("no GPU reports an MES firmware")
    # the same number on a GPU the release was not for (an RX 7900 XTX, gfx1100) is not judged bad
    node = hardware.mes_firmware_known_bad()
    node.gpus[0].gfx_target = "gfx1100"
    assert _firmware_step(node)[0].state == State.PASS


def test_known_bad_mes_firmware_without_a_target_needs_the_fault_to_fail(tmp_path) -> None:
    import shutil

    case = Path(__file__).resolve().parents[1] / "incidents" / RB / "strix-halo-rocm72-dkms-firmware-mes-0x83-page-fault"
    bundle = tmp_path / "bundle"
    shutil.copytree(case / "bundle", bundle)
    # debugfs' `grep MES` and the CPF page fault, no KFD topology: named from the fault
    step = steps(triage_target(TriageRequest(target="bundle", runbooks=(RB,), bundle=str(bundle))))["firmware"]
    assert step.state == State.FAIL and "the GPU's target was not read; the kernel log's CPF page faults" in step.check.message
    assert step.check.evidence[0] == "/sys/kernel/debug/dri/128/amdgpu_firmware_info: MES firmware version 0x00000083"
    # without the fault the same reading is only a warning
    shutil.rmtree(bundle / "commands" / "dmesg")
    step = steps(triage_target(TriageRequest(target="bundle", runbooks=(RB,), bundle=str(bundle))))["firmware"]
    assert step.state == State.WARN and step.check.message.endswith("so it is unconfirmed")


def test_a_job_hang_is_pinned_to_the_gpu_by_its_kfd_node() -> None:
    report = triage("hw-gpu-hung-in-job")
    job = steps(report)["job"]
    bdf = hardware.gpu_hung_in_job().gpus[4 - 2].bdf   # KFD numbers the two CPU nodes first
    assert job.state == State.WARN and job.check.message.startswith(f"the job's GPU hung: KFD node 4 = {bdf} (4 line(s)")
    assert f"/sys/class/kfd/kfd/topology/nodes/4/properties: location_id -> {bdf}" in job.check.evidence
    d = diagnoses(report)["gpu-hung-in-job"]
    # this boot's log is clean and no journal of the boot before: the hang predates the reboot
    assert "the hang happened before the node's last reboot, and the boot it hung in left no journal" in d.cause
    assert "/scratch/job.log:1: HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang" in d.evidence


def test_the_kernel_logs_hang_diagnosis_comes_first_and_quotes_the_jobs_line() -> None:
    case = Path(__file__).parents[1] / "incidents" / RB / "gfx1151-gptq-mes-suspend-timeout-mode2-recovered"
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=(RB,),
                                         vars={"log": "/ticket/job.log"}))
    made = [d.diagnosis_id for d in report.runbooks[0].diagnoses]
    assert made[0] == "gpu-hang-recovered" and "gpu-hung-in-job" not in made
    first = report.runbooks[0].diagnoses[0]
    assert "/ticket/job.log:1: HW Exception by GPU node-1 (Agent handle: 0x563e71f098b0) reason :GPU Hang" in first.evidence
    assert report.exit_status == ExitStatus.WARNING
