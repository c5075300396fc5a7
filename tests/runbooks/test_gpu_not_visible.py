"""gpu-not-visible end to end on simulated nodes: each root cause is found by its decisive
step with the node's own line as evidence and named by its diagnosis; healthy and GPU-less
nodes stay quiet; unknowns say why; fixes run only when approved, change the node and are
verified; a hostile user name reaches the shell as one quoted word."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.simnode.scenarios import gpu_not_visible as gnv
from rocmdoctor.simnode.nodes import healthy_no_gpu
from rocmdoctor.simnode.node import SimNode, sim_transport
from rocmdoctor.testing.triage_helpers import diagnoses, evidence, steps, triage_node
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.engine.triage import TriageReport, run_triage

RUNBOOK = gnv.RUNBOOK


def triage(node: SimNode, tmp_path: Path, vars: dict | None = None, *, fix: bool = False,
           approve: bool = True, dry_run: bool = False) -> tuple[Path, TriageReport]:
    plan = compile_plan(load_catalog(), [RUNBOOK], vars or {})
    return triage_node(node, tmp_path, plan, fix=fix, approve=approve, dry_run=dry_run)



# (scenario, decisive step message fragment, evidence fragment: what the node printed)
EXPECT = {
    "amdgpu-not-loaded": ("amdgpu is not loaded", "cat /proc/modules: no line starting with 'amdgpu '"),
    "amdgpu-blacklisted": ("`blacklist amdgpu` in modprobe.d", "/etc/modprobe.d/blacklist-gpu.conf:2: blacklist amdgpu"),
    "nomodeset": ("nomodeset on the kernel command line", "ro iommu=pt amd_iommu=on nomodeset quiet"),
    "gpu-probe-failure": ("amdgpu failed to initialise 0000:65:00.0",
                          "amdgpu 0000:65:00.0: amdgpu: Fatal error during GPU init"),
    "ip-discovery-unreadable": ("after it could not read the GPU's IP discovery table",
                                "amdgpu 0000:65:00.0: amdgpu: get invalid ip discovery binary signature"),
    "gpu-boot-firmware-failed": ("0000:65:00.0 reported a failed boot of its own firmware (4 line(s)",
                                 "amdgpu 0000:65:00.0: amdgpu: socket: 2, aid: 3, fw_status: 0xe6985b2d, "
                                 "firmware load failed at boot time"),
    "gpu-post-failed": ("after the GPU's VBIOS did not complete its post",
                        "amdgpu 0000:65:00.0: amdgpu: gpu post error!"),
    "vf-init-failed": ("failed to initialise 0000:65:00.0 (an SR-IOV virtual function)",
                       "[drm] add ip block number 5 <amdgpu_vkms>"),
    "gpu-missing-from-kfd": ("missing from the KFD topology: 0000:e5:00.0",
                             "renderD135: no KFD node with drm_render_minor 135"),
    "vf-mailbox-stuck": ("amdgpu is stuck initialising 0000:e5:00.0: it drives the GPU as an SR-IOV virtual function",
                         "amdgpu 0000:e5:00.0: amdgpu: trn=2 ACK should not assert! wait again !"),
    "smi-missing-gpu": ("amd-smi list shows 7 of the 8 AMD GPU(s) on the PCI bus: missing 0000:a6:00.0",
                        "on the PCI bus, not in amd-smi: 0000:a6:00.0"),
    "kfd-node-missing": ("/dev/kfd is missing although the kernel has KFD", "stat /dev/kfd: No such file or directory"),
    "user-not-in-render": ("bob cannot open /dev/kfd and 8 render node(s)", "stat /dev/kfd: mode 660 uid 0 gid 109"),
    "kfd-root-only": ("/dev/kfd has mode 600 (owner uid 0, group root): no group or other user may open it",
                      "stat /dev/kfd: mode 600 owner uid 0 group root"),
    "visible-devices-empty": ('ROCR_VISIBLE_DEVICES="" hides every GPU', 'env: ROCR_VISIBLE_DEVICES=""'),
    "gpu-fell-off-bus": ("7 AMD GPU(s) on the PCI bus, 8 expected", "0000:a6:00.0, 0000:e5:00.0"),
}


@pytest.mark.parametrize("case", gnv.CASES, ids=[c[0] for c in gnv.CASES])
def test_each_root_cause(case, tmp_path: Path) -> None:
    name, _desc, build, step, diag, vars = case
    _, report = triage(build(), tmp_path, vars)
    s = steps(report)[step]
    message, line = EXPECT[name]
    assert s.state == State.FAIL, s.check.message if s.check else s.skipped_because
    assert message in s.check.message
    assert line in evidence(s)
    found = diagnoses(report)
    assert diag in found, sorted(found)
    assert len(found) == 1, f"one root cause expected, got {sorted(found)}"
    assert report.exit_status == ExitStatus.CRITICAL


def test_every_scenario_is_tested() -> None:
    assert {c[0] for c in gnv.CASES} == set(EXPECT)


def test_probe_failure_names_the_bdf_everywhere(tmp_path: Path) -> None:
    _, report = triage(gnv.probe_failure(), tmp_path)
    s = steps(report)
    assert s["bound"].check.message == "1 of 8 AMD GPU(s) not bound to amdgpu: 0000:65:00.0"
    assert "amdgpu: probe of 0000:65:00.0 failed with error -12" in evidence(s["kernel_log"])
    assert "missing 0000:65:00.0" in s["runtime"].check.message
    d = diagnoses(report)["probe-failure"]
    assert "0000:65:00.0" in d.cause and d.confidence == "high" and not d.remediations


def test_ip_discovery_tells_one_gpu_from_every_gpu(tmp_path: Path) -> None:
    """One GPU without a readable table: its firmware; no boot-failure line, so not called hardware."""
    _, report = triage(gnv.ip_discovery_unreadable(), tmp_path)
    d = diagnoses(report)["ip-discovery-unreadable"]
    assert "of 0000:65:00.0 (amdgpu 0000:65:00.0: amdgpu: get invalid ip discovery binary signature)" in d.cause
    assert "With one GPU failing, the firmware of that GPU left no valid table" in d.cause
    assert "points at the driver" not in d.cause
    assert "probe-failure" not in diagnoses(report)     # the generic reading is not repeated


def test_boot_failure_names_the_gpu_and_its_first_line(tmp_path: Path) -> None:
    _, report = triage(gnv.boot_firmware_failed(), tmp_path)
    d = diagnoses(report)["gpu-boot-firmware-failed"]
    assert d.cause.startswith("0000:65:00.0 reported that its own boot failed at power-on (4 line(s), first: "
                              "amdgpu 0000:65:00.0: amdgpu: socket: 2, aid: 0, fw_status: 0xe6985b2d, "
                              "firmware load failed at boot time)")
    assert "other GPU(s)" not in d.cause and d.confidence == "high"


def test_post_failure_is_a_card_fault_not_a_driver_mismatch(tmp_path: Path) -> None:
    """AMD's reading of "atombios stuck ... gpu post error!" (ROCm/legacy-rocm-build#4533, #1320)."""
    _, report = triage(gnv.gpu_post_failed(), tmp_path)
    d = diagnoses(report)["gpu-post-failed"]
    assert d.cause.startswith("amdgpu could not post 0000:65:00.0: the GPU's VBIOS init tables did not run to their end "
                              "([drm:atom_op_jump [amdgpu]] *ERROR* atombios stuck in loop for more than 20secs aborting)")
    assert "Not a driver or kernel mismatch" in d.cause and "isolate before replacing" not in d.cause
    assert "probe-failure" not in diagnoses(report)


