"""The LLVM shared libraries a process's text names: backtraces, /proc/<pid>/maps, ldd.

LLVM's command-line option registry is global to a process, so two LLVM releases in one process abort it
(llvm/lib/Support/CommandLine.cpp: "registered more than once"), or one calls into the other and crashes.
ROCm's compiler support (comgr, loaded by HIP and ROCm's OpenCL) carries its own LLVM; Mesa's drivers and
applications (Blender's OpenShadingLanguage) load another. Real forms the text shows them in:

- glibc's backtrace_symbols, as a crash log prints it (Blender's crash report in NixOS/nixpkgs#530702; PR #504149 explains it):
  `/nix/store/...-llvm-22.0.0-rocm-lib/lib/libLLVM.so.22.0(+0x2d56da3) [0x7bfa58556da3]` and
  `/nix/store/...-llvm-19.1.7-lib/lib/libLLVM.so.19.1(_ZN4llvm15AnalysisManager...+0x4c5) [0x7bfb2f6223c5]`;
- ldd (AdaptiveCpp/AdaptiveCpp#1403): `libLLVM-17.so.1 => /lib/x86_64-linux-gnu/libLLVM-17.so.1 (0x00007f338789a000)`;
- a gdb or maps path: `/usr/lib/llvm/23/lib64/libLLVM.so.23.1` (inode64/inode64-overlay#56);
- Fedora's gdb, which names the package of every library the process loaded when their debug symbols are
  missing: `Missing rpms, try: dnf --enablerepo='*debug*' install ... llvm18-libs-debuginfo-18.1.8-4.fc41.x86_64
  clang-libs-debuginfo-19.1.7-3.fc41.x86_64 ...` (ROCm/clr#155: clinfo with ROCm's and Mesa's OpenCL). The
  package's version is the LLVM release (clang-libs' libclang-cpp is built with, and needs, the libLLVM of
  its own release).

The version is the soname's (`libLLVM.so.22.0` -> 22, `libLLVM-17.so.1` -> 17); libLLVMSPIRVLib and other
`libLLVM<Name>` component libraries are not LLVM itself and are left out.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

# the path (if any) and the soname: libLLVM.so.22.0 | libLLVM-17.so.1 | libLLVM.so.19.1git | libLLVM-15.so
_RPM = re.compile(r"\b(?P<pkg>(?:llvm|clang)\d{0,3}-libs)-debuginfo-(?P<major>\d{1,3})\.\d{1,3}[\w.+-]*")
_LIB = re.compile(r"(?P<path>[\w./+@-]{0,300}?)(?P<so>\blibLLVM(?:-(?P<dash>\d{1,3})(?:\.\d{1,3})?)?\.so(?:\.(?P<dot>\d{1,3})(?:\.\d{1,3}){0,2}(?:git)?)?)")


@parser("llvm_copies")
def parse_llvm_copies(text: str) -> dict[str, Any]:
    """`{copies: [{major, library, lineno, line}], majors: [...]}`: each LLVM release named, with the first line
    that names it (an unversioned `libLLVM.so` is left out: it says nothing about which release)."""
    copies: dict[int, dict[str, Any]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "-libs-debuginfo-" in raw:
            for r in _RPM.finditer(raw):
                major = int(r.group("major"))
                if major not in copies:
                    copies[major] = {"major": major, "library": r.group(0), "lineno": lineno, "line": raw.strip()[:300]}
        if "libLLVM" not in raw:
            continue
        for m in _LIB.finditer(raw):
            ver = m.group("dash") or m.group("dot")
            if ver is None:
                continue
            major = int(ver)
            if major not in copies:
                library = (m.group("path") or "") + m.group("so")
                copies[major] = {"major": major, "library": library, "lineno": lineno, "line": raw.strip()[:300]}
    found = sorted(copies.values(), key=lambda c: c["lineno"])
    return {"copies": found, "majors": sorted(copies)}
