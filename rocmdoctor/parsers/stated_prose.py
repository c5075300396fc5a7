"""What a ticket says about the machine outside any field: the one GPU product or Ubuntu release its sentences name,
and the ROCm release a pasted install's AMD package versions carry. Read by parser stated_env only where no form
field, key-value line or tool output states the same, so each reading stays a last resort named as such
(`gpu_prose`, `os_prose`, `installed_package`)."""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers.packages import rocm_release_of

# a GPU product named in a sentence ("I have an RX 580", "my 6700XT", "on an MI250X", an APU's "Radeon 8060S"): read only where nothing
# above names the GPU, and only when the ticket names one product (two are a comparison, not the node's GPU)
_PROSE_PRODUCT = re.compile(
    r"(?<![\w.-])(?P<name>(?:AMD\s+)?Radeon(?:\(TM\)|™)?\s+\d{3,4}[MS]|(?:AMD\s+)?(?:Radeon(?:\(TM\)|™)?\s+(?:Pro\s+)?)?"
    r"(?:RX\s?\d{3,4}(?:\s?(?:XTX|XT|GRE|M|S)\b)?|\d{4}\s?XTX?|R9\s(?:Nano|Fury(?:\sX)?|\d{3}X?)|Radeon\sVII"
    r"|Vega\s?(?:56|64)|(?:Instinct\s+)?MI\d{2,3}[AXP]?|W\d{4}X?|V\d{3})"
    r")(?![\w-]|\.\d)", re.IGNORECASE)
# an AMD package and its version as installers print them: dpkg.log `install NAME:ARCH OLD NEW` / `status installed
# NAME:ARCH VERSION`, apt `Unpacking NAME (VERSION)` / `Setting up NAME (VERSION)` / `Get:N URL SUITE ARCH NAME ARCH
# VERSION [size]`, dnf's `NAME ARCH VERSION REPO SIZE` rows; packages.rocm_release_of reads the release in VERSION
_INSTALLER_PACKAGE = re.compile(
    r"(?:\b(?:install|upgrade|status installed|configure)\s+(?P<n1>[a-z0-9][a-z0-9+.-]*):\w+\s+(?:\S+\s+)?(?P<v1>\S+)$"
    r"|\b(?:Unpacking|Setting up|Preparing to unpack \S+ \.\.\.\s*Unpacking)\s+(?P<n2>[a-z0-9][a-z0-9+.-]*)(?::\w+)?\s+\((?P<v2>[^)\s]+)\)"
    r"|\s(?P<n3>[a-z0-9][a-z0-9+.-]*)\s+(?:amd64|all|x86_64|noarch)\s+(?P<v3>(?:\d+:)?\d+\.\d+\.\d+\.\d{5}-\S+))")
# the driver's packages carry the release they shipped with, but a node runs its driver beside other ROCm releases by
# design (packages.py, rocm.packages_one_release): they name no release of the ROCm user space
_DRIVER_PACKAGE = re.compile(r"^(?:amdgpu|rock-|libdrm|mesa)")
_PROSE_UBUNTU = re.compile(r"\bUbuntu\s+(?P<v>\d{2}\.(?:04|10))(?![\d.]\d)")
# a kernel release named in a sentence ("DKMS fails on kernel 6.16", "Compile Kernel 6.16.0", "the 6.8 kernel"); the
# trailing `.` of a sentence is not part of it; a GPU kernel's timing ("kernel 3.25 ms", "kernel 2.1x faster") is not one
_PROSE_KERNEL = re.compile(r"(?i)\bkernel\s+(?:version\s+)?v?(?P<a>[2-7]\.\d+(?:\.\d+)?(?:-[\w.+~-]*\w)?)(?![\w.]*\d)"
                           r"(?!\s?(?:[mnu\u00b5]?s|x|%|[KMGT]i?B|[GT]FLOPS)\b)"
                           r"|\b(?P<b>[2-7]\.\d+(?:\.\d+)?(?:-[\w.+~-]*\w)?)\s+(?:LTS\s+)?kernel\b")