def test_vf_failure_is_not_called_a_driver_mismatch(tmp_path: Path) -> None:
    """A VF's PSP init failing is the host's and guest driver's business (ROCm/legacy-rocm-build#2995)."""
    _, report = triage(gnv.vf_psp_init_failed(), tmp_path)
    d = diagnoses(report)["vf-needs-platform-driver"]
    assert d.cause.startswith("0000:65:00.0 is an SR-IOV virtual function (the driver added the virtual display "
                              "block a VF gets: [drm] add ip block number 5 <amdgpu_vkms>)")
    assert "hw_init of IP block <psp> failed -22" in d.cause and d.confidence == "medium"
    assert "probe-failure" not in diagnoses(report)


def test_virtual_display_asked_for_is_not_a_vf(tmp_path: Path) -> None:
    """amdgpu.virtual_display= adds the same block; the driver then says so first (amdgpu_device.c)."""
    node = gnv.vf_psp_init_failed()
    node.add_kernel_log(["[drm] virtual display string:0000:65:00.0,1, amdgpu:virtual_display:1, num_crtc:1"],
                        at=9.8)
    _, report = triage(node, tmp_path)
    assert "probe-failure" in diagnoses(report) and "vf-needs-platform-driver" not in diagnoses(report)


def test_nomodeset_cites_the_kernel_warning_and_offers_no_modprobe(tmp_path: Path) -> None:
    _, report = triage(gnv.nomodeset(), tmp_path)
    d = diagnoses(report)["boot-nomodeset"]
    assert "Booted with the nomodeset parameter" in d.cause
    assert d.remediations == ()     # modprobe would fail with EINVAL; the fix needs a reboot


