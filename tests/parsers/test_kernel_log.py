from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.kernel_log import classify_amdgpu_line, parse_kernel_events, parse_kernel_log
from rocmdoctor.simnode.formats import kernel_lines
from rocmdoctor.simnode.formats.kernel import render_dmesg, render_journal_k, render_journal_k_monotonic

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()


def test_registered():
    assert get_parser("kernel_log") is parse_kernel_log
    assert get_parser("kernel_events") is parse_kernel_events


def test_dmesg_probe_failure_sample():
    recs = parse_kernel_log(sample("kernel-log/mi210-probe-failure.dmesg"))
    assert len(recs) == 5
    assert recs[0]["ts"] == 9.282591 and recs[0]["format"] == "dmesg"
    assert recs[3]["driver"] == "amdgpu" and recs[3]["bdf"] == "0000:83:00.0"
    assert recs[3]["msg"] == "amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init"
    events = parse_kernel_events(sample("kernel-log/mi210-probe-failure.dmesg"))
    assert [e["kind"] for e in events] == ["kms_init", "probe_failure", "probe_failure"]
    # amdgpu names the ASIC when it starts on a device: that device is one of its GPUs
    assert (events[0]["bdf"], events[0]["fields"]) == ("0000:83:00.0", {"asic": "ALDEBARAN", "device": "740F"})
    last = parse_kernel_events(sample("kernel-log/mi210-probe-failure.dmesg"))[-1]
    assert last["fields"] == {"pbdf": "0000:83:00.0", "perr": "-12"}


def test_journal_short_sample():
    recs = parse_kernel_log(sample("kernel-log/journal-healthy-init.log"))
    assert {r["format"] for r in recs} == {"journal"}
    assert recs[0]["time"] == "Sep 03 23:07:26" and recs[0]["host"] == "bazzite" and recs[0]["ts"] is None
    assert recs[-1]["msg"] == "[drm] Initialized amdgpu 3.64.0 for 0000:12:00.0 on minor 0"
    assert [e["kind"] for e in parse_kernel_events(sample("kernel-log/journal-healthy-init.log"))] == ["init_ok", "init_ok"]


def test_journal_in_a_local_language_and_short_precise():
    """Tickets paste journalctl from the user's locale and with -o short-precise; the device and
    the message must come out as from the C locale. Lines verbatim from ROCm/legacy-rocm-build#5997
    (comment by Only8Bits, `journalctl -r -g amdgpu`) and pop-os/pop#2132 (`journalctl -o
    short-precise -k -b -1`)."""
    localized = "feb 16 11:59:12 x kernel: amdgpu 0000:0c:00.0: amdgpu: Ring comp_1.2.1 reset succeeded"
    precise = ("maj 29 14:30:55.592803 buttran kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* "
               "ring sdma1 timeout, signaled seq=8985, emitted seq=8987")
    a, b = parse_kernel_log(localized + "\n" + precise)
    assert (a["format"], a["time"], a["host"], a["bdf"]) == ("journal", "feb 16 11:59:12", "x", "0000:0c:00.0")
    assert a["text"] == "Ring comp_1.2.1 reset succeeded"
    assert (b["format"], b["time"], b["host"]) == ("journal", "maj 29 14:30:55.592803", "buttran")
    assert [e["kind"] for e in parse_kernel_events(precise)] == ["ring_timeout"]


