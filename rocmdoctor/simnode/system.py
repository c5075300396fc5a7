"""The non-GPU part of a simulated node: /etc, /proc, /opt/rocm and the host's other PCI devices.

Values describe an Ubuntu 22.04 host with two AMD EPYC 9474F sockets (the
CPU of the real MI300X host in shared/reference/real-outputs/mi300x-x4-rocminfo.md)
and ROCm 6.2 with the amdgpu-dkms module (driver 6.8.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from rocmdoctor.simnode.entries import D, F, L, Tree

# /etc/os-release of Ubuntu 22.04.4 LTS, verbatim layout of the distribution file.
UBUNTU_2204_OS_RELEASE = """PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""

#: Ubuntu 24.04.2's /etc/os-release, verbatim as `cat /etc/os-release` prints it on a 24.04.2
#: node (e.g. the ubuntu:latest image of mid-2025, quoted in public setup notes)
UBUNTU_2404_OS_RELEASE = """PRETTY_NAME="Ubuntu 24.04.2 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.2 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
"""

#: (name, gid, members) of an Ubuntu 22.04 /etc/group; render is a system group created by systemd-udev
BASE_GROUPS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("root", 0, ()), ("daemon", 1, ()), ("bin", 2, ()), ("sys", 3, ()), ("adm", 4, ("syslog",)),
    ("tty", 5, ()), ("disk", 6, ()), ("lp", 7, ()), ("mail", 8, ()), ("news", 9, ()), ("uucp", 10, ()),
    ("man", 12, ()), ("proxy", 13, ()), ("kmem", 15, ()), ("dialout", 20, ()), ("cdrom", 24, ()),
    ("sudo", 27, ()), ("audio", 29, ()), ("www-data", 33, ()), ("backup", 34, ()), ("operator", 37, ()),
    ("video", 44, ()), ("sasl", 45, ()), ("plugdev", 46, ()), ("staff", 50, ()), ("users", 100, ()),
    ("nogroup", 65534, ()), ("systemd-journal", 101, ()), ("systemd-network", 102, ()),
    ("systemd-resolve", 103, ()), ("messagebus", 104, ()), ("syslog", 106, ()), ("render", 109, ()),
    ("docker", 998, ()),
)


@dataclass
class SimUser:
    name: str
    uid: int
    groups: tuple[str, ...] = ()        # supplementary groups
    home: str = ""
    shell: str = "/bin/bash"


def etc_group(users: list[SimUser], extra: dict[str, tuple[str, ...]] | None = None) -> str:
    members: dict[str, list[str]] = {name: list(m) for name, _, m in BASE_GROUPS}
    for u in users:
        for g in u.groups:
            members.setdefault(g, []).append(u.name)
    lines = [f"{name}:x:{gid}:{','.join(members[name])}" for name, gid, _ in BASE_GROUPS]
    lines += [f"{u.name}:x:{u.uid}:" for u in users if u.uid >= 1000]
    return "\n".join(lines) + "\n"


def etc_passwd(users: list[SimUser]) -> str:
    lines = ["root:x:0:0:root:/root:/bin/bash",
             "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
             "syslog:x:104:106::/home/syslog:/usr/sbin/nologin"]
    for u in users:
        if u.uid:
            lines.append(f"{u.name}:x:{u.uid}:{u.uid}::{u.home or '/home/' + u.name}:{u.shell}")
    return "\n".join(lines) + "\n"


def group_gid(name: str) -> int:
    for g, gid, _ in BASE_GROUPS:
        if g == name:
            return gid
    raise KeyError(f"no group {name!r} in the simulated /etc/group")