def test_partial_mask_is_a_warning(tmp_path: Path) -> None:
    node = gnv.healthy()
    node.env["ROCR_VISIBLE_DEVICES"] = "0,1"
    node.env["HIP_VISIBLE_DEVICES"] = "1,5"     # 5 is past the 2 ROCr left: enumeration stops there
    _, report = triage(node, tmp_path)
    s = steps(report)["env"]
    assert s.state == State.WARN
    assert s.check.message == ("visibility variables leave 1 of 8 GPU(s) visible: "
                               "ROCR_VISIBLE_DEVICES=0,1 HIP_VISIBLE_DEVICES=1,5")
    assert s.check.outputs["visible"] == 1


@pytest.mark.parametrize("value", ["-1", "8", "", "-1,0"])
def test_masks_that_hide_everything(value: str, tmp_path: Path) -> None:
    node = gnv.healthy()
    node.env["CUDA_VISIBLE_DEVICES"] = value
    _, report = triage(node, tmp_path)
    s = steps(report)["env"]
    assert s.state == State.FAIL
    assert f'CUDA_VISIBLE_DEVICES="{value}" hides every GPU' in s.check.message


# --- quiet on healthy nodes ------------------------------------------------------------------

def test_healthy_mi300x_is_quiet(tmp_path: Path) -> None:
    _, report = triage(gnv.healthy(), tmp_path, {"expect_gpus": "8"})
    # the kernel's build configuration is only read when KFD is absent; not a Slurm node (no gres.conf);
    # no job log given (--log)
    # the simulated node has no package database (no dpkg, no rpm): the package check has nothing to compare;
    # nor OpenCL ICD files (a HIP-only node registers no OpenCL runtime); amdgpu is loaded, so the OS list is not read
    assert all(steps(report)[k].state == State.SKIPPED for k in ("kfd_build", "slurm", "job_gpus", "logenv", "logoverride", "logllvm", "torchprobe", "torchbuild", "hipsoname", "torchtargets", "therocktargets", "buildtargets", "packages", "openclicds", "logopenclicds", "support"))
    bad = {k: v.check.message for k, v in steps(report).items()
           if v.state != State.PASS and k not in ("kfd_build", "slurm", "job_gpus", "job_code_igpu", "logenv", "logoverride", "logllvm", "torchprobe", "torchbuild", "hipsoname", "torchtargets", "therocktargets", "buildtargets", "packages", "openclicds", "logopenclicds", "support")}
    assert bad == {}
    assert diagnoses(report) == {}
    assert report.exit_status == ExitStatus.OK
    assert steps(report)["runtime"].check.message == (
        "the ROCm runtime sees all 8 GPU(s): amd-smi list 8, rocminfo 8 GPU agent(s)")