def test_newest_first_paste_is_put_back_in_time_order():
    """`journalctl -r` pastes the newest line first; "the last event of a GPU" must still be its
    latest. Lines verbatim from ROCm/legacy-rocm-build#5997 (comment by Only8Bits, `journalctl -r
    -g amdgpu`, journalctl's own truncation marks kept)."""
    pasted = "\n".join([
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: [drm] device wedged, but recovered through reset",
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: amdgpu: Ring comp_1.2.1 reset succeeded",
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: amdgpu: reset compute queue (1:2:1)",
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: amdgpu: Starting comp_1.2.1 ring reset",
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: amdgpu:  Process firefox pid 2846 thread firefox:cs0 pid 29>",
        "feb 16 12:20:54 x kernel: amdgpu 0000:0c:00.0: amdgpu: ring comp_1.2.1 timeout, signaled seq=1709, emitted>",
        "feb 16 11:59:12 x kernel: amdgpu 0000:0c:00.0: amdgpu: Ring comp_1.2.1 reset succeeded",
        "feb 16 11:59:12 x kernel: amdgpu 0000:0c:00.0: amdgpu: ring comp_1.2.1 timeout, signaled seq=1684, emitted>",
    ])
    recs = parse_kernel_log(pasted)
    assert recs[0]["text"].startswith("ring comp_1.2.1 timeout, signaled seq=1684")
    assert recs[-1]["text"] == "[drm] device wedged, but recovered through reset"
    kinds = [(e["kind"], e["text"][:30]) for e in parse_kernel_events(pasted)]
    assert kinds[-1] == ("gpu_reset", "Ring comp_1.2.1 reset succeede")
    # a log in time order, and one with a later boot after an earlier one, stay as they are
    assert parse_kernel_log("\n".join(reversed(pasted.splitlines())))[0]["time"] == "feb 16 11:59:12"
    two_boots = "[  5.000001] amdgpu: first boot\n[  1.000000] amdgpu: second boot\n[  2.000000] amdgpu: later"
    assert [r["msg"] for r in parse_kernel_log(two_boots)][0] == "amdgpu: first boot"


def test_syslog_with_monotonic_stamp():
    recs = parse_kernel_log(sample("kernel-log/syslog-sdma-timeout.log"))
    assert recs[0]["ts"] == 2237.944235 and recs[0]["time"] == "Oct  7 12:58:23"
    ev = parse_kernel_events(sample("kernel-log/syslog-sdma-timeout.log"))
    assert [e["kind"] for e in ev] == ["ring_timeout", "gpu_reset"]
    assert ev[0]["fields"] == {"ring": "sdma0", "signaled": "16060", "emitted": "16062"}


def test_dmesg_T_and_ring_reset():
    ev = parse_kernel_events(sample("kernel-log/dmesg-T-mes-reset.log"))
    assert ev[0]["time"] == "Thu Sep 10 14:36:16 2026" and ev[0]["kind"] == "ring_timeout"
    assert ev[-1]["kind"] == "gpu_reset"
    kinds = [e["kind"] for e in parse_kernel_events(sample("kernel-log/ring-timeout-reset.dmesg"))]
    # "Ring gfx_0.0.0 reset failed" is the ring-level attempt, then the full reset; MES not answering
    # in between is its own kind; the log ends with the reset's success
    assert kinds == ["ring_timeout", "gpu_reset", "gpu_reset", "firmware_hang", "gpu_reset", "gpu_reset"]


@pytest.mark.parametrize("rel,kind,field,value", [
    ("kernel-log/kfd-unsupported.dmesg", "kfd_unsupported", None, None),
    ("kernel-log/unknown-symbol.dmesg", "symbol_mismatch", "unknown", "amd_iommu_bind_pasid"),
    ("kernel-log/firmware-missing.dmesg", "firmware_missing", "firmware", "amdgpu/polaris12_mc.bin"),
    ("kernel-log/syslog-oom.log", "oom_kill", "comm", "python3"),
])
def test_fault_samples_classify(rel, kind, field, value):
    ev = parse_kernel_events(sample(rel))
    assert ev[0]["kind"] == kind
    if field:
        assert ev[0]["fields"][field] == value


def test_firmware_then_probe_failure_order():
    kinds = [e["kind"] for e in parse_kernel_events(sample("kernel-log/firmware-missing.dmesg"))]
    assert kinds[:2] == ["firmware_missing", "firmware_missing"]
    assert "probe_failure" in kinds


@pytest.mark.parametrize("kind", sorted(kernel_lines.FAULTS))
def test_catalogue_lines_classify_as_their_kind(kind):
    hits = []
    for msg, source in kernel_lines.FAULTS[kind]:
        assert source.startswith(("https://", kernel_lines.KERNEL_SRC))
        hit = classify_amdgpu_line(msg)
        # context lines (process info, reaper, amdgpu naming the ASIC it starts on) may stay unclassified;
        # a firmware failure is followed by the init failure it causes
        assert hit is None or hit[0] in (kind, "probe_failure", "kms_init"), (kind, msg, hit)
        hits.append(hit[0] if hit else None)
    assert kind in hits


def test_catalogue_healthy_has_no_fault():
    for msg, _ in kernel_lines.HEALTHY_BOOT:
        hit = classify_amdgpu_line(msg)
        assert hit is None or hit[0] == "init_ok", msg


