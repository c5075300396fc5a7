"""The OpenCL ICD files a node registers (/etc/OpenCL/vendors/*.icd), as a ticket pastes them or a node holds them.

An ICD file holds one line, the library the OpenCL ICD loader dlopens. ROCm's packages write `libamdocl64.so` into
`amdocl64.icd`, or `amdocl64_<patch>_<release>.icd` for a numbered release, from their postinst script (ROCm/clr
opencl/CMakeLists.txt OPENCL_AMD_ICD_FILE, opencl/packaging/rocm-opencl.postinst: `echo libamdocl64.so >
/etc/OpenCL/vendors/@OPENCL_AMD_ICD_FILE@`); Mesa's are `mesa.icd` (Clover, libMesaOpenCL.so.1) and `rusticl.icd`
(libRusticlOpenCL.so.1). ocl-icd, one of the two ICD loaders distributions ship, dlopens the library of every file
it finds (ocl_icd_loader.c `_open_drivers`/`_load_icd`, no check for a library already loaded; the Khronos loader
skips an "already loaded vendor", loader/icd.c), so two files naming libamdocl64.so register ROCm's platform twice.

Real forms read here:
- GNU `ls -l` of the directory (darktable-org/darktable#19603: `-rw-r--r-- 1 root root 15 Apr 12  2021
  amdocl64_40100.icd`, one per ROCm release installed since 2021) or of one file by path
  (`-rw-r--r-- 1 root root 155 Apr 15 16:35 /etc/OpenCL/vendors/mesa.icd`, arrayfire/arrayfire#1758);
- a bare path per line (`rpm -ql`, `find`: `/etc/OpenCL/vendors/rusticl.icd`, ROCm/ROCm#3664);
- ocl-icd's own debug trace under OCL_ICD_DEBUG (`ocl-icd(ocl_icd_loader.c:265): _open_driver: Considering file
  '/etc/OpenCL/vendors//amdocl64_40000.icd'`, illinois-scicomp/machine-shop-maintenance#57; ocl_icd_loader.c
  `debug(D_LOG, "Considering file '%s'", ...)`);
- `cat <file>.icd` followed by the library the file names (`libMesaOpenCL.so.1`).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_LS_LONG = re.compile(
    r"^[-l][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+\w{3}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})\s+"
    r"(?P<path>\S{0,200}?(?P<name>[\w.+@-]{1,120}\.icd))(?:\s+->\s+\S+)?\s*$")
_PATH = re.compile(r"^\s*(?P<path>/\S{0,200}/OpenCL/vendors/+(?P<name>[\w.+@-]{1,120}\.icd))\s*$")
_TRACE = re.compile(r"Considering file '(?P<path>\S{0,200}/(?P<name>[\w.+@-]{1,120}\.icd))'")
_CAT = re.compile(r"\bcat\s+(?:\S{0,200}/)?(?P<name>[\w.+@-]{1,120}\.icd)\s*$")
_LIBRARY = re.compile(r"^\s*(?P<lib>(?:/\S{1,200}/)?lib[\w.+-]{1,80}\.so(?:\.\d{1,3}){0,3})\s*$")
_BARE_LS = re.compile(r"^(?:[\w.+@-]{1,120}\.icd\s+)*[\w.+@-]{1,120}\.icd\s*$")


def runtime_of(name: str, library: str | None) -> str | None:
    """Which OpenCL runtime a file registers, from the library it names or, in a listing, from its file name."""
    lib = (library or "").lower()
    if "amdocl" in lib or (not lib and name.startswith("amdocl64")):
        return "rocm"
    if "rusticl" in lib or (not lib and name.startswith("rusticl")):
        return "mesa-rusticl"
    if "mesaopencl" in lib or (not lib and name == "mesa.icd"):
        return "mesa-clover"
    return None


@parser("opencl_icds")
def parse_opencl_icds(text: str) -> dict[str, Any]:
    """`{files: [{name, library, runtime, lineno, line}]}`: each ICD file the text lists (first mention), with the
    library a `cat` of it shows (else None) and the runtime it registers (`rocm`, `mesa-clover`, `mesa-rusticl`,
    or None when neither name nor library says)."""
    files: dict[str, dict[str, Any]] = {}
    lines = text.splitlines()
    pending: str | None = None
    for lineno, raw in enumerate(lines, 1):
        if ".icd" not in raw:
            if pending and raw.strip():
                lib = _LIBRARY.match(raw)
                if lib and pending in files:
                    files[pending]["library"] = lib.group("lib")
                pending = None
            continue
        names: list[str] = []
        cat = _CAT.search(raw)
        if cat:
            pending = cat.group("name")
            names.append(pending)
        for pattern in (_LS_LONG, _PATH):
            m = pattern.match(raw)
            if m:
                names.append(m.group("name"))
        trace = _TRACE.search(raw)
        if trace:
            names.append(trace.group("name"))
        if not names and _BARE_LS.match(raw.strip()):
            names.extend(raw.split())
        for name in names:
            files.setdefault(name, {"name": name, "library": None, "lineno": lineno, "line": raw.strip()[:300]})
    for f in files.values():
        f["runtime"] = runtime_of(f["name"], f["library"])
    return {"files": sorted(files.values(), key=lambda f: f["lineno"])}


@parser("opencl_icd_file")
def parse_opencl_icd_file(text: str) -> dict[str, Any]:
    """One ICD file's content: `{library, runtime}` (the library on its first line, the runtime it registers)."""
    library = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return {"library": library or None, "runtime": runtime_of("", library) if library else None}