def test_no_gpu_node_is_quiet(tmp_path: Path) -> None:
    _, report = triage(healthy_no_gpu(), tmp_path)
    s = steps(report)
    assert s["gpus"].state == State.PASS
    assert s["platform"].state == State.PASS and s["platform"].check.message.startswith("not WSL")
    # a bare-metal node without a GPU is no virtual machine missing its GPU
    assert s["vm"].state == State.PASS and not s["vm"].check.outputs["vm"]
    assert all(v.state == State.SKIPPED for k, v in s.items() if k not in ("gpus", "platform", "vm"))
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}


def test_user_in_render_group_passes(tmp_path: Path) -> None:
    _, report = triage(gnv.healthy(), tmp_path, {"user": "alice"})
    s = steps(report)["access"]
    assert s.state == State.PASS
    assert s.check.message == "alice can open /dev/kfd and 8 render node(s) (groups alice, video, render)"


# --- unknown: evidence that could not be collected -------------------------------------------

def test_no_runtime_tools_is_unknown(tmp_path: Path) -> None:
    node = gnv.healthy().remove_tool("amd-smi").remove_tool("rocminfo")
    _, report = triage(node, tmp_path)
    s = steps(report)["runtime"]
    assert s.state == State.UNKNOWN
    assert "none of amd-smi, rocminfo, clinfo (with ROCm's OpenCL platform) is installed" in s.check.message
    assert report.exit_status == ExitStatus.UNKNOWN


def test_amd_smi_timeout_is_unknown_not_pass(tmp_path: Path) -> None:
    node = gnv.healthy().stub("amd-smi", "sleep 40\n")
    plan = compile_plan(load_catalog(), [RUNBOOK])
    # shorten the gather timeout so the test stays fast: same check, 1 s budget
    import dataclasses
    check = plan.checks["visibility.runtime_gpus"]
    gathers = tuple(dataclasses.replace(g, timeout=1.0) if g.name in ("smi", "smi_tb") else g for g in check.gathers)
    plan.checks["visibility.runtime_gpus"] = dataclasses.replace(check, gathers=gathers)
    from rocmdoctor.engine.compiler import check_gathers
    plan = dataclasses.replace(plan, gathers=tuple(check_gathers(plan.checks.values(), plan.vars)))
    root = node.materialize(tmp_path / "node")
    with sim_transport(root, audit=AuditLog(tmp_path / "audit.log")) as t:
        report = run_triage(t, plan)
    s = steps(report)["runtime"]
    assert s.state == State.UNKNOWN
    assert "amd-smi list --json: timed out after 1s" in s.check.message


def test_unreadable_kernel_log_is_unknown(tmp_path: Path) -> None:
    # dmesg_restrict=1 for a non-root user (util-linux wording) and no journal access
    node = gnv.healthy()
    node.command("dmesg", "", stdout="", rc=1, stderr="dmesg: read kernel buffer failed: Operation not permitted\n")
    node.remove_tool("journalctl")
    _, report = triage(node, tmp_path)
    s = steps(report)["kernel_log"]
    assert s.state == State.UNKNOWN
    assert "dmesg: read kernel buffer failed: Operation not permitted" in evidence(s)


# --- remediation ---------------------------------------------------------------------------

def test_fix_loads_amdgpu_and_verifies(tmp_path: Path) -> None:
    root, report = triage(gnv.amdgpu_not_loaded(), tmp_path, fix=True)
    (outcome,) = report.remediations
    assert outcome.plan.command == "modprobe amdgpu" and outcome.plan.risk == "medium" and outcome.plan.sudo
    assert outcome.plan.rollback == "modprobe -r amdgpu"
    assert outcome.result.exit_status == 0
    assert outcome.verify.check_id == "amdgpu.module_loaded" and outcome.verify.state == State.PASS
    assert outcome.fixed
    assert "amdgpu " in (root / "proc/modules").read_text()
    assert "modprobe amdgpu" in (tmp_path / "audit.log").read_text()