def test_render_roundtrip_all_forms():
    msgs = kernel_lines.messages("probe_failure", bdf="0000:05:00.0")
    lines = [(5.5 + i, m) for i, m in enumerate(msgs)]
    for text in (render_dmesg(lines), render_journal_k_monotonic(lines, host="gpu07")):
        recs = parse_kernel_log(text)
        assert [(r["ts"], r["msg"]) for r in recs] == lines
    recs = parse_kernel_log(render_journal_k([("Oct 01 09:12:45", m) for m in msgs], host="gpu07"))
    assert [r["msg"] for r in recs] == msgs and recs[0]["host"] == "gpu07"
    assert all(r["bdf"] in (None, "0000:05:00.0") for r in recs)
    assert "probe of 0000:05:00.0 failed" in msgs[-1]


def test_dmesg_x_facility():
    recs = parse_kernel_log("kern  :err   : [    4.826030] amdgpu 0000:01:00.0: amdgpu: Fatal error during GPU init\n")
    assert recs[0]["facility"] == "kern" and recs[0]["level"] == "err" and recs[0]["ts"] == 4.82603


def test_raw_continuation_kept_and_garbage_rejected():
    recs = parse_kernel_log("[    1.0] a\n  continuation line\n")
    assert recs[1]["format"] == "raw" and recs[1]["msg"] == "continuation line"
    assert parse_kernel_log("") == []
    assert parse_kernel_log("-- No entries --\n") == []
    with pytest.raises(ParseError, match="not a kernel log"):
        parse_kernel_log("hello world\nsecond line\n")


@pytest.mark.parametrize("name", sorted(kernel_lines.SEQUENCES))
def test_sequences_are_real_and_classify(name):
    """Multi-kind excerpts: each line from a public thread, and the fault in it is recognised."""
    kinds = []
    for msg, source in kernel_lines.SEQUENCES[name]:
        assert source.startswith("https://")
        hit = classify_amdgpu_line(msg)
        kinds.append(hit[0] if hit else None)
    assert {"ras_uncorrectable", "firmware_hang", "gpu_reset", "pcie_aer"} & set(kinds), kinds


@pytest.mark.parametrize("line,kind", [
    ("amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!", "ras_uncorrectable"),
    ("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE", "firmware_hang"),
    ("[drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=3", "firmware_hang"),
    ("amdgpu 0000:0d:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000012 SMN_C2PMSG_82:0x00000005", "firmware_hang"),
    ("amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset failed", "gpu_reset"),
    ("amdgpu 0000:03:00.0: amdgpu: Ring comp_1.1.0 reset succeeded", "gpu_reset"),
    ("amdgpu 0000:08:00.0: amdgpu: GPU reset(2) succeeded!", "gpu_reset"),
])
def test_hang_and_hardware_error_lines(line, kind):
    """Real lines (ROCm/legacy-rocm-build#1886, #5724, #2533, #2196, pop-os/cosmic-epoch#3764,
    ROCm/legacy-rocm-build#6127, pop-os/cosmic-comp#2626)."""
    assert classify_amdgpu_line(line)[0] == kind


@pytest.mark.parametrize("line,kind,fields", [
    ("amdgpu 0000:5f:00.0: amdgpu: socket: 2, aid: 0, fw_status: 0xe6985b2d, firmware load failed at boot time",
     "boot_error", {"bsocket": "2", "aid": "0", "fw_status": "0xe6985b2d",
                    "boot_failure": "firmware load failed at boot time"}),
    ("amdgpu 0000:1b:00.0: amdgpu: get invalid ip discovery binary signature", "ip_discovery", {}),
    ("amdgpu 0000:01:00.0: amdgpu: invalid ip discovery binary checksum", "ip_discovery", {}),
    ("[drm:amdgpu_discovery_reg_base_init [amdgpu]] *ERROR* amdgpu_discovery_init failed", "ip_discovery", {}),
    ("amdgpu 0000:03:00.0: amdgpu: get invalid ip discovery binary signature from vram", "ip_discovery", {}),
    # an SR-IOV VF gets the virtual display block (ROCm/legacy-rocm-build#2995, V620 MxGPU)
    ("[drm] add ip block number 5 <amdgpu_vkms>", "virtual_display", {"vkms": "amdgpu_vkms"}),
    ("[drm:psp_hw_init [amdgpu]] *ERROR* PSP firmware loading failed", None, None),
])
def test_boot_and_ip_discovery_lines(line, kind, fields):
    """Real lines: ROCm/legacy-rocm-build#4454 (MI300X), #5008 (MI300A), #1896 (a laptop dGPU), #2995."""
    assert classify_amdgpu_line(line) == ((kind, fields) if kind else None)