#: amdgpu-dkms (ROCm 6.2) module stack; /proc/modules line format from kernel/module/procfs.c m_show():
#: name size refcnt deps state address taint; addresses read as 0 without CAP_SYSLOG (kptr_restrict).
_AMDGPU_STACK = (
    ("amdgpu", 19746816, "{refcnt}", "-"),
    ("amddrm_ttm_helper", 12288, "1", "amdgpu,"),
    ("amdttm", 110592, "2", "amdgpu,amddrm_ttm_helper,"),
    ("amddrm_buddy", 20480, "1", "amdgpu,"),
    ("amdxcp", 12288, "1", "amdgpu,"),
    ("amd_sched", 61440, "1", "amdgpu,"),
    ("amdkcl", 32768, "4", "amdgpu,amddrm_ttm_helper,amdttm,amd_sched,"),
)
_BASE_MODULES = (
    "drm_display_helper 184320 1 amdgpu, Live 0x0000000000000000",
    "cec 61440 1 drm_display_helper, Live 0x0000000000000000",
    "mlx5_ib 442368 0 - Live 0x0000000000000000",
    "mlx5_core 2011136 1 mlx5_ib, Live 0x0000000000000000",
    "k10temp 16384 0 - Live 0x0000000000000000",
    "kvm_amd 155648 0 - Live 0x0000000000000000",
    "kvm 1032192 1 kvm_amd, Live 0x0000000000000000",
    "ipmi_si 73728 0 - Live 0x0000000000000000",
    "nvme 57344 2 - Live 0x0000000000000000",
)


def proc_modules(*, amdgpu: bool, refcnt: int) -> str:
    """Most recently loaded first, like the kernel's module list."""
    lines = []
    if amdgpu:
        lines = [f"{n} {size} {ref.format(refcnt=refcnt)} {deps} Live 0x0000000000000000 (OE)"
                 for n, size, ref, deps in _AMDGPU_STACK]
        lines += list(_BASE_MODULES)
    else:
        lines = [ln.replace(" 1 amdgpu, ", " 0 - ") for ln in _BASE_MODULES]
    return "\n".join(lines) + "\n"


#: the host's non-GPU PCI functions: AMD (0x1022) root complex and data-fabric functions,
#: a Mellanox NIC and the ASPEED BMC VGA, so a bare `grep AMD` or "display class" filter is wrong.
HOST_PCI = (
    # bdf, vendor, device, class, subsys vendor, subsys device
    ("0000:00:00.0", 0x1022, 0x14A4, 0x060000, 0x1022, 0x14A4),   # Genoa root complex
    ("0000:00:18.3", 0x1022, 0x14AD, 0x060000, 0x0000, 0x0000),   # data fabric func 3 (k10temp, socket 0)
    ("0000:00:19.3", 0x1022, 0x14AD, 0x060000, 0x0000, 0x0000),   # data fabric func 3 (k10temp, socket 1)
    ("0000:0c:00.0", 0x15B3, 0x1021, 0x020000, 0x15B3, 0x0023),   # ConnectX-7
    ("0000:c2:00.0", 0x1A03, 0x2000, 0x030000, 0x1A03, 0x2000),   # ASPEED graphics (BMC)
)


def host_pci_tree() -> Tree:
    t: Tree = {}
    for bdf, ven, dev, cls, sv, sd in HOST_PCI:
        d = f"sys/devices/pci{bdf[:4]}:00/{bdf}"
        t[f"{d}/vendor"] = F(f"0x{ven:04x}\n")
        t[f"{d}/device"] = F(f"0x{dev:04x}\n")
        t[f"{d}/class"] = F(f"0x{cls:06x}\n")
        t[f"{d}/subsystem_vendor"] = F(f"0x{sv:04x}\n")
        t[f"{d}/subsystem_device"] = F(f"0x{sd:04x}\n")
        t[f"{d}/revision"] = F("0x00\n")
        drv = {0x15B3: "mlx5_core", 0x14AD: "k10temp"}.get(dev if ven == 0x1022 else ven)
        head = f"DRIVER={drv}\n" if drv else ""
        t[f"{d}/uevent"] = F(f"{head}PCI_CLASS={cls:X}\nPCI_ID={ven:04X}:{dev:04X}\n"
                             f"PCI_SUBSYS_ID={sv:04X}:{sd:04X}\nPCI_SLOT_NAME={bdf}\n", 0o644)
        t[f"sys/bus/pci/devices/{bdf}"] = L(f"../../../devices/pci{bdf[:4]}:00/{bdf}")
    for i, bdf in enumerate(("0000:00:18.3", "0000:00:19.3")):
        hw = f"sys/devices/pci0000:00/{bdf}/hwmon/hwmon{i}"
        t[f"{hw}/name"] = F("k10temp\n")
        t[f"{hw}/temp1_input"] = F("38625\n")
        t[f"{hw}/temp1_label"] = F("Tctl\n")
        t[f"sys/class/hwmon/hwmon{i}"] = L(f"../../devices/pci0000:00/{bdf}/hwmon/hwmon{i}")
    return t