@pytest.mark.parametrize("mode", ["declined", "dry-run"])
def test_no_approval_or_dry_run_changes_nothing(mode: str, tmp_path: Path) -> None:
    root, report = triage(gnv.amdgpu_not_loaded(), tmp_path, fix=True, approve=False, dry_run=mode == "dry-run")
    (outcome,) = report.remediations
    assert not outcome.decision.approved and outcome.verify is None
    assert "amdgpu " not in (root / "proc/modules").read_text()
    assert not (root / "sys/module/amdgpu").exists()


def test_fix_recreates_dev_kfd(tmp_path: Path) -> None:
    root, report = triage(gnv.kfd_node_missing(), tmp_path, fix=True)
    (outcome,) = report.remediations
    assert outcome.plan.risk == "low" and outcome.verify.state == State.PASS
    assert (root / "dev/kfd").exists()
    assert oct((root / "dev/kfd").stat().st_mode & 0o777) == "0o660"


def test_fix_adds_user_to_render(tmp_path: Path) -> None:
    root, report = triage(gnv.user_not_in_render(), tmp_path, fix=True)
    (outcome,) = report.remediations
    assert outcome.plan.command == "usermod -aG render bob"
    assert outcome.plan.rollback == "gpasswd -d bob render"
    assert outcome.verify.state == State.PASS, outcome.verify.message
    assert "render:x:109:alice,bob\n" in (root / "etc/group").read_text()


def test_hostile_user_name_is_one_quoted_word(tmp_path: Path) -> None:
    """Issue 2: a user name from the node flows into `usermod`; --fix runs it; nothing else runs."""
    marker = Path(f"/tmp/pwned-{uuid.uuid4().hex}")
    hostile = f";touch${{IFS}}{marker};"
    node = gnv.healthy().add_user(hostile, 1004, ())
    node.login_user = hostile
    root, report = triage(node, tmp_path, fix=True)
    d = diagnoses(report)["user-not-in-render-group"]
    (plan,) = d.remediations
    assert plan.command == f"usermod -aG render '{hostile}'"
    (outcome,) = report.remediations
    assert outcome.result.exit_status == 0 and outcome.verify.state == State.PASS
    assert not marker.exists()
    assert f"usermod -aG render '{hostile}'" in (tmp_path / "audit.log").read_text()
    assert f"render:x:109:alice,{hostile}\n" in (root / "etc/group").read_text()


def test_hostile_var_user_is_quoted(tmp_path: Path) -> None:
    """The same through --var user=...: `$(touch ...)` is passed to id and usermod literally."""
    marker = Path(f"/tmp/pwned-{uuid.uuid4().hex}")
    hostile = f"$(touch {marker})"
    node = gnv.healthy()
    root, report = triage(node, tmp_path, {"user": hostile}, fix=True)
    s = steps(report)["access"]
    assert s.state == State.UNKNOWN          # no such user: `id` says so, nothing is guessed
    assert "no such user" in s.check.message
    assert not marker.exists()


# --- clinfo: ROCm's OpenCL platform as a third view of the runtime ------------------------------

CLINFO = Path(__file__).resolve().parents[1] / "fixtures/outputs/clinfo"


def test_clinfo_rocm_platform_without_devices_fails_the_runtime_step(tmp_path: Path) -> None:
    # the real Gentoo paste (ROCm/legacy-rocm-build#1643): AMD APP platform, Number of devices 0
    node = (gnv.healthy().remove_tool("amd-smi").remove_tool("rocminfo")
            .command("clinfo", [], (CLINFO / "gentoo-no-kfd-zero-devices.txt").read_text()))
    _, report = triage(node, tmp_path)
    s = steps(report)["runtime"]
    assert s.state == State.FAIL
    assert "ROCm's OpenCL platform (AMD Accelerated Parallel Processing) lists 0 GPU device(s), 8 AMD GPU(s)" in s.check.message
    assert "clinfo: AMD Accelerated Parallel Processing: Number of devices 0" in s.check.evidence


def test_clinfo_mesa_platform_devices_do_not_count(tmp_path: Path) -> None:
    # Radeon VII sample: Clover (Mesa) 0 devices, AMD APP 1 gfx906; only the latter is ROCm
    node = (gnv.healthy().remove_tool("amd-smi").remove_tool("rocminfo")
            .command("clinfo", [], (CLINFO / "radeon-vii-clover-and-amdapp.txt").read_text()))
    _, report = triage(node, tmp_path)
    s = steps(report)["runtime"]
    assert s.state == State.FAIL and "lists 1 GPU device(s), 8 AMD GPU(s)" in s.check.message


