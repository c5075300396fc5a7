"""Kernel log text (`dmesg`, `journalctl -k`, kern.log) and amdgpu line classes.

The same kernel message reaches us in several wrappers depending on how the
probe could read it: raw `dmesg` (`[    5.123456] msg`), `dmesg -x`
(`kern  :info  : [...]`), `dmesg -T` (`[Thu Sep 10 14:36:15 2026] msg`),
`journalctl -k` short (`Sep 03 23:07:26 host kernel: msg`, optionally with the
syslog copy of the monotonic stamp `kernel: [ 2237.944235] msg`) and
`journalctl -k -o short-monotonic` (`[    5.123456] host kernel: msg`). Rules
should not care which, so every form becomes the same record.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parsed, parser

_MONO = r"\[\s*(?P<mono>\d+\.\d+)\]"
# CONFIG_PRINTK_CALLER's caller id after the stamp (printk.c: "[%6s]" of "T<pid>" or "C<cpu>")
_CALLER = r"(?: ?\[\s*[TC]\d{1,10}\])?"
_FORMS: list[tuple[str, re.Pattern[str]]] = [
    # dmesg -x: "kern  :err   : [    5.1] msg"
    ("dmesg", re.compile(r"^(?P<facility>[a-z]+)\s*:(?P<level>[a-z]+)\s*:\s*" + _MONO + r" ?(?P<msg>.*)$")),
    # journalctl -o short-monotonic: "[    5.1] host kernel: msg"
    ("journal-monotonic", re.compile(r"^" + _MONO + r" (?P<host>\S+) kernel: ?(?P<msg>.*)$")),
    # dmesg: "[    5.1] msg", with CONFIG_PRINTK_CALLER "[    5.1][  T123] msg"
    ("dmesg", re.compile(r"^" + _MONO + _CALLER + r" ?(?P<msg>.*)$")),
    # a console logger's wall-clock stamp before the kernel's own (HPE Cray EX node consoles):
    # "[2025-07-16T20:42:48+08:00][1854229.275568][T4056360] msg" (a Setonix MI250X node, ROCm/ROCm#4070)
    ("console-iso", re.compile(r"^\[(?P<wall>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:?\d\d|Z)?)\]"
                               + _MONO + _CALLER + r" ?(?P<msg>.*)$")),
    # dmesg with the stamp's opening bracket lost in a copy-paste: "  356.920249] msg" (ROCm/legacy-rocm-build#3856)
    ("dmesg", re.compile(r"^\s*(?P<mono>\d+\.\d{6})\] ?(?P<msg>.*)$")),
    # dmesg -T: "[Thu Sep 10 14:36:15 2026] msg"
    ("dmesg-T", re.compile(r"^\[(?P<wall>[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ?(?P<msg>.*)$")),
    # journalctl short / syslog: "Sep 03 23:07:26 host kernel: [ 1.2] msg" (stamp optional); a
    # ticket pasted from a non-English locale names the month in it ("feb 16 12:20:54 x kernel:",
    # ROCm/legacy-rocm-build#5997) and `-o short-precise` adds microseconds ("maj 29
    # 14:30:45.472809 buttran kernel:", pop-os/pop#2132); the probe itself runs with LC_ALL=C
    ("journal", re.compile(
        r"^(?P<wall>[^\W\d_]{3,4}\.? [ \d]\d \d\d:\d\d:\d\d(?:\.\d{1,9})?) (?P<host>\S+) kernel: ?"
        r"(?:" + _MONO + r" ?)?(?P<msg>.*)$")),
    # journalctl -o short-iso: "2024-01-06T14:03:03+0000 host kernel: msg"
    ("journal-iso", re.compile(
        r"^(?P<wall>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z)?) (?P<host>\S+) kernel: ?"
        r"(?:" + _MONO + r" ?)?(?P<msg>.*)$")),
    # an ISO 8601 stamp and the message: `dmesg --time-format iso` ("2026-09-17T14:25:57,123456+00:00 msg",
    # util-linux dmesg.c) and log pipelines that print the stamp alone ("2026-09-17T14:25:57Z msg",
    # ROCm/TheRock#8232)
    ("dmesg-iso", re.compile(r"^(?P<wall>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:?\d\d|Z)?) (?P<msg>.*)$")),
]
_JOURNAL_NOISE = re.compile(r"^-- (?:Logs begin at|Journal begins at|No entries|Boot [0-9a-f]+|Reboot)")
# Kernel messages pasted into a ticket without their time stamps (`dmesg | grep kfd` piped
# through a chat, a title): still a kernel log when they read like one.
_KERNELISH = re.compile(r"(?:amdgpu|kfd|\[drm\]|pci|pcieport|nvme|usb|ACPI|\[TTM\])\b|[\w-]+ [0-9a-f]{4}:[0-9a-f]{2}:")
_DEVICE = re.compile(r"^(?P<driver>[\w-]+) (?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): ")


def _record(form: str, m: re.Match[str], line: str) -> dict[str, Any]:
    groups = m.groupdict()
    mono = groups.get("mono")
    msg = groups["msg"].rstrip()
    rec: dict[str, Any] = {
        "ts": float(mono) if mono is not None else None,
        "time": groups.get("wall"),
        "host": groups.get("host"),
        "facility": groups.get("facility"),
        "level": groups.get("level"),
        "msg": msg,
        "line": line,
        "format": form,
    }
    dev = _DEVICE.match(msg)
    rec["driver"] = dev.group("driver") if dev else None
    rec["bdf"] = dev.group("bdf") if dev else None
    rec["text"] = _text(msg, dev)
    return rec


def _text(msg: str, dev: re.Match[str] | None) -> str:
    """The message without its device prefix ("amdgpu 0000:0a:00.0: amdgpu: "), for verdicts that
    already name the device."""
    if dev is None:
        return msg
    rest = msg[dev.end():]
    return rest[len("amdgpu: "):] if rest.startswith("amdgpu: ") else rest


@parser("kernel_log")
def parse_kernel_log(text: str) -> list[dict[str, Any]]:
    """Kernel log lines from dmesg / dmesg -x / dmesg -T / journalctl -k (short, short-monotonic, short-iso).

    Returns `[{ts, time, host, facility, level, msg, line, format, driver, bdf, text}]`:
    `ts` is seconds since boot (float) when the form carries it, else None;
    `time` the wall-clock text when it does; `driver`/`bdf` are set for device
    messages such as `amdgpu 0000:05:00.0: ...`, and `text` is the message without that prefix
    (nor amdgpu's own "amdgpu: "). Lines in no known form (stack
    trace continuations, pasted prompts, lines a ticket quotes without their
    stamps) are kept with `format: "raw"` so a match on them is not lost. Empty
    text is an empty log (`[]`). Raises ParseError when no line is in a kernel
    log form or reads like a kernel message.
    """
    records: list[dict[str, Any]] = []
    matched = 0
    for raw in text.splitlines():
        line = raw.rstrip("\r\n")
        if not line.strip() or _JOURNAL_NOISE.match(line):
            continue
        for form, pattern in _FORMS:
            m = pattern.match(line)
            if m:
                records.append(_record(form, m, line))
                matched += 1
                break
        else:
            dev = _DEVICE.match(line.strip())
            records.append({"ts": None, "time": None, "host": None, "facility": None, "level": None,
                            "msg": line.strip(), "line": line, "format": "raw",
                            "driver": dev.group("driver") if dev else None, "bdf": dev.group("bdf") if dev else None,
                            "text": _text(line.strip(), dev)})
    if records and not matched and not any(_KERNELISH.match(r["msg"]) or classify_amdgpu_line(r["msg"])
                                           for r in records):
        raise ParseError(f"not a kernel log: first line {records[0]['line'][:60]!r}")
    return records[::-1] if _newest_first(records) else records


_CLOCK = re.compile(r"^(?P<month>\S+) +(?P<day>\d+) (?P<clock>\d\d:\d\d:\d\d(?:\.\d+)?)")


def _newest_first(records: list[dict[str, Any]]) -> bool:
    """True for a log pasted newest line first (`journalctl -r`, ROCm/legacy-rocm-build#5997;
    QubesOS/qubes-issues#7648): its stamps only ever go back. Rules read "the last event" of a
    device as its current state, so such a paste is turned back into time order. Only stamps of
    the same month are compared (a ticket's month names can be in any language)."""
    keys: list[tuple[Any, ...]] = []
    for r in records:
        if r["ts"] is not None:
            keys.append(("ts", r["ts"]))
        elif r["time"] and (m := _CLOCK.match(r["time"])):
            keys.append((m["month"], int(m["day"]), m["clock"]))
    back = forward = 0
    for a, b in zip(keys, keys[1:]):
        if a[0] != b[0]:
            continue
        back += b < a
        forward += b > a
    return back > 0 and forward == 0


# (kind, pattern) in priority order; the first match names the line. The
# patterns follow the kernel's own format strings (amdgpu_device.c,
# amdgpu_job.c, kfd_device.c, firmware_loader, module loader, oom_kill.c,
# nomodeset.c); rocmdoctor/simnode/formats/kernel_lines.py holds real
# examples of each with their public source.
AMDGPU_CLASSES: list[tuple[str, re.Pattern[str]]] = [
    ("oom_kill", re.compile(r"Out of memory: Killed process (?P<pid>\d+) \((?P<comm>[^)]*)\)|"
                            r"Memory cgroup out of memory: Killed process (?P<cg_pid>\d+)")),
    ("nomodeset", re.compile(r"Booted with the nomodeset parameter|You have booted with nomodeset|"
                             r"VGACON disables amdgpu kernel modesetting")),
    ("symbol_mismatch", re.compile(r"^(?P<module>[\w-]+): "
                                   r"(?:disagrees about version of symbol (?P<symbol>\S+)|"
                                   r"Unknown symbol (?P<unknown>\S+) \(err (?P<err>-?\d+)\))")),
    ("firmware_missing", re.compile(r"Direct firmware load for (?P<firmware>amdgpu/\S+) failed with error (?P<err>-?\d+)|"
                                    r"Failed to load firmware \"?(?P<fw2>amdgpu/[^\"\s]+)")),
    # the GPU's own boot (PSP bootloader) reported a failure at power-on (amdgpu_ras.c
    # amdgpu_ras_boot_time_error_reporting, MI300: "socket: %d, aid: %d, [hbm: %d, ][fw_status: 0x%x, ]
    # firmware load failed at boot time" and its siblings; before Linux 6.10 also "firmware boot
    # failed, fw status is 0x%x"; ROCm/legacy-rocm-build#4454, where the GPU that printed them was replaced)
    ("boot_error", re.compile(r"socket: (?P<bsocket>\d+), aid: (?P<aid>\d+), (?:hbm: (?P<hbm>\d+), )?"
                              r"(?:fw_status: (?P<fw_status>0x[0-9a-f]+), )?"
                              r"(?P<boot_failure>firmware boot failed|memory training failed|firmware load failed at boot time|"
                              r"wafl link training failed|xgmi link training failed|usr cp link training failed|"
                              r"usr dp link training failed|hbm memory test failed|hbm bist test failed)")),
    # amdgpu could not read the GPU's IP discovery table, the map of its blocks that the GPU's
    # firmware leaves in VRAM (amdgpu_discovery.c: "get invalid ip discovery binary signature[ from
    # vram]", "invalid ip discovery binary checksum", "failed to read ip discovery binary from file",
    # "amdgpu_discovery_init failed"; ROCm/legacy-rocm-build#3856, #4454, #5008, #1896)
    ("ip_discovery", re.compile(r"invalid ip discovery binary (?:signature|checksum)|amdgpu_discovery_init failed|"
                                r"failed to read ip discovery binary")),
    # the GPU's VBIOS init tables did not run to their end, so amdgpu could not post the GPU (atom.c:
    # "atombios stuck in loop for more than %dsecs aborting", "atombios stuck executing %04X (len %d,
    # WS %d, PS %d) @ 0x%04X"; amdgpu_device.c: "gpu post error!"): AMD reads it as a VBIOS that
    # cannot be read or run, a card fault (ROCm/legacy-rocm-build#4533: 5x MI100; #1320: a Radeon VII)
    ("vbios_post", re.compile(r"gpu post error!|atombios stuck in loop for more than \d+ ?secs|atombios stuck executing")),
    # amdgpu_bios.c amdgpu_get_bios(): no method found the video BIOS (isc30/ryzen-gpu-passthrough-proxmox#117)
    ("vbios_missing", re.compile(r"amdgpu.{0,60}Unable to locate a BIOS ROM")),
    # "probe with driver amdgpu failed": the same failure as printed by kernels >= 6.12 (lamikr/rocm_sdk_builder#180)
    ("probe_failure", re.compile(r"Fatal error during GPU init|amdgpu: probe of (?P<pbdf>\S+) failed with error (?P<perr>-?\d+)|"
                                 r"probe with driver amdgpu failed with error -?\d+|"
                                 r"amdgpu_device_ip_init failed|hw_init of IP block <\S+> failed|sw_init of IP block <\S+> failed")),
    # amdgpu drives the GPU as an SR-IOV virtual function and the host's (PF's) mailbox does not
    # answer: init never finishes (mxgpu_ai.c/mxgpu_nv.c: "trn=%x ACK should not assert! wait again !",
    # "Doesn't get ack from pf, continue", "Doesn't get msg:%d from pf, error=%d"; ROCm/amdgpu#211)
    ("vf_mailbox_stuck", re.compile(r"trn=\w+ ACK should not assert|Doesn't get ack from pf|"
                                    r"Doesn't get msg:\d+ from pf")),
    ("kfd_unsupported", re.compile(r"kfd not supported on this ASIC|not supported in kfd|"
                                   r"DID [0-9a-f]{4} is missing in supported_devices|"
                                   r"skipped device [0-9a-f]+:[0-9a-f]+, PCI rejects atomics|"
                                   r"device [0-9a-f]+:[0-9a-f]+ NOT added due to errors|kgd2kfd_probe failed|"
                                   # KFD refused to start at all (amdkfd/kfd_module.c kfd_init(), before
                                   # /dev/kfd exists; amdgpu ignores the failure; CachyOS/linux-cachyos#643)
                                   r"sched_policy has invalid value|max_num_of_queues_per_device must be between")),
    # the RAS EEPROM's bad-page table is at or past the driver's limit (amdgpu_ras_eeprom.c:
    # "RAS records:%d exceed threshold:%d" (older drivers append ", GPU will not be initialized.
    # Replace this GPU or increase the threshold"), "RAS records:%u exceeds 90%% of threshold:%d");
    # the GPU is then often not initialised, so no sysfs bad-page list exists to read
    ("bad_page_threshold", re.compile(r"RAS records:\s?(?P<recs>\d+) (?P<how>exceed threshold|exceeds 90% of threshold):"
                                      r"\s?(?P<thr>-?\d+)")),
    # RAS error counts (amdgpu_ras.c amdgpu_ras_error_print_error_data: "socket: %d, die: %d, %lld
    # [new ]{uncorrectable,correctable} hardware errors detected in [total in ]%s block[, no user
    # action is needed]"; before Linux 6.7 without the socket/die prefix; ROCm/legacy-rocm-build#4021).
    # The "in total" line is the cumulative count of one socket/die since the driver loaded, and
    # is printed for every die of the GPU, 0 included: never an event of its own.
    ("ras_total", re.compile(r"(?:socket: (?P<socket>\d+), die: (?P<die>\d+),? )?(?P<tcount>\d+) "
                             r"(?P<severity>uncorrectable|correctable|deferred) hardware errors? detected in total "
                             r"in (?P<tblock>\w+) block")),
    # "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!": Vega20/MI50 and MI300X
    # (ROCm/legacy-rocm-build#1886, #1386, #4021)
    ("ras_uncorrectable", re.compile(r"(?:socket: (?P<usocket>\d+), die: (?P<udie>\d+),? )?"
                                     r"(?P<count>[1-9]\d*) (?:new )?uncorrectable hardware errors? detected in (?P<block>\w+) block|"
                                     r"uncorrectable hardware error\((?P<event>\w+)\) detected|"
                                     r"RAS poison consumption|Poison is created")),
    # the GPU is gone from the PCIe bus: its registers read all-ones (amdgpu: "device lost from bus!";
    # the SMU's "bus error for message: ... response:0xFFFFFFFF"): a dropped link, not a hang a reset
    # can fix (ROCm/TheRock#8232: an RX 7900 XTX on a passive M.2-to-OCuLink link)
    ("bus_lost", re.compile(r"device lost from bus!|SMU: bus error for message: .*response:0xFFFFFFFF")),
    ("ring_timeout", re.compile(r"ring (?P<ring>\S+) timeout, signaled seq=(?P<signaled>\d+), emitted seq=(?P<emitted>\d+)")),
    # a recovery that did not bring the GPU back (amdgpu_device.c: "GPU reset(%d) %s" with
    # "failed", "GPU reset end with ret = %d"); "Ring ... reset failed" is only the ring-level
    # attempt before a full reset, so it stays a gpu_reset event. Vega-era PSP mode1 resets
    # (psp_v3_1.c/psp_v11_0.c: "psp is not working correctly before mode1 reset!", "psp mode 1
    # reset failed!") give up without a reset: soc15_asic_reset goes on as if it had worked
    # (Requiem4Eternity/Appstream#79: the node rebooted right after)
    ("reset_failed", re.compile(r"GPU reset\(\d+\) failed|GPU Recovery Failed|GPU reset end with ret = -\d+|"
                                r"ASIC reset failed|psp is not working correctly before mode1 reset|"
                                r"psp mode 1 reset failed")),
    ("gpu_reset", re.compile(r"GPU reset begin!|GPU reset succeeded|GPU reset\(\d+\) succeeded|"
                             r"Ring \S+ reset (?:failed|succeeded)|"
                             r"MODE[12] reset|BACO reset|VRAM is lost due to GPU reset|GPU recovery")),
    # the GPU did not come back from a power-down: amdgpu's resume (amdgpu_device.c
    # amdgpu_device_resume, runtime PM and system resume only, not the reset path: "amdgpu_device_ip_resume
    # failed (%d)."), the SMU leaving BACO (amdgpu_smu.c "Failed to exit BACO state!"), or the PCI
    # core waking it from D3 (pci.c "Unable to change power state from %s to D0, device
    # inaccessible", or pci_dev_wait's "not ready %dms after %s; giving up" when the device never answered
    # config reads after a resume); ROCm/legacy-rocm-build#4226, #4134
    ("resume_failed", re.compile(r"amdgpu_device_ip_resume failed \((?P<resume_err>-?\d+)\)|Failed to exit BACO state|"
                                 r"Unable to change power state from D3(?:hot|cold) to D0, device inaccessible|"
                                 r"not ready \d+ms after resume; giving up")),
    # the scheduler firmware stopped answering (ROCm/legacy-rocm-build#2533, ublue-os/bazzite#4464); the SMU's
    # unanswered message (smu_cmn.c SMU_RESP_NONE: "I'm not done with your previous command", or in other kernel
    # releases "SMU: No response msg_reg: %x resp_reg: %x")
    ("firmware_hang", re.compile(r"MES\(?\d?\)? failed to respon(?:d|se)|MES might be in unrecoverable state|"
                                 r"SMU: I'm not done with your previous command|SMU: No response msg_reg")),
    ("page_fault", re.compile(r"\[(?:gfx|mm)hub\d*\] (?:no-)?retry page fault|\[(?:gfx|mm)hub\d*\] page fault")),
    # the engine that made the faulting access, decoded by gmc_v*.c under the page-fault line
    # ("Faulty UTCL2 client ID: CPF (0x4)"): CPF, the command processor's fetcher, is where the
    # MES 0x83 firmware of GC 11.5 faults (ROCm/ROCm#5724, #5616)
    ("fault_client", re.compile(r"Faulty UTCL2 client ID: (?P<client>\w+) \((?P<client_id>0x[0-9a-fA-F]+)\)")),
    # the GPU's critical-temperature trip: amdgpu powers the node off (swsmu/amdgpu_smu.c,
    # smu_v11_0.c/smu_v13_0.c and powerplay: "ERROR: GPU over temperature range(SW CTF)
    # detected!", "ERROR: System is going to shutdown due to GPU SW CTF!", the HW CTF pair;
    # orderly_poweroff follows), so it is found in the previous boot's log (ValveSoftware/Proton#8028);
    # only as amdgpu's own dev_emerg line ("amdgpu BDF: [amdgpu: ]ERROR: ..."): a device may be
    # named with the same words (an input device's "input: GPU over temperature range ...")
    ("thermal_shutdown", re.compile(r"^amdgpu [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: (?:amdgpu: )?ERROR: "
                                    r"(?:GPU over temperature range\(SW CTF\) detected|"
                                    r"System is going to shutdown due to (?:GPU )?(?P<ctf>SW|HW) CTF|"
                                    r"GPU HW Critical Temperature Fault\(aka CTF\) detected)")),
    ("thermal", re.compile(r"thermal throttling temperature reached|[Tt]hermal (?:throttl|alert|interrupt|event)|"
                           r"[Ss]oftware shutdown due to (?:temperature|thermal)|SMU: .*[Tt]hermal|"
                           r"temperature above threshold|(?:\[powerplay\] |ERROR: )GPU over temperature")),
    # the PCI core could not place a BAR (pci/setup-res.c: "BAR %d: no space for %pR",
    # "BAR %d: failed to assign %pR"; ROCm/legacy-rocm-build#2927, #1541). Since Linux 6.7 the
    # resource is named first and an SR-IOV virtual function's BAR says so ("VF BAR 0 [mem size
    # 0x1000000000 64bit pref]: can't assign; no space", "... : failed to assign"; ROCm/ROCm#6281);
    # the older form numbers the VF BARs 7-12 (PCI_IOV_RESOURCES)
    ("pci_bar", re.compile(r"(?P<vf>VF )?BAR (?P<bar>\d+)(?:: (?:no space for|failed to assign) \[(?P<old_res>[^\]]*)\]"
                           r"| \[(?P<new_res>[^\]]*)\]: (?:can't assign; no space|failed to assign))")),
    # the PCI core placed a BAR after all ("BAR %d: assigned %pR"; since 6.7 "%s %pR: assigned"):
    # a BAR that failed and was then assigned (the kernel's reallocation) is not missing
    ("pci_bar_assigned", re.compile(r"(?P<vf>VF )?BAR (?P<bar>\d+)(?:: assigned \[| \[[^\]]*\]: assigned$)")),
    # PCIe Advanced Error Reporting (drivers/pci/pcie/aer.c: "PCIe Bus Error: severity=%s, type=%s,
    # (%s)"; severity "Corrected"/"Uncorrected (Fatal)" before Linux 6.x, "Correctable"/
    # "Uncorrectable (Fatal)" after; ROCm/legacy-rocm-build#32, #858); the error reached the GPU
    # when the PCI core tells amdgpu about it ("device has no AER-aware driver"), and the link is
    # lost when "Device recovery failed" follows
    ("pcie_aer", re.compile(r"PCIe Bus Error: severity=(?P<severity>Correct(?:ed|able)|Uncorrect(?:ed|able) \((?:Fatal|Non-Fatal)\)), "
                            r"type=(?P<layer>[A-Za-z ]+?),")),
    ("pcie_aer_device", re.compile(r"device has no AER-aware driver|AER: (?P<recovery>Device recovery failed)")),
    ("ras_correctable", re.compile(r"(?:socket: (?P<csocket>\d+), die: (?P<cdie>\d+),? )?(?P<ccount>\d+) (?:new )?"
                                   r"correctable hardware errors? detected in (?P<cblock>\w+) block")),
    # the PCI core's boot-time note that a device's path is slower than the device (pci.c
    # __pcie_print_link_status: "%u.%03u Gb/s available PCIe bandwidth, limited by %s x%d link at %s
    # (capable of %u.%03u Gb/s with %s x%d link)"; speeds "8.0 GT/s PCIe", before Linux 5.2 "8 GT/s";
    # Umio-Yasuno/amdgpu_top#33, geerlingguy/raspberry-pi-pcie-devices#222)
    ("pcie_bw_limited", re.compile(r"(?P<avail>[\d.]+) Gb/s available PCIe bandwidth, limited by "
                                   r"(?P<speed>[\d.]+) GT/s(?: PCIe)? x(?P<width>\d+) link at (?P<port>\S+) "
                                   r"\(capable of (?P<cap>[\d.]+) Gb/s with (?P<cap_speed>[\d.]+) GT/s(?: PCIe)? "
                                   r"x(?P<cap_width>\d+) link\)")),
    # enumeration of an AMD/ATI function (drivers/pci/probe.c "[%04x:%04x] type %02x class %#08x"):
    # says which addresses in a pasted log are the GPU's own (its package's switch ports too)
    ("amd_pci_device", re.compile(r"^pci \S+: \[1002:(?P<device>[0-9a-f]{4})\] type (?P<type>\d+) "
                                  r"class (?P<pci_class>0x[0-9a-f]{6})")),
    # amdgpu drives the GPU as an SR-IOV virtual function: for a VF it adds the virtual display
    # block (amdgpu_discovery.c, nv.c: `if (adev->enable_virtual_display || amdgpu_sriov_vf(adev))`
    # add amdgpu_vkms_ip_block; printed "add ip block number %d <%s>", newer "detected ip block
    # number %d <%s>"); under amdgpu.virtual_display= the driver first prints "virtual display
    # string:" (ROCm/legacy-rocm-build#2995: a V620 MxGPU VF on Azure)
    ("virtual_display", re.compile(r"ip block number \d+ <(?P<vkms>amdgpu_vkms)>|(?P<vd_param>virtual display string:)")),
    # the IOMMU's default DMA domain (drivers/iommu/iommu.c iommu_subsys_init: "Default domain
    # type: %s%s", "Passthrough" under iommu=pt, " (set via kernel command line)") and the boot
    # command line the kernel printed first ("Command line: ..."): what a pasted log says of the
    # IOMMU mode when /proc/cmdline is not in the evidence (ROCm/legacy-rocm-build#1493)
    ("iommu_mode", re.compile(r"iommu: Default domain type: (?P<domain>\w+)")),
    ("boot_cmdline", re.compile(r"^(?:Kernel )?[Cc]ommand line: (?P<cmdline>.*)$")),
    # Secure Boot's module signature check refused a module (kernel/module/signing.c "Loading of %s
    # is rejected" with "unsigned module" / "module with unsupported crypto" / "module with
    # unavailable key"; security/lockdown "Lockdown: %s: unsigned module loading is restricted";
    # neither names the module) and the boot's Secure Boot state (arch/x86 "secureboot: Secure boot
    # enabled"); ROCm/legacy-rocm-build#4330
    ("module_sig_rejected", re.compile(r"Loading of (?:unsigned module|module with unsupported crypto|module with unavailable key) "
                                       r"is rejected|Lockdown: [\w.-]+: unsigned module loading is restricted")),
    ("secure_boot", re.compile(r"secureboot: Secure boot (?P<sb>enabled|disabled)")),
    # amdgpu starts on a device and names its ASIC ("initializing kernel modesetting (ALDEBARAN
    # 0x1002:0x740F 0x1002:0x0C34 0x02)."; amdgpu_device.c): the device is a GPU amdgpu tried
    ("kms_init", re.compile(r"initializing kernel modesetting \((?P<asic>[A-Z0-9_]+) 0x1002:0x(?P<device>[0-9A-Fa-f]{4})")),
    ("init_ok", re.compile(r"\[drm\] Initialized amdgpu |amdgpu: Topology: Add (?:dGPU|GPU) node|"
                           r"kfd kfd: (?:amdgpu: )?added device|amdgpu kernel modesetting enabled")),
]


def classify_amdgpu_line(msg: str) -> tuple[str, dict[str, str]] | None:
    """Name what a kernel message says about the GPU stack, with its captured fields.

    Returns `(kind, fields)` or None for unrelated lines; kinds are the names in
    AMDGPU_CLASSES (probe_failure, firmware_missing, symbol_mismatch, ...).
    """
    for kind, pattern in AMDGPU_CLASSES:
        m = pattern.search(msg)
        if m:
            return kind, {k: v for k, v in m.groupdict().items() if v is not None}
    return None


@parser("kernel_events")
def parse_kernel_events(text: str) -> list[dict[str, Any]]:
    """Kernel log lines that say something about the GPU stack, each with its `kind`.

    Returns the `kernel_log` records that classify (see classify_amdgpu_line),
    each extended with `kind` and `fields` (captured values such as `firmware`,
    `err`, `ring`, `pid`, `symbol`). Raises ParseError like `kernel_log`.
    """
    out = []
    resuming = False  # inside a re-init amdgpu announced with "PSP is resuming..." (resume or after a reset)
    for rec in parse_kernel_log(text):
        hit = classify_amdgpu_line(rec["msg"])
        if hit:
            out.append({**rec, "kind": hit[0], "fields": hit[1]})
        if _PSP_RESUMING.search(rec["msg"]):
            resuming = True
        elif resuming and (m := _PSP_FAILED.search(rec["msg"])):
            # the security processor refused the re-init: the GPU did not come back (one event per re-init)
            out.append({**rec, "driver": rec["driver"] or "amdgpu", "kind": "resume_failed",
                        "text": f'{rec["text"]} (after "PSP is resuming...")',
                        "fields": {k: v for k, v in m.groupdict().items() if v is not None}})
            resuming = False
        elif resuming and _REINIT_DONE.search(rec["msg"]):
            resuming = False
    return out


# amdgpu_psp.c psp_resume() prints "PSP is resuming..." on system and runtime resume and on the re-init after a
# GPU reset (at boot it loads firmware without it); a PSP command or firmware load that fails after it is the
# re-init failing (psp_cmd_submit_buf: "psp gfx command %s(0x%X) failed and response status is (0x%X)";
# psp_resume: "PSP resume failed"). ROCm/legacy-rocm-build#1690: an RX 6800 XT whose miner restarted it.
_PSP_RESUMING = re.compile(r"PSP is resuming\.\.\.")
_PSP_FAILED = re.compile(r"psp gfx command (?P<psp_cmd>\w{1,40})\(0x[0-9A-Fa-f]{1,4}\) failed and response status is \((?P<psp_status>0x[0-9A-Fa-f]{1,8})\)|"
                         r"PSP resume failed")
_REINIT_DONE = re.compile(r"SMU is resumed successfully|GPU reset\(\d+\) succeeded|GPU reset succeeded")
