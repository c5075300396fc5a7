"""Render kernel-side evidence (dmesg, journalctl -k, /proc/modules, lspci -n, dkms, modinfo,
/proc/cmdline, modprobe.d) as the exact text the real sources print.

Each renderer names the public source of its format; verbatim samples of each
live in tests/fixtures/outputs/<source>/ with a SOURCES.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any


def render_dmesg(lines: Iterable[tuple[float, str]]) -> str:
    """`dmesg`: `[%5lu.%06lu] msg` (util-linux dmesg.c; e.g. ROCm/legacy-rocm-build#4533)."""
    return "".join(f"[{ts:12.6f}] {msg}\n" for ts, msg in lines)


def render_journal_k(lines: Iterable[tuple[str, str]], host: str = "node01") -> str:
    """`journalctl -k` (short): `Mon DD HH:MM:SS host kernel: msg` (ublue-os/bazzite#5729).

    `lines` are `(wall, msg)` with `wall` like `Sep 03 23:07:26`.
    """
    return "".join(f"{wall} {host} kernel: {msg}\n" for wall, msg in lines)


def render_kern_log(lines: Iterable[tuple[datetime, float, str]], host: str = "node01") -> str:
    """rsyslog's /var/log/kern.log (Ubuntu's traditional file format: RFC 3164 stamp with a
    space-padded day, then the kernel's own monotonic stamp): `May  7 17:21:09 k8snode kernel:
    [ 8265.735624] msg` (Requiem4Eternity/Appstream#79; ROCm/legacy-rocm-build#2533).

    `lines` are `(wall, seconds since boot, msg)`.
    """
    return "".join(f"{wall:%b} {wall.day:2d} {wall:%H:%M:%S} {host} kernel: [{ts:12.6f}] {msg}\n"
                   for wall, ts, msg in lines)


def render_journal_k_monotonic(lines: Iterable[tuple[float, str]], host: str = "node01") -> str:
    """`journalctl -k -o short-monotonic`: `[%12.6f] host kernel: msg` (systemd logs-show.c)."""
    return "".join(f"[{ts:12.6f}] {host} kernel: {msg}\n" for ts, msg in lines)


def render_proc_modules(mods: Sequence[Mapping[str, Any]]) -> str:
    """/proc/modules (kernel/module/procfs.c m_show): `name size refcnt deps, Live 0x0 (OE)`.

    Each mod: `{name, size, refcount=0, deps=[], state="Live", taint=""}`;
    addresses print as 0x0000000000000000 for unprivileged readers.
    """
    out = []
    for m in mods:
        deps = "".join(f"{d}," for d in m.get("deps", [])) or "-"
        taint = f" ({m['taint']})" if m.get("taint") else ""
        out.append(f"{m['name']} {m['size']} {m.get('refcount', 0)} {deps} {m.get('state', 'Live')} "
                   f"0x0000000000000000{taint}\n")
    return "".join(out)


def render_lspci_n(devices: Sequence[Mapping[str, Any]]) -> str:
    """`lspci -n -D` (pciutils lspci.c): `0000:05:00.0 1200: 1002:74a1 [(rev 00)]`.

    Each device: `{slot, class, vendor, device, rev=None}` as hex strings.
    """
    out = []
    for d in devices:
        rev = f" (rev {d['rev']})" if d.get("rev") else ""
        out.append(f"{d['slot']} {d['class']}: {d['vendor']}:{d['device']}{rev}\n")
    return "".join(out)


def render_dkms_status(entries: Sequence[Mapping[str, Any]], style: str = "3") -> str:
    """`dkms status`; style "3" = dkms 3.x `amdgpu/6.8.5-2041575.22.04, 6.8.0-45-generic, x86_64: installed`
    (ROCm/legacy-rocm-build#4533), style "2" = dkms 2.x `amdgpu, 6.2.4, 5.15.0-91-generic, x86_64: installed`.

    Each entry: `{module, version, kernel=None, arch="x86_64", status, warnings=[]}`
    or `{error: "Could not locate dkms.conf file."}` for an `Error!` line.
    """
    out = []
    for e in entries:
        if "error" in e:
            out.append(f"Error! {e['error']}\n")
            continue
        head = f"{e['module']}/{e['version']}" if style == "3" else f"{e['module']}, {e['version']}"
        if e.get("kernel"):
            head += f", {e['kernel']}, {e.get('arch', 'x86_64')}"
        notes = "".join(f" ({w})" for w in e.get("warnings", []))
        out.append(f"{head}: {e['status']}{notes}\n")
    return "".join(out)


def render_modinfo(info: Mapping[str, Any]) -> str:
    """`modinfo amdgpu` (kmod modinfo.c: `%-16s%s` i.e. key+colon padded to 16 columns;
    ROCm/legacy-rocm-build#1584). `info` keys in output order; list values repeat the key."""
    out = []
    for key, value in info.items():
        for v in value if isinstance(value, list) else [value]:
            out.append(f"{key + ':':<16}{v}\n")
    return "".join(out)


def render_cmdline(args: Sequence[tuple[str, Any]]) -> str:
    """/proc/cmdline: space-separated `name[=value]`, one line (`True` = bare flag)."""
    parts = [name if value is True else f"{name}={value}" for name, value in args]
    return " ".join(parts) + "\n"


def render_modprobe_conf(directives: Sequence[tuple[str, str, str]]) -> str:
    """A modprobe.d file (man 5 modprobe.d): `directive module [args]` lines."""
    return "".join(f"{d} {mod} {args}".rstrip() + "\n" for d, mod, args in directives)