def test_clinfo_with_only_mesa_platforms_cannot_vouch_for_rocm(tmp_path: Path) -> None:
    text = (CLINFO / "radeon-vii-clover-and-amdapp.txt").read_text()
    mesa_only = text.replace("AMD Accelerated Parallel Processing", "rusticl")
    node = (gnv.healthy().remove_tool("amd-smi").remove_tool("rocminfo").command("clinfo", [], mesa_only))
    _, report = triage(node, tmp_path)
    s = steps(report)["runtime"]
    assert s.state == State.UNKNOWN and "cannot ask the ROCm runtime" in s.check.message


def test_kernel_config_is_read_from_proc_config_gz(tmp_path: Path) -> None:
    """No /boot/config-<release> (Talos, Flatcar): the compressed /proc/config.gz is read instead."""
    import gzip

    from rocmdoctor.simnode.scenarios.real_causes import KCONFIG_WITHOUT_KFD, kernel_without_kfd

    node = kernel_without_kfd().remove("/boot/config-6.12.74-flatcar")
    root = node.materialize(tmp_path / "node")
    (root / "proc" / "config.gz").write_bytes(gzip.compress(KCONFIG_WITHOUT_KFD.encode()))
    plan = compile_plan(load_catalog(), [RUNBOOK])
    with sim_transport(root, audit=AuditLog(tmp_path / "audit.log")) as transport:
        report = run_triage(transport, plan)
    s = steps(report)["kfd_build"]
    assert s.state == State.FAIL
    assert s.check.evidence == ("/proc/config.gz: # CONFIG_HSA_AMD is not set", "/proc/config.gz: CONFIG_DRM_AMDGPU=m")
    assert list(diagnoses(report)) == ["kernel-without-kfd"]


def test_a_late_mailbox_line_on_an_initialised_vf_is_not_a_stuck_init(tmp_path: Path) -> None:
    """A VF guest whose GPU finished init ('[drm] Initialized amdgpu ... for BDF') may still log a
    mailbox complaint later: only a GPU that never initialised is called stuck."""
    node = gnv.healthy()
    bdf = node.gpus[0].bdf
    node.add_kernel_log([f"amdgpu {bdf}: amdgpu: trn=2 ACK should not assert! wait again !"], at=4000.0)
    _, report = triage(node, tmp_path)
    assert steps(report)["kernel_log"].state == State.PASS
    assert "init-stuck-in-vf-mailbox" not in diagnoses(report)


def test_kfd_udev_rule_names_render_or_video_and_never_overwrites(tmp_path: Path) -> None:
    """The rule gives /dev/kfd the render group where /etc/group has it, else video; an
    existing 70-kfd.rules stops the command instead of being replaced."""
    _, report = triage(gnv.kfd_root_only(), tmp_path)
    plan = [p for p in diagnoses(report)["kfd-node-root-only"].remediations if p.remediation_id == "add-kfd-udev-rule"][0]
    assert "'KERNEL==\"kfd\", GROUP=\"render\", MODE=\"0660\"'" in plan.command
    assert 'if [ -e "$f" ]; then echo' in plan.command and plan.command.index("exit 1") < plan.command.index("printf")
    assert plan.risk == "low" and plan.verify_check == "devices.access"
    # an older distribution without a render group (bundle: the ticket's listing, its /etc/group)
    bundle = tmp_path / "bundle"
    (bundle / "listings").mkdir(parents=True)
    (bundle / "listings" / "kfd").write_text("$ ls -la /dev | grep kfd\n"
                                             "crw-------   1 root    root    234,   0 Mai 21 05:13 kfd\n")
    (bundle / "files" / "etc").mkdir(parents=True)
    (bundle / "files" / "etc" / "group").write_text("root:x:0:\nvideo:x:44:alice\n")
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=(RUNBOOK,)))
    plan = diagnoses(report)["kfd-node-root-only"].remediations[0]
    assert 'GROUP="video"' in plan.command