def test_a_dmesg_stamp_that_lost_its_bracket_is_still_dmesg():
    """ROCm/legacy-rocm-build#3856 pasted its first line as `  356.920249] amdgpu ...`."""
    [rec] = parse_kernel_log("  356.920249] amdgpu 0000:05:00.0: amdgpu: get invalid ip discovery binary signature\n")
    assert (rec["format"], rec["ts"], rec["bdf"]) == ("dmesg", 356.920249, "0000:05:00.0")
    assert rec["msg"] == "amdgpu 0000:05:00.0: amdgpu: get invalid ip discovery binary signature"


@pytest.mark.parametrize("line,kind,fields", [
    # public dmesg pastes (an `amd_iommu=on iommu=pt` Ubuntu host; an `amd_iommu=off` one)
    ("iommu: Default domain type: Passthrough (set via kernel command line)", "iommu_mode", {"domain": "Passthrough"}),
    ("iommu: Default domain type: Translated", "iommu_mode", {"domain": "Translated"}),
    ("Command line: BOOT_IMAGE=/vmlinuz-5.0.8-1.el7.elrepo.x86_64 root=/dev/mapper/centos-root ro quiet",
     "boot_cmdline", {"cmdline": "BOOT_IMAGE=/vmlinuz-5.0.8-1.el7.elrepo.x86_64 root=/dev/mapper/centos-root ro quiet"}),
])
def test_iommu_mode_and_boot_command_line(line, kind, fields):
    assert classify_amdgpu_line(line) == (kind, fields)


def test_iso_stamped_lines_are_kernel_lines():
    """`dmesg --time-format iso` and pipelines that print an ISO stamp before the message (ROCm/TheRock#8232)."""
    [rec] = parse_kernel_log("2026-09-17T14:25:57Z amdgpu 0000:04:00.0: device lost from bus!\n")
    assert (rec["format"], rec["time"], rec["bdf"]) == ("dmesg-iso", "2026-09-17T14:25:57Z", "0000:04:00.0")
    assert classify_amdgpu_line(rec["msg"]) == ("bus_lost", {})


@pytest.mark.parametrize("line, fields", [
    # ROCm/legacy-rocm-build#4226: a W7800 and an RX 7900 XT that did not come back from runtime power-down
    ("amdgpu 0000:83:00.0: amdgpu: Failed to exit BACO state!", {}),
    ("amdgpu 0000:0a:00.0: amdgpu: amdgpu_device_ip_resume failed (-62).", {"resume_err": "-62"}),
    ("amdgpu 0000:0a:00.0: Unable to change power state from D3hot to D0, device inaccessible", {}),
    # pci.c pci_dev_wait giving up on a W7900 after runtime power-down (minisforum-docs/MS-02-Ultra#26)
    ("amdgpu 0000:03:00.0: not ready 65535ms after resume; giving up", {}),
])
def test_failed_resume_lines(line, fields):
    assert classify_amdgpu_line(line) == ("resume_failed", fields)


def test_resume_of_an_ip_block_alone_is_not_a_failed_resume():
    """"resume of IP block <psp> failed" is printed by a reset's re-init too: only the lines amdgpu's
    resume path alone prints decide."""
    assert classify_amdgpu_line("[drm:amdgpu_device_fw_loading [amdgpu]] *ERROR* resume of IP block <psp> failed -62") is None


@pytest.mark.parametrize("line, kind, fields", [
    # kernel/module/signing.c and security/lockdown (ROCm/legacy-rocm-build#4330's Secure Boot refusal)
    ("Loading of module with unavailable key is rejected", "module_sig_rejected", {}),
    ("Loading of unsigned module is rejected", "module_sig_rejected", {}),
    ("Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7", "module_sig_rejected", {}),
    ("secureboot: Secure boot enabled", "secure_boot", {"sb": "enabled"}),
])
def test_secure_boot_lines(line, kind, fields):
    assert classify_amdgpu_line(line) == (kind, fields)


