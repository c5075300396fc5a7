"""A ticket holds part of a node (issue 9): a bundle with only a rocminfo error, only a
kernel log, or only an environment variable names the cause that evidence proves, says
which command would settle the rest, and never passes on evidence it does not have."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from rocmdoctor.cli.main import full_app
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def _triage(bundle: Path, runbook: str):  # type: ignore[no-untyped-def]
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=(runbook,)))
    return report.runbooks[0]


def test_only_a_rocminfo_error_names_amdgpu_not_loaded_as_unconfirmed() -> None:
    """rocminfo decides by lsmod, which misses a built-in amdgpu (two benign corpus cases): the
    cause is named, as a warning that says which command settles it, never CRITICAL on its own."""
    rb = _triage(INCIDENTS / "gpu-not-visible" / "wsl2-rocminfo-rock-not-loaded" / "bundle", "gpu-not-visible")
    assert rb.diagnoses and rb.diagnoses[0].diagnosis_id == "amdgpu-not-loaded"
    assert "unconfirmed" in rb.diagnoses[0].cause and "ls -d /sys/module/amdgpu /dev/kfd" in rb.diagnoses[0].cause
    module = next(s for s in rb.steps if s.step_id == "module")
    assert module.state == State.WARN
    assert any("ROCk module is NOT loaded" in e for e in module.check.evidence)


def test_only_a_kernel_log_names_an_asic_kfd_does_not_support() -> None:
    bundle = INCIDENTS / "gpu-not-visible" / "pitcairn-not-supported-in-kfd" / "bundle"
    rb = _triage(bundle, "gpu-not-visible")
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "asic-not-supported-by-kfd"
    assert "PITCAIRN  not supported in kfd" in first.cause
    assert any("PITCAIRN  not supported in kfd" in e for e in first.evidence)


def test_only_an_env_var_names_the_mask(tmp_path: Path) -> None:
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "ROCR_VISIBLE_DEVICES").write_text("")
    rb = _triage(tmp_path, "gpu-not-visible")
    assert [d.diagnosis_id for d in rb.diagnoses] == ["visibility-variable-masks-gpus"]
    env = next(s for s in rb.steps if s.step_id == "env")
    assert env.check.evidence == ('env: ROCR_VISIBLE_DEVICES=""',)
    assert "even though the driver and KFD have them all" not in rb.diagnoses[0].cause  # KFD is not in evidence


def test_nothing_passes_on_evidence_the_bundle_lacks(tmp_path: Path) -> None:
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "ROCR_VISIBLE_DEVICES").write_text("0,1")
    rb = _triage(tmp_path, "gpu-not-visible")
    env = next(s for s in rb.steps if s.step_id == "env")
    assert env.state == State.UNKNOWN and "not in bundle" in env.check.message
    assert "grep -l simd_count" in env.check.message  # the command that settles it on the node
    assert not any(s.state == State.PASS for s in rb.steps)


def test_table_folds_what_the_bundle_lacks_into_one_line_after_the_verdict() -> None:
    bundle = INCIDENTS / "gpu-not-visible" / "pitcairn-not-supported-in-kfd" / "bundle"
    result = CliRunner().invoke(full_app(), ["triage", "--from", str(bundle), "-r", "gpu-not-visible"],
                                env={"COLUMNS": "250"})
    out = result.stdout
    assert result.exit_code == 2, out
    lines = out.splitlines()
    fail = next(i for i, line in enumerate(lines) if "✖ FAIL" in line and "Kernel log" in line)
    folded = [i for i, line in enumerate(lines) if "not in the bundle; on the node:" in line]
    assert len(folded) == 1 and folded[0] > fail
    assert "cat /proc/cmdline" in lines[folded[0]]
    assert out.count(": not in bundle") == 0  # no per-step "not in bundle" lines without -v


def test_gpus_a_ticket_names_open_the_runbook_without_sysfs() -> None:
    """Issue 41 (6): an amd-smi table (ROCm/rocm-systems#8263, verbatim in the corpus) names the GPU;
    pci.amd_gpus counts it from there instead of stopping the runbook at UNKNOWN."""
    rb = _triage(INCIDENTS / "gpu-oom" / "mi325x-vram-stranded-no-process-amdgpu-6.16.6" / "bundle", "gpu-oom")
    gpus = next(s for s in rb.steps if s.step_id == "gpus")
    assert gpus.state == State.PASS and gpus.check.outputs["count"] == 1
    assert "named in the ticket" in gpus.check.message and "amd-smi" in gpus.check.evidence[0]
    vram = next(s for s in rb.steps if s.step_id == "vram")
    assert vram.state == State.PASS  # the step after it now reads the table's Mem-Usage


def test_kernel_lines_with_bus_ids_name_the_gpus(tmp_path: Path) -> None:
    (tmp_path / "commands" / "dmesg").mkdir(parents=True)
    # ROCm/rocm-install-on-linux#615's line, verbatim in the corpus (mi100-am4-bar-no-space)
    (tmp_path / "commands" / "dmesg" / "stdout").write_text(
        "[    5.408787] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12\n")
    rb = _triage(tmp_path, "gpu-not-visible")
    gpus = next(s for s in rb.steps if s.step_id == "gpus")
    assert gpus.state == State.PASS and gpus.check.outputs["bdfs"] is None
    assert "0000:03:00.0" in gpus.check.evidence[0] and "kernel lines" in gpus.check.evidence[0]


def test_a_live_probe_never_asks_for_ticket_only_evidence() -> None:
    """`ticket: true` gathers are read from bundles only: a gpu-oom probe runs no rocminfo for them."""
    from rocmdoctor.engine.core import compile_request

    plan = compile_request(TriageRequest(target="local", runbooks=("gpu-oom",)))
    live = {g.key for g in plan.gathers_from(replay=False)}
    replay = {g.key for g in plan.gathers_from(replay=True)}
    assert "command:rocminfo" not in live and "command:rocminfo" in replay
    assert {g.key for g in plan.ticket_gathers} == replay - live


def test_the_overflow_group_by_either_name_is_an_unmapped_host_group() -> None:
    """rocminfo inside a rootless box on openSUSE (the corpus case): the overflow gid is "nobody" there, "nogroup" on
    Debian; either way the host's render group is not mapped into the user namespace."""
    rb = _triage(INCIDENTS / "container-mount-failure" / "tumbleweed-distrobox-kfd-nobody-group" / "bundle",
                 "container-mount-failure")
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "rootless-gid-not-mapped"
    assert '/dev/kfd belongs to group "nobody"' in first.cause
    step = next(s for s in rb.steps if s.step_id == "rocminfo")
    assert step.check.outputs["overflow_group"] == "nobody"


_RX580_LSPCI = ("00:02.0 VGA compatible controller: Intel Corporation HD Graphics 6000 (rev 09)\n"
                "0a:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Ellesmere "
                "[Radeon RX 470/480/570/570X/580/580X/590] (rev e7)\n")


def _cpu_only_bundle(tmp_path: Path, lspci: str) -> Path:
    """rocminfo's agents with no GPU (the whole output, ending in "*** Done ***") beside a pasted lspci;
    rocminfo's layout as ROCm/legacy-rocm-build#1373 pasted it, lspci's plain form from the same thread."""
    ri = tmp_path / "commands" / "rocminfo"
    ri.mkdir(parents=True)
    (ri / "stdout").write_text("==========\nHSA Agents\n==========\n*******\nAgent 1\n*******\n"
                               "  Name:                    Intel(R) Core(TM) i5-5350U CPU @ 1.80GHz\n"
                               "  Device Type:             CPU\n*** Done ***\n")
    lp = tmp_path / "commands" / "lspci -n -D"
    lp.mkdir(parents=True)
    (lp / "stdout").write_text(lspci)
    return tmp_path


def test_a_runtime_listing_only_the_cpu_beside_a_gfx8_gpu_names_pcie_atomics(tmp_path: Path) -> None:
    """No dmesg, no sysfs: rocminfo started and lists no GPU while the bus holds a Polaris (gfx803) card:
    KFD left it out, and for GFX8 that is PCIe atomics; the command that settles it is named."""
    rb = _triage(_cpu_only_bundle(tmp_path, _RX580_LSPCI), "gpu-not-visible")
    step = next(s for s in rb.steps if s.step_id == "cpu_only")
    assert step.state == State.WARN and "(gfx803)" in step.check.message
    assert rb.diagnoses[0].diagnosis_id == "pcie-atomics-unsupported"
    assert "rejects atomics" in rb.diagnoses[0].cause
    assert any("Ellesmere" in e for e in rb.diagnoses[0].evidence)


def test_a_runtime_listing_only_the_cpu_beside_a_newer_gpu_lists_the_likely_causes(tmp_path: Path) -> None:
    lspci = "03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M] (rev c8)\n"
    rb = _triage(_cpu_only_bundle(tmp_path, lspci), "gpu-not-visible")
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "gpu-missing-from-kfd" and first.confidence == "low"
    assert "lspci -nnk -d 1002:" in first.cause and "CONFIG_HSA_AMD" in first.cause


def test_a_rocminfo_paste_trimmed_above_device_type_still_names_its_gpu_and_a_lone_igpu_off_every_list() -> None:
    """The poster cut rocminfo to the agent's Name (gfx1036): a gfxNNN name is a GPU agent (CPU agents carry
    the CPU's model), and an integrated GPU that is the node's only GPU is judged like any other: gfx1036 is on
    no ROCm release's list (rocBLAS#1415, AMD: "not officially supported")."""
    bundle = INCIDENTS / "gpu-not-visible" / "rocblas-ryzen7-7700-igpu-gfx1036-no-tensile-library" / "bundle"
    rb = _triage(bundle, "gpu-not-visible")
    support = next(s for s in rb.steps if s.step_id == "gpu_support")
    assert support.state == State.WARN
    assert "gfx1036" in support.check.message and "on no ROCm release's list" in support.check.message
    assert any("rocminfo" in e and "gfx1036" in e for e in support.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "unsupported-gpu"


def test_an_igpu_beside_a_discrete_gpu_is_named_not_failed(tmp_path: Path) -> None:
    (tmp_path / "commands" / "rocminfo").mkdir(parents=True)
    agents = "".join(
        f"*******\nAgent {i}\n*******\n  Name:                    {name}\n  Device Type:             {kind}\n"
        for i, (name, kind) in enumerate([("AMD Ryzen 9 7950X", "CPU"), ("gfx1100", "GPU"), ("gfx1036", "GPU")], 1))
    (tmp_path / "commands" / "rocminfo" / "stdout").write_text("ROCk module is loaded\n" + agents + "*** Done ***\n")
    (tmp_path / "files" / "opt" / "rocm" / ".info").mkdir(parents=True)
    (tmp_path / "files" / "opt" / "rocm" / ".info" / "version").write_text("6.4.1-83\n")
    rb = _triage(tmp_path, "gpu-not-visible")
    support = next(s for s in rb.steps if s.step_id == "gpu_support")
    assert support.state == State.PASS, support.check.message
    assert "supports gfx1100" in support.check.message and "integrated gfx1036" in support.check.message


def test_a_passthrough_host_that_keeps_amdgpu_off_is_reserved_not_broken() -> None:
    """A Proxmox host (benign case): amdgpu blacklisted and nomodeset, and the command line splits IOMMU groups for
    VFIO (pcie_acs_override): the GPU is kept for a VM on purpose. A warning that says so, never CRITICAL."""
    bundle = INCIDENTS / "gpu-not-visible" / "proxmox-host-rx7900xtx-reserved-for-vfio" / "bundle"
    report = triage_target(TriageRequest(target="", bundle=str(bundle)))
    assert report.state != State.FAIL
    rb = next(r for r in report.runbooks if r.runbook_id == "gpu-not-visible")
    assert [d.diagnosis_id for d in rb.diagnoses] == ["gpu-reserved-for-vfio-passthrough"]
    boot = next(s for s in rb.steps if s.step_id == "boot")
    assert boot.state == State.WARN and "pcie_acs_override=downstream,multifunction" in boot.check.message
    assert any("blacklist-gpu.conf:2: blacklist amdgpu" in e for e in boot.check.evidence)
    assert any(e.startswith("cat /proc/cmdline: ") and "intel_iommu=on" in e for e in boot.check.evidence)


def test_rocminfo_out_of_resources_alone_in_a_container_names_the_two_usual_reasons() -> None:
    """ROCm 1.8's rocminfo in Docker printed only `Call returned 4104`: HSA_STATUS_ERROR_OUT_OF_RESOURCES, ROCr's
    answer to any failed load, first of all /dev/kfd not opened. The runbook fails WITH a diagnosis that says which
    command separates the device not passed from the group not given."""
    bundle = INCIDENTS / "container-mount-failure" / "rocm18-docker-rx570-rocminfo-4104" / "bundle"
    rb = _triage(bundle, "container-mount-failure")
    assert rb.state == State.FAIL
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "kfd-not-usable-in-container" and first.confidence == "low"
    assert "--device /dev/kfd" in first.cause and "--group-add" in first.cause
    assert any("Call returned 4104" in e for e in first.evidence)


def test_a_step_its_variables_rule_out_gathers_nothing_live() -> None:
    """gpu-oom's release-support step runs only while a job log or ticket is read: without one the live probe
    asks no rocminfo for it; with `--log` it does (its condition reads only the variables)."""
    from rocmdoctor.engine.core import compile_request

    def live(vars: dict) -> set[str]:  # type: ignore[type-arg]
        plan = compile_request(TriageRequest(target="local", runbooks=("gpu-oom",), vars=vars))
        return {g.key for g in plan.gathers_from(replay=False)}

    assert "command:rocminfo" not in live({})
    assert "command:rocminfo" in live({"logs": ["/scratch/slurm-1234.err"]})