#: idle pressure stall files (kernel 4.20, `grep -n . /proc/pressure/*`, psi/grep-n-all-kernel-4.20-idle.txt)
PSI_IDLE = {
    "cpu": "some avg10=0.00 avg60=0.00 avg300=0.00 total=1167162866\n",
    "io": "some avg10=0.00 avg60=0.00 avg300=0.00 total=61955081\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=58578187\n",
    "memory": "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
}
#: node0/node1 cpulist of a 2-socket EPYC 9654 with SMT (the kernel's cpulist form, proc-status/SOURCES.md)
NODE_CPUS = ("0-95,192-287", "96-191,288-383")


def system_tree(*, hostname: str, kernel: str, cmdline: str, users: list[SimUser],
                rocm_version: str | None) -> Tree:
    t: Tree = {
        "etc/os-release": F(UBUNTU_2204_OS_RELEASE, 0o644),
        "etc/hostname": F(hostname + "\n", 0o644),
        "etc/group": F(etc_group(users), 0o644),
        "etc/passwd": F(etc_passwd(users), 0o644),
        "etc/modprobe.d": D(),
        "etc/modprobe.d/blacklist.conf": F("# This file lists modules which will not be loaded.\nblacklist evbug\n", 0o644),
        "proc/cmdline": F(cmdline + "\n"),
        # an idle host's pressure files (kernel 4.20, tests/fixtures/outputs/psi/grep-n-all-kernel-4.20-idle.txt)
        **{f"proc/pressure/{k}": F(v, 0o444) for k, v in PSI_IDLE.items()},
        # a 2-socket EPYC 9654 (96 cores, SMT): the NUMA nodes the GPUs' numa_node files name (0 and 1)
        **{f"sys/devices/system/node/node{n}/cpulist": F(c + "\n", 0o444) for n, c in enumerate(NODE_CPUS)},
        "proc/sys/kernel/osrelease": F(kernel + "\n"),
        "proc/sys/kernel/tainted": F("12288\n"),      # O (4096) + E (8192): out-of-tree, unsigned dkms module
        "proc/version": F(f"Linux version {kernel} (buildd@lcy02-amd64-025) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                          "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #129-Ubuntu SMP\n"),
        "sys/class/drm": D(),
        "sys/bus/pci/drivers": D(),
        "tmp": D(0o1777),
    }
    t.update(host_pci_tree())
    if rocm_version:
        t["opt/rocm/.info/version"] = F(f"{rocm_version}-{_rocm_build(rocm_version)}\n", 0o644)
        for target in ROCBLAS_LAZY_TARGETS:   # index files only: the checks stat them, never read them
            t[f"opt/rocm/lib/rocblas/library/TensileLibrary_lazy_{target}.dat"] = F("", 0o644)
    return t


#: the rocBLAS kernel index files of ROCm 6.0, as rocBLAS itself listed them on a machine whose
#: gfx1036 iGPU had none ("List of available TensileLibrary Files", ROCm/legacy-rocm-build#3015)
ROCBLAS_LAZY_TARGETS = ("gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx900", "gfx906", "gfx908", "gfx90a",
                        "gfx940", "gfx941", "gfx942")


def rocblas_index(target: str) -> str:
    """The index file of a rocBLAS build with kernels for `target`, for nodes whose GPU came after
    ROCm 6.0's list: rocBLAS's own "List of available TensileLibrary Files" in ROCm/ROCm#5452 (a
    2026 build) lists TensileLibrary_lazy_gfx1151.dat and _gfx1201.dat among others."""
    return f"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_{target}.dat"


def _rocm_build(version: str) -> str:
    """/opt/rocm/.info/version reads e.g. '6.2.0-66' (release plus build number)."""
    return {"6.2.0": "66", "6.1.0": "82", "6.0.0": "91"}.get(version, "1")