def test_module_not_loaded_without_the_command_line_names_nomodeset_first(tmp_path: Path) -> None:
    """With /proc/cmdline unread the cause must not claim nothing keeps amdgpu out: nomodeset in GRUB
    was the cause of ROCm/legacy-rocm-build#4098, whose evidence never showed the command line."""
    node = gnv.amdgpu_not_loaded().remove("/proc/cmdline")
    # and no kernel log to stand in for it (kernel.dmesg_restrict, no journal access)
    node.command("dmesg", "", rc=1, stderr="dmesg: read kernel buffer failed: Operation not permitted\n")
    node.command("journalctl", "-k -b --no-pager", rc=1, stderr="Hint: You are currently not seeing messages from other users and the system.\n")
    _, report = triage(node, tmp_path)
    assert steps(report)["boot"].state == State.UNKNOWN
    d = diagnoses(report)["amdgpu-not-loaded"]
    assert "nothing on the command line" not in d.cause
    assert "The kernel command line and modprobe.d were not read" in d.cause
    assert "first rule out `nomodeset` or `amdgpu.modeset=0`" in d.cause
    _, healthy_cmdline = triage(gnv.amdgpu_not_loaded(), tmp_path / "read")
    assert "nothing on the command line or in modprobe.d keeps it out" in diagnoses(healthy_cmdline)["amdgpu-not-loaded"].cause


def test_nomodeset_is_read_from_the_kernel_logs_command_line(tmp_path: Path) -> None:
    """A ticket with a full dmesg but no /proc/cmdline: the kernel's first line `Command line: ...`
    (arch/x86/kernel/setup.c) stands in, and names the evidence it came from."""
    node = gnv.nomodeset().remove("/proc/cmdline")
    _, report = triage(node, tmp_path)
    boot = steps(report)["boot"]
    assert boot.state == State.FAIL and boot.check.outputs["cmdline_source"] == "dmesg"
    d = diagnoses(report)["boot-nomodeset"]
    assert "dmesg: [    0.000000] Command line: " in d.cause and "nomodeset" in d.cause


def test_nomodeset_is_read_from_amdgpus_own_refusal() -> None:
    """M-Bab/linux-kernel-amdgpu-binaries#45: a `dmesg | grep amdgpu` with neither /proc/cmdline nor the
    `Command line:` line; amdgpu_init's "VGACON disables amdgpu kernel modesetting." is printed only
    under nomodeset (vgacon_text_force), so it decides, quoted as the evidence."""
    case = Path(__file__).parents[1] / "incidents" / "gpu-not-visible" / "vega64-ubuntu1604-recovery-mode-vgacon-disables-amdgpu"
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",)))
    boot = steps(report)["boot"]
    assert boot.state == State.FAIL and boot.check.outputs["cmdline_source"] is None
    assert boot.check.message == ("amdgpu is kept from loading by nomodeset (the kernel command line was not read; amdgpu "
                                  "said: [drm:amdgpu_init [amdgpu]] *ERROR* VGACON disables amdgpu kernel modesetting.)")
    assert boot.check.evidence[0] == ("dmesg: [   10.397902] [drm:amdgpu_init [amdgpu]] *ERROR* VGACON disables amdgpu "
                                      "kernel modesetting.")
    d = diagnoses(report)["boot-nomodeset"]
    assert "`cat /proc/cmdline` shows whether this boot's entry carries it" in d.cause


def test_deferred_load_after_a_modprobe_blacklist_passes(tmp_path: Path) -> None:
    """AMD's MI300X tuning guide (ROCm/legacy-rocm-build#4434) boots with modprobe.blacklist=amdgpu
    and loads amdgpu after boot: a blacklist only stops the automatic load, so a loaded amdgpu
    behind it is on purpose, not a warning on every sweep."""
    node = gnv.healthy()
    node.cmdline = node.cmdline.rstrip("\n") + " modprobe.blacklist=amdgpu\n"
    _, report = triage(node, tmp_path)
    boot = steps(report)["boot"]
    assert boot.state == State.PASS
    assert boot.check.message.startswith("amdgpu is loaded; modprobe.blacklist=amdgpu only stops its automatic load at boot")
    assert diagnoses(report) == {} and report.exit_status == ExitStatus.OK