def at(lineno: int, line: str, field: str, text: str) -> dict[str, Any]:
    """One statement with where it stands, the shape every stated_env reading carries into a check's evidence."""
    return {"text": text, "lineno": lineno, "line": line.strip(), "field": field}


def _the_one_mention(lines: list[str], rx: re.Pattern[str], key: Any) -> tuple[int, str, re.Match[str]] | None:
    """(lineno, line, match) of the first match of `rx` in a ticket's sentences when every match means the same
    thing by `key`; None when there is none or they name two (a comparison, not the node's)."""
    found = [(n, raw, m) for n, raw in enumerate(lines, 1) for m in rx.finditer(raw)]
    return found[0] if len({key(m) for _, _, m in found}) == 1 else None


def _product_key(m: re.Match[str]) -> str:
    """'AMD Radeon RX 580' and 'RX580' are one product."""
    return re.sub(r"[^a-z0-9]", "", re.sub(r"(?i)\b(amd|radeon|\(tm\)|™|instinct|pro)\b", "", m.group("name")).lower())


def prose_gpu(lines: list[str]) -> list[dict[str, Any]]:
    """The one GPU product the ticket's sentences name, at its first mention; none when they name two."""
    one = _the_one_mention(lines, _PROSE_PRODUCT, _product_key)
    return [at(one[0], one[1], "gpu_prose", one[2].group("name"))] if one else []


def installer_release(lines: list[str]) -> dict[str, Any] | None:
    """The ROCm release AMD's packages name in a pasted install (dpkg.log's `install rocm-dkms:amd64 <none>
    5.7.1.50701-98~22.04`, apt's `Setting up rocm-core (6.0.0.60000-91~22.04) ...`, `Get:` lines, dnf's table): the
    release a `rocm-*` package's version carries, else any other AMD user-space package's (not the driver's:
    amdgpu-dkms); None when they name two releases."""
    seen: dict[str, tuple[int, str, str]] = {}
    for i, line in enumerate(lines):
        if "." not in line:
            continue
        for m in _INSTALLER_PACKAGE.finditer(line.rstrip()):
            name, version = m.group("n1") or m.group("n2") or m.group("n3"), m.group("v1") or m.group("v2") or m.group("v3")
            release = rocm_release_of(version)
            if release and not _DRIVER_PACKAGE.match(name):
                seen.setdefault(name, (i + 1, line, release))
    preferred = {n: v for n, v in seen.items() if n.startswith("rocm")} or seen
    releases = {v[2] for v in preferred.values()}
    if len(releases) != 1:
        return None
    name, (lineno, line, release) = next(iter(preferred.items()))
    return {**at(lineno, line, "installed_package", name), "version": release}


def prose_kernel(lines: list[str]) -> dict[str, Any] | None:
    """The one kernel release (by major.minor) a ticket's sentences name ("AMDGPU/ROCm DKMS fails on kernel 6.16",
    ROCm/ROCm#5110), for a ticket with no kernel field; none when they name two (an old and a new kernel)."""
    def release(m: re.Match[str]) -> str:
        return m.group("a") or m.group("b")

    one = _the_one_mention(lines, _PROSE_KERNEL, lambda m: ".".join(release(m).split("-")[0].split(".")[:2]))
    if not one:
        return None
    n, raw, m = one
    return {**at(n, raw, "kernel_prose", m.group(0)), "release": release(m)}


def prose_os(lines: list[str]) -> dict[str, Any] | None:
    """The one `Ubuntu NN.NN` a ticket's sentences name (a title's "Any word on Ubuntu 23.10?"), for a ticket with
    no OS field; none when they name two."""
    one = _the_one_mention(lines, _PROSE_UBUNTU, lambda m: m.group("v"))
    if not one:
        return None
    n, raw, m = one
    return {**at(n, raw, "os_prose", m.group(0)), "id": "ubuntu", "version_id": m.group("v")}
