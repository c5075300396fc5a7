"""DKMS build output: what `apt`/`dnf`/`amdgpu-install`/`dkms autoinstall` print when a module
build fails, and the build's own `/var/lib/dkms/<module>/<version>/build/make.log`.

Real forms (sources in tests/incidents/kernel-driver-mismatch/*/case.md):
console (dkms 2.x and 3.x):
    Loading new amdgpu-6.12.12-2164967.24.04 DKMS files...
    Building initial module for 6.14.0-24-generic
    Building initial module amdgpu/5.18.13-1538762.20.04 for 6.5.0-41-generic
    Building module(s)....(bad exit status: 2)
    Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)
    Consult /var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log for more information.
    dkms autoinstall on 6.8.0-44-generic/x86_64 failed for amdgpu(10)
    Error! Could not locate dkms.conf file.
    File: /var/lib/dkms/amdgpu/5.18.13-1577590.22.04/source/dkms.conf does not exist.
    WARNING: amdgpu dkms failed for running kernel      (amdgpu-dkms's post-install script)
    Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-061807-generic (x86_64)
    Building module(s)......(bad exit status: 2)        (dkms 3.x: the autoinstall header, then the failed
                                                         build; dkms-project/dkms run_test.sh prints the header)
    Error! Module version C502C9F63988A81945CAABD for amdgpu.ko
    is not newer than what is already found in kernel 4.13.0-36-generic (D3580B8CE287C145D0DC895).
                      (the install step's version sanity check: built, then not installed;
                       ROCm/legacy-rocm-build#344; the same two lines in dkms-project/dkms's run_test.sh)
make.log:
    DKMS make.log for amdgpu-3.8-30 for kernel 5.9.2-arch1-1 (x86_64)
    /var/lib/dkms/.../Makefile:16: *** dma_resv->seq is missing., exit.... 中止.
    /var/lib/dkms/.../kcl_fence.h:42:9: error: implicit declaration of function ...
    ERROR: modpost: "drm_..." [/var/lib/dkms/.../amdgpu.ko] undefined!
a make.log viewed in bat (`bat make.log`) and pasted with its gutter, a long line wrapped onto a gutter-only line:
     951   │ ERROR: modpost: "migrate_vma_finalize" [/var/lib/dkms/amdgpu/5.11.19.98-1290604/build/amd/amdgpu/amdgpu.
           │ ko] undefined!                                                    (ROCm/legacy-rocm-build#1125)
a make.log pasted without its header: the tree it builds names the driver, kbuild's directory lines the kernel
    ERROR: modpost: "kallsyms_lookup_name" [/var/lib/dkms/amdgpu-3.5/30/build/amd/amdkcl/amdkcl.ko] undefined!
    make: Leaving directory '/usr/lib/modules/5.7.0-3-MANJARO/build'          (ROCm/amdgpu#95)
    make[1]: Entering directory '/usr/src/linux-headers-5.4.0-91-generic'     (Grench6/RX580-rocM-tensorflow...#13)
    make -j16 KERNELRELEASE=6.8.0-44-generic -C /lib/modules/6.8.0-44-generic/build M=...  (dkms's own make line)
make's own messages may be translated (`エラー 2`), so the first error is found by its
shape (`file:line[:col]: error:`, `Makefile:N: *** ...`, `ERROR: modpost:`), never by a
localised word.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.dkms import stale_tree

_FAILED = re.compile(r"Bad return status for module build on kernel: (?P<kernel>\S+)(?: \((?P<arch>[^)]+)\))?")
_AUTOINSTALL = re.compile(r"dkms autoinstall on (?P<kernel>[^/\s]+)/(?P<arch>\S+) failed for (?P<module>[\w-]+)")
_CONSULT = re.compile(r"Consult (?P<path>/\S*/(?P<module>[\w-]+?)(?:-[\d.]+)?/(?P<version>[^/\s]+)/build/make\.log)")
_LOADING = re.compile(r"Loading new (?P<module>[\w-]+?)-(?P<version>\d[\w.~+-]*) DKMS files")
_BUILDING = re.compile(r"Building initial module (?:(?P<module>[\w-]+)/(?P<version>\S+) )?for (?P<kernel>\S+)")
# DKMS 2: "DKMS make.log for amdgpu-3.8-30 for kernel ..."; DKMS 3 names itself and uses module/version:
# "DKMS (dkms-3.2.0) make.log for amdgpu/6.12.12-2202139.24.04 for kernel 6.17.0-6-generic (x86_64)"
# (ROCm/legacy-rocm-build#5624)
_HEADER = re.compile(r"DKMS (?:\(dkms-[\d.]+\) )?make\.log for (?P<module>[\w-]+?)[-/](?P<version>\d\S*) for kernel (?P<kernel>\S+)")
_GCC_ERROR = re.compile(r"^\s*(?:\d+\s+)?(?P<file>[^\s:]+):\d+(?::\d+)?: (?:fatal )?error: (?P<msg>.+)$")
_MAKE_STOP = re.compile(r"Makefile(?:\.[\w.-]+)?:\d+: \*\*\* (?P<msg>.+)")
_MODPOST = re.compile(r"^\s*(?:ERROR|FATAL): modpost: (?P<msg>.+)$")
# dkms 3.x autoinstall: the module and kernel come first, the build's result after
_AUTOINSTALL_OF = re.compile(r"Autoinstall of module (?P<module>[\w-]+)/(?P<version>\S+) for kernel (?P<kernel>\S+)(?: \((?P<arch>[^)]+)\))?")
_BAD_EXIT = re.compile(r"^Building module\(s\)[.\s]*\(bad exit status: (?P<rc>\d{1,3})\)")
_POSTINST = re.compile(r"(?P<module>amdgpu|rock) dkms failed for running kernel", re.IGNORECASE)
_SANITY_MODULE = re.compile(r"Module version (?P<version>\S+) for (?P<module>[\w-]+)\.ko(?:\.\w+)?$")
_NOT_NEWER = re.compile(r"^is not newer than what is already found in kernel (?P<kernel>\S+) \((?P<existing>[^)]{0,80})\)")
# without a header: the DKMS tree a path goes through (rock-dkms's amdgpu-3.5/30 is the driver "3.5-30") and the
# kernel kbuild builds against (make's directory lines, dkms's KERNELRELEASE=)
_TREE = re.compile(r"/var/lib/dkms/(?P<module>amdgpu|rock)(?:-(?P<series>\d+\.\d+))?/(?P<version>\d[^/\s]*)/(?:build|source)/")
_KBUILD_KERNEL = re.compile(r"(?:Entering|Leaving) directory [`'‘\"](?:/usr/src/linux-headers-(?P<a>[^/'’\"\s]+)|"
                            r"/(?:usr/)?lib/modules/(?P<b>[^/'’\"\s]+)/build)/?['’\"]|\bKERNELRELEASE=(?P<c>[^\s/]+)")
# bat's line-number gutter ("951   │ "; "      │ " on a wrapped line's continuation)
_GUTTER = re.compile(r"^\s*\d{0,7}\s*│ ?")
_GCC_MISMATCH = re.compile(r'"Local GCC version (?P<local>\d+) does not match kernel compiler GCC version (?P<kernel>\d+)"')
# Real DKMS/make lines are short; a pathological line (a binary blob, 100k brackets) must not
# make a search quadratic, so only its head is read and each pattern needs its keyword first.
_LINE_MAX = 2000
# a path of the amdgpu DKMS source tree: its kernel-compatibility layer (amd/amdkcl, include/kcl) or the
# driver under /var/lib/dkms/amdgpu or the package's unpacked /tmp/amd.XXXX tree (amdgpu-dkms's own layout)
_AMD_TREE = re.compile(r"/amd/amdkcl/|/include/kcl/|/var/lib/dkms/amdgpu/|/tmp/amd\.\w+/amd/")


@parser("dkms_build")
def parse_dkms_build(text: str) -> dict[str, Any]:
    """Failed DKMS builds and the first compiler/Makefile error in DKMS console output or a make.log.

    Returns `{failures: [{kernel, arch, module, line, lineno}], module, version, make_log,
    log_kernel, first_error: {line, lineno, msg}|None, errors: int, gcc_mismatch: str|None,
    stale_trees: [{tree, module, version, line, lineno}], refused: [{module, version, kernel,
    existing, line, lineno}], amd_tree: bool}`.
    `log_kernel` is the kernel a make.log header names (without one, the kernel kbuild's lines name; `version`
    then the DKMS tree's); `failures` come from dkms's own
    "Bad return status" / "autoinstall ... failed" lines and the driver package's "dkms failed
    for running kernel" (kernel None: the running one); `stale_trees` are the version
    directories dkms found without a dkms.conf; `refused` the modules dkms built and then would
    not install because the kernel's own copy is "not newer"; `amd_tree` whether the text names the amdgpu
    DKMS source tree (a make.log pasted alone, without dkms's lines). Never fails: any text is read.
    """
    failures: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    sanity: dict[str, Any] | None = None   # "Module version V for M.ko", waiting for its second line
    stale_trees: list[dict[str, Any]] = []
    module = version = make_log = log_kernel = gcc_mismatch = None
    first_error: dict[str, Any] | None = None
    autoinstall: dict[str, Any] | None = None   # dkms 3.x "Autoinstall of module M/V for kernel K", until its result
    errors = 0
    amd_tree = False
    tree: tuple[str, str] | None = None   # (module, version) of the first DKMS tree a path names
    build_kernel: str | None = None       # the kernel kbuild's own lines name
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw[:_LINE_MAX]
        line = (_GUTTER.sub("", line, count=1) if "│" in line else line).strip()
        if not line:
            continue
        if sanity is not None and (m := _NOT_NEWER.match(line)):
            refused.append({**sanity, "kernel": m["kernel"], "existing": m["existing"], "line": f"{sanity['line']} {line}"[:400]})
        sanity = None
        if "Module version" in line and (m := _SANITY_MODULE.search(line)):
            sanity = {"module": m["module"], "version": m["version"], "line": line[:200], "lineno": lineno}
            continue
        if "DKMS" in line and (m := _LOADING.search(line)):
            module, version = module or m["module"], version or m["version"]
        if "Building initial" in line and (m := _BUILDING.search(line)) and m["module"]:
            module, version = module or m["module"], version or m["version"]
        if "make.log for" in line and (m := _HEADER.search(line)):
            module, version, log_kernel = module or m["module"], version or m["version"], m["kernel"]
        if "Consult " in line and (m := _CONSULT.search(line)):
            make_log = m["path"]
            module, version = module or m["module"], version or m["version"]
        if "Autoinstall of module" in line and (m := _AUTOINSTALL_OF.search(line)):
            autoinstall = {"kernel": m["kernel"], "arch": m["arch"], "module": m["module"]}
            module, version = module or m["module"], version or m["version"]
            continue
        if "bad exit status" in line and autoinstall and (m := _BAD_EXIT.match(line)):
            if not any(f["kernel"] == autoinstall["kernel"] for f in failures):
                failures.append({**autoinstall, "line": line, "lineno": lineno})
            continue
        if "Bad return status" in line and (m := _FAILED.search(line)):
            # dkms's own verdict replaces a dkms 3.x "(bad exit status: N)" already read for the same kernel
            failures = [f for f in failures if f["kernel"] != m["kernel"]]
            failures.append({"kernel": m["kernel"], "arch": m["arch"], "module": module, "line": line, "lineno": lineno})
            continue
        if "autoinstall on" in line and (m := _AUTOINSTALL.search(line)):
            if not any(f["kernel"] == m["kernel"] for f in failures):
                failures.append({"kernel": m["kernel"], "arch": m["arch"], "module": m["module"],
                                 "line": line, "lineno": lineno})
            continue
        if "failed for running kernel" in line and (m := _POSTINST.search(line)):
            if not failures:   # dkms's own lines, when there, name the kernel
                failures.append({"kernel": None, "arch": None, "module": m["module"].lower(),
                                 "line": line, "lineno": lineno})
            continue
        if (t := stale_tree(line)) and not any(s["tree"] == t["tree"] for s in stale_trees):
            stale_trees.append({**t, "line": line[:400], "lineno": lineno})
            continue
        if "Local GCC" in line and (m := _GCC_MISMATCH.search(line)):
            gcc_mismatch = f"local GCC {m['local']}, kernel built with {m['kernel']}"
        if not amd_tree and "/" in line and _AMD_TREE.search(line):
            amd_tree = True
        if tree is None and "/var/lib/dkms/" in line and (m := _TREE.search(line)):
            tree = ("amdgpu", f"{m['series']}-{m['version']}" if m["series"] else m["version"])
        if build_kernel is None and ("directory" in line or "KERNELRELEASE=" in line) and (m := _KBUILD_KERNEL.search(line)):
            build_kernel = m["a"] or m["b"] or m["c"]
        hit = (_GCC_ERROR.match(line) if "error:" in line else None) or (_MODPOST.match(line) if "modpost" in line else None)
        if hit is None and "***" in line and "*** [" not in line and "Makefile" in line:
            hit = _MAKE_STOP.search(line)
        if hit:
            errors += 1
            if first_error is None:
                first_error = {"line": line[:400], "lineno": lineno, "msg": hit["msg"].strip()[:300]}
    if version is None and tree is not None:
        module, version = tree
    return {"failures": failures, "module": module, "version": version, "make_log": make_log,
            "log_kernel": log_kernel or build_kernel, "first_error": first_error, "errors": errors, "gcc_mismatch": gcc_mismatch,
            "stale_trees": stale_trees, "refused": refused, "amd_tree": amd_tree}