def test_install_false_with_amdgpu_loaded_still_warns(tmp_path: Path) -> None:
    """`install amdgpu /bin/false` refuses an explicit modprobe too: the next boot has no amdgpu."""
    node = gnv.healthy()
    node.file("/etc/modprobe.d/no-amdgpu.conf", "install amdgpu /bin/false\n")
    _, report = triage(node, tmp_path)
    assert steps(report)["boot"].state == State.WARN
    assert list(diagnoses(report)) == ["amdgpu-blacklisted"]


def test_amd_smi_exiting_0_without_json_is_unknown_not_a_failure(tmp_path: Path) -> None:
    """An amd-smi that answers `list --json` with text (here its real `version` line, ROCm 7.0.2,
    tests/fixtures/outputs/amd-smi/version-rocm7.0.2.txt) and exit 0 says nothing about the GPUs."""
    line = (Path(__file__).parents[1] / "fixtures/outputs/amd-smi/version-rocm7.0.2.txt").read_text().strip()
    node = gnv.healthy().stub("amd-smi", f"echo '{line}'\nexit 0\n")
    _, report = triage(node, tmp_path)
    s = steps(report)["runtime"]
    assert s.state == State.UNKNOWN
    assert s.check.message == f"amd-smi list --json exited 0 without a JSON list of GPUs: {line}"


INCIDENTS = Path(__file__).parents[1] / "incidents"


def test_pasted_lsmod_without_amdgpu_warns_and_says_it_came_from_lsmod() -> None:
    """ROCm/ROCm#1888: `lsmod | grep -Ei 'amd|ati|radeon'` with no amdgpu is the ticket's only evidence.
    A paste is often filtered, so the step warns (never fails) and the cause names lsmod, not rocminfo."""
    case = INCIDENTS / "gpu-not-visible" / "alma91-amdgpu-missing-from-lsmod-after-rocm-install"
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",)))
    module = steps(report)["module"]
    assert module.state == State.WARN and module.check.outputs["loaded"] is False
    assert module.check.evidence == ("lsmod: 13 module(s) (snd_sof_amd_renoir, snd_sof_amd_acp, snd_sof_pci, snd_sof, "
                                     "edac_mce_amd, kvm_amd, ...), no amdgpu",)
    d = diagnoses(report)["amdgpu-not-loaded"]
    assert d.cause.startswith("lsmod, as pasted, lists no amdgpu (unconfirmed: a pasted lsmod is often filtered")
    assert "rocminfo says" not in d.cause


@pytest.mark.parametrize("drop_amdgpu_line", [False, True])
def test_pasted_lsmod_with_amdgpu_or_a_module_it_uses_passes(drop_amdgpu_line: bool, tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5370's `lsmod | grep amdgpu`: amdgpu's own line, or (a grep that left it out)
    a module whose `Used by` names amdgpu, proves the driver loaded."""
    lines = (INCIDENTS / "kernel-driver-mismatch" / "ubuntu2404-in-tree-amdgpu-after-removing-dkms" / "bundle" /
             "commands" / "lsmod" / "stdout").read_text().splitlines(keepends=True)
    if drop_amdgpu_line:
        lines = [line for line in lines if not line.startswith("amdgpu ")]
    out = tmp_path / "bundle" / "commands" / "lsmod"
    out.mkdir(parents=True)
    (out / "stdout").write_text("".join(lines))
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path / "bundle"), runbooks=("gpu-not-visible",)))
    module = steps(report)["module"]
    assert module.state == State.PASS and module.check.outputs["loaded"] is True
    assert module.check.evidence == (("lsmod: a module amdgpu uses",) if drop_amdgpu_line else ("lsmod: amdgpu 19722240 28",))
    assert "amdgpu-not-loaded" not in diagnoses(report)