def test_critical_temperature_power_off_is_its_own_kind() -> None:
    """amdgpu's SW CTF pair before it powers the node off, as a journal holds it (ValveSoftware/Proton#8028,
    verbatim; the logind line is not the kernel's and is dropped)."""
    text = ("Aug 27 01:11:45 arch kernel: amdgpu 0000:03:00.0: amdgpu: ERROR: GPU over temperature range(SW CTF) detected!\n"
            "Aug 27 01:11:45 arch kernel: amdgpu 0000:03:00.0: amdgpu: ERROR: System is going to shutdown due to GPU SW CTF!\n"
            "Aug 27 01:11:45 arch kernel: rfkill: input handler enabled\n"
            "Aug 27 01:11:45 arch systemd-logind[675]: The system will power off now!\n")
    events = parse_kernel_events(text)
    assert [(e["kind"], e["bdf"]) for e in events] == [("thermal_shutdown", "0000:03:00.0")] * 2
    assert events[1]["fields"] == {"ctf": "SW"}
    # the older powerplay line is a thermal event, not a power-off (ROCm/legacy-rocm-build#385)
    (old,) = parse_kernel_events("amdgpu: [powerplay] GPU over temperature range detected on PCIe 0:0.0!\n")
    assert old["kind"] == "thermal"
    # the same words in a device's name are not amdgpu's (an input device so named, from a public
    # kernel-log classifier's tests, code index id 70534875690): no thermal event at all
    assert parse_kernel_events("Aug 27 01:11:45 arch kernel: input: GPU over temperature range(SW CTF) detected "
                               "as /devices/virtual/input/input45\n") == []


def test_console_logger_stamp_and_printk_caller_are_read():
    """An HPE Cray EX node's console (ROCm/ROCm#4070, a Setonix MI250X): the logger's ISO stamp, the kernel's
    own stamp and CONFIG_PRINTK_CALLER's task id."""
    line = ("[2025-07-16T20:42:49+08:00][1854229.290017][T4056360] RIP: 0010:svm_range_evict_svm_bo_worker+0x313/0x330"
            " [amdgpu]")
    [rec] = parse_kernel_log(line + "\n")
    assert (rec["format"], rec["time"], rec["ts"]) == ("console-iso", "2025-07-16T20:42:49+08:00", 1854229.290017)
    assert rec["msg"] == "RIP: 0010:svm_range_evict_svm_bo_worker+0x313/0x330 [amdgpu]"


def test_printk_caller_after_a_plain_dmesg_stamp():
    """CONFIG_PRINTK_CALLER pads the id to six characters, as syzbot's console logs show ("[   39.372153][ T5057]")."""
    [rec] = parse_kernel_log("[   39.372153][ T5057] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n")
    assert (rec["format"], rec["ts"], rec["bdf"]) == ("dmesg", 39.372153, "0000:03:00.0")
    assert rec["text"] == "GPU reset begin!"


def test_a_psp_failure_after_psp_is_resuming_is_a_failed_re_init() -> None:
    """ROCm/legacy-rocm-build#1690 (an RX 6800 XT whose miner restarted it): amdgpu announced the re-init with
    "PSP is resuming..." and the security processor refused it; one resume_failed event per re-init."""
    path = (Path(__file__).resolve().parents[1] / "incidents" / "gpu-hardware-fault"
            / "rx6800xt-psp-tmr-fail-after-miner-restart-kernel-5-14" / "bundle" / "commands" / "dmesg" / "stdout")
    events = [e for e in parse_kernel_events(path.read_text()) if e["kind"] == "resume_failed"]
    assert len(events) == 1
    assert events[0]["fields"] == {"psp_cmd": "SETUP_TMR", "psp_status": "0x80000306"}
    assert events[0]["driver"] == "amdgpu" and 'after "PSP is resuming..."' in events[0]["text"]


def test_a_psp_failure_at_boot_is_not_a_failed_resume() -> None:
    boot = ("[    5.113204] [drm] psp gfx command LOAD_IP_FW(0x6) failed and response status is (0x80000203)\n"
            "[    5.113210] [drm] failed to load ucode CP_CE(0x8)\n")
    assert len(parse_kernel_log(boot)) == 2
    assert not [e for e in parse_kernel_events(boot) if e["kind"] == "resume_failed"]
