"""Regenerate rocmdoctor/catalog/data/codes_*.yaml from the headers that define each numbering.

    python tools/gen_status_codes.py MIRRORS_DIR

MIRRORS_DIR holds bare snapshots of the public repositories named in SOURCES (as the
project's `fetch` tool lays them out: MIRRORS_DIR/<owner>+<name>/repo); Linux's errno
numbers come from the kernel's uapi headers installed on this machine
(/usr/include/asm-generic/errno*.h, Debian's linux-libc-dev). Each table records the
repository, the file and the commit it was read from, so a verdict that names a code
can be traced to the line that defines it. Nothing is typed in by hand except the
OpenCL meanings (cl.h has names only): those are quoted from the OpenCL API
specification's error descriptions, and say so.

Why a generator rather than a hand-made table: the enums carry implicit numbering
(rocm_smi.h counts on from the previous entry) and multi-line doc comments, and they
grow with each release; re-running this on a newer snapshot is the refresh.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[1] / "rocmdoctor" / "catalog" / "data"

#: numbering -> (repository, files, the enum's typedef name or a #define prefix)
SOURCES: dict[str, dict[str, Any]] = {
    "hsa_status": {"repo": "ROCm/ROCR-Runtime", "title": "ROCr (HSA runtime) hsa_status_t",
                   "files": [("runtime/hsa-runtime/inc/hsa.h", "hsa_status_t"),
                             ("runtime/hsa-runtime/inc/hsa_ext_amd.h", "HSA_STATUS_ERROR_INVALID_MEMORY_POOL")]},
    "hip_error": {"repo": "ROCm/HIP", "title": "HIP hipError_t",
                  "files": [("include/hip/hip_runtime_api.h", "hipError_t")],
                  "strings": ("ROCm/clr", "hipamd/src/hip_error.cpp")},
    # HIP before "Unify hipError_t" (ROCm/HIP d8737ba50 and dbad4d9b7, December 2019, first released in ROCm 3.1)
    # numbered its runtime errors from 1001 (hipErrorMemoryAllocation = 1002, hipErrorInvalidDevice = 1010): logs
    # of ROCm 1.x-3.0 print those numbers. Only the 1001+ block is kept; lower values mean what they mean today.
    "hip_error_legacy": {"repo": "ROCm/HIP", "rev": "651a91b5e0e89eca190da45273d841348c73407b",
                         "title": "HIP hipError_t before ROCm 3.1 (runtime errors 1001-1082)",
                         "files": [("include/hip/hip_runtime_api.h", "hipError_t")], "min_value": 1000,
                         "skip": ("hipErrorTbd",)},   # the enum's end marker, not an error
    "amdsmi_status": {"repo": "ROCm/amdsmi", "title": "AMD SMI amdsmi_status_t",
                      "files": [("include/amd_smi/amdsmi.h", "amdsmi_status_t")],
                      "cli": "amdsmi_cli/amdsmi_cli_exceptions.py"},
    "rsmi_status": {"repo": "ROCm/rocm_smi_lib", "title": "ROCm SMI rsmi_status_t",
                    "files": [("include/rocm_smi/rocm_smi.h", "rsmi_status_t")]},
    "opencl": {"repo": "KhronosGroup/OpenCL-Headers", "title": "OpenCL error codes (cl_int)",
               "files": [("CL/cl.h", "CL_"), ("CL/cl_ext.h", "CL_")]},
}

#: OpenCL's headers name the codes only; these meanings are from the OpenCL 3.0 API
#: specification (registry.khronos.org/OpenCL/specs/3.0-unified/html/OpenCL_API.html,
#: the error descriptions of clGetPlatformIDs, clGetDeviceIDs, clCreateBuffer,
#: clBuildProgram, clEnqueueNDRangeKernel) and cl_khr_icd for -1001.
OPENCL_MEANINGS = {
    "CL_DEVICE_NOT_FOUND": "no OpenCL devices that matched the requested device type were found",
    "CL_DEVICE_NOT_AVAILABLE": "the device is currently not available",
    "CL_COMPILER_NOT_AVAILABLE": "no compiler is available for the device",
    "CL_MEM_OBJECT_ALLOCATION_FAILURE": "failure to allocate memory for a buffer or image object",
    "CL_OUT_OF_RESOURCES": "failure to allocate resources required by the OpenCL implementation on the device",
    "CL_OUT_OF_HOST_MEMORY": "failure to allocate resources required by the OpenCL implementation on the host",
    "CL_BUILD_PROGRAM_FAILURE": "failure to build the program executable for the device",
    "CL_INVALID_VALUE": "an argument's value is not valid",
    "CL_INVALID_DEVICE": "the device is not valid or not associated with the context",
    "CL_INVALID_PLATFORM": "the platform is not a valid platform",
    "CL_INVALID_CONTEXT": "the context is not a valid context",
    "CL_INVALID_BUFFER_SIZE": "the buffer size is 0 or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE",
    "CL_INVALID_BINARY": "a program binary is not valid for the device",
    "CL_INVALID_KERNEL_NAME": "no kernel of that name in the program",
    "CL_INVALID_WORK_GROUP_SIZE": "the work-group size is not valid for the kernel or the device",
    "CL_INVALID_OPERATION": "the operation is not valid in the current state",
    "CL_PLATFORM_NOT_FOUND_KHR": "the ICD loader found no OpenCL platform (no vendor ICD registered or loadable)",
}

_NUM = r"(?:0[xX][0-9a-fA-F]+|-?\d+)"


def git_show(mirrors: Path, repo: str, path: str, rev: str = "HEAD") -> tuple[str, str]:
    """(file text, commit) from a bare mirror, at `rev` (the snapshot's HEAD unless a table pins an older header)."""
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    commit = subprocess.run(["git", "-C", str(git_dir), "rev-parse", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    text = subprocess.run(["git", "-C", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, text=True,
                          check=True).stdout
    return text, commit


def _clean_comment(parts: list[str]) -> str:
    text = " ".join(p.strip().lstrip("*").strip() for p in parts)
    text = re.sub(r"@\w+\s*", "", text)
    return re.sub(r"\s+", " ", text).strip()


def parse_enum(text: str, anchor: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Entries of the C enum that ends with `} anchor;` (or holds the member `anchor`):
    name, value (implicit values counted on), meaning from its /** */ or //!< ///< comment."""
    if anchor.endswith("_t"):
        end = re.search(r"\}\s*" + re.escape(anchor) + r"\s*;", text)
        if end is None:
            raise SystemExit(f"enum {anchor} not found")
        # the enum's own opening brace: the first '{' after the last 'enum' before its closing '}'
        start = text.rfind("enum", 0, end.start())
        body = text[text.index("{", start) + 1: end.start()]
    else:
        at = text.index(anchor)
        start = text.rfind("{", 0, at)
        body = text[start + 1: text.index("}", at)]
    entries: list[dict[str, Any]] = []
    aliases: dict[str, str] = {}
    pending_doc: list[str] = []
    nxt = 0
    last: dict[str, Any] | None = None
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if line.startswith("/**"):
            doc = [line[3:]]
            while "*/" not in doc[-1] and i < len(lines):
                doc.append(lines[i])
                i += 1
            doc[-1] = doc[-1].split("*/")[0]
            pending_doc = doc
            continue
        if re.fullmatch(r"\w+\s*=", line) and i < len(lines):  # clang-format split "name =" from its value
            line = f"{line} {lines[i].strip()}"
            i += 1
        m = re.match(r"(\w+)\s*(?:=\s*(" + _NUM + r"|\w+))?\s*,?\s*(?://[!/]<\s*(.*))?$", line)
        if m and not line.startswith("//"):
            name, value, trailing = m.group(1), m.group(2), m.group(3)
            if value is not None and not re.fullmatch(_NUM, value):
                aliases[name] = value
                pending_doc = []
                continue
            number = int(value, 0) if value is not None else nxt
            nxt = number + 1
            meaning = _clean_comment(pending_doc) if pending_doc else (trailing or "").strip()
            if any(e["value"] == number for e in entries):
                aliases[name] = next(e["name"] for e in entries if e["value"] == number)
            else:
                last = {"name": name, "value": number, "meaning": meaning}
                entries.append(last)
            pending_doc = []
            continue
        m = re.match(r"//[!/]<\s*(.*)", line)
        if m and last is not None:  # a continued trailing comment
            last["meaning"] = (last["meaning"] + " " + m.group(1).strip()).strip()
    for e in entries:
        e["meaning"] = re.sub(r"\s+", " ", e["meaning"]).strip()
    return entries, aliases


def parse_defines(text: str, prefix: str, negative_only: bool = True) -> list[dict[str, Any]]:
    out = []
    for m in re.finditer(r"^#define\s+(" + prefix + r"\w+)\s+(-\d+|0)\b", text, re.M):
        value = int(m.group(2))
        if negative_only and value > 0:
            continue
        if m.group(1) in ("CL_BUILD_NONE", "CL_BUILD_ERROR", "CL_BUILD_IN_PROGRESS"):
            continue  # cl_build_status values, not error codes
        out.append({"name": m.group(1), "value": value, "meaning": OPENCL_MEANINGS.get(m.group(1), "")})
    return out


def hip_strings(text: str) -> dict[str, str]:
    """hipGetErrorString()'s text per code, from CLR's ihipGetErrorString switch."""
    body = text[text.index("ihipGetErrorString"):]
    return dict(re.findall(r"case (hip\w+):\s*return \"([^\"]*)\";", body))


def amdsmi_cli(text: str) -> list[dict[str, Any]]:
    """amd-smi's own exit codes: -1..-9, -100, and -1000 - |library status| (amdsmi_cli_exceptions.py)."""
    out = []
    for m in re.finditer(r"class (AmdSmi\w+Exception)\(AmdSmiException\):.*?self\.value = (-\d+)(.*?)common_message = (f?\"[^\n]*)",
                         text, re.S):
        out.append({"name": m.group(1), "value": int(m.group(2)), "message": m.group(4).lstrip("f").strip('"')})
    return out


def errno_table() -> dict[str, Any]:
    entries, aliases = [], {}
    for header in ("/usr/include/asm-generic/errno-base.h", "/usr/include/asm-generic/errno.h"):
        for m in re.finditer(r"^#define\s+(E\w+)\s+(\w+)\s*(?:/\*\s*(.*?)\s*\*/)?", Path(header).read_text(), re.M):
            name, value, meaning = m.groups()
            if value.isdigit():
                entry = {"name": name, "value": int(value), "meaning": meaning or ""}
                if header.endswith("/errno.h"):
                    entry["file"] = "include/uapi/asm-generic/errno.h"
                entries.append(entry)
            else:
                aliases[name] = value
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "linux-libc-dev"], capture_output=True,
                             text=True).stdout.strip()
    return {"numbering": "errno", "title": "Linux errno",
            "sources": [{"repo": "torvalds/linux", "file": "include/uapi/asm-generic/errno-base.h"},
                        {"repo": "torvalds/linux", "file": "include/uapi/asm-generic/errno.h",
                         "read_from": f"Debian linux-libc-dev {version}"}],
            "codes": entries, "aliases": aliases}


def build(mirrors: Path) -> dict[str, dict[str, Any]]:
    tables = {"errno": errno_table()}
    for numbering, spec in SOURCES.items():
        codes: list[dict[str, Any]] = []
        aliases: dict[str, str] = {}
        sources = []
        for path, anchor in spec["files"]:
            text, commit = git_show(mirrors, spec["repo"], path, spec.get("rev", "HEAD"))
            sources.append({"repo": spec["repo"], "file": path, "commit": commit})
            if numbering == "opencl":
                got, al = parse_defines(text, "CL_"), {}
            else:
                got, al = parse_enum(text, anchor)
            got = [c for c in got if c["value"] >= spec.get("min_value", c["value"]) and c["name"] not in spec.get("skip", ())]
            al = {k: v for k, v in al.items() if v in {c["name"] for c in got}}
            known = {c["value"]: c["name"] for c in codes}
            for c in got:
                if c["value"] in known:  # a second name for a value already listed is an alias
                    if c["name"] != known[c["value"]]:
                        aliases[c["name"]] = known[c["value"]]
                    continue
                known[c["value"]] = c["name"]
                codes.append({**c, "file": path} if sources[1:] else c)  # a later header's codes name their file
            aliases.update(al)
        table: dict[str, Any] = {"numbering": numbering, "title": spec["title"], "sources": sources}
        if "strings" in spec:
            repo, path = spec["strings"]
            text, commit = git_show(mirrors, repo, path)
            sources.append({"repo": repo, "file": path, "commit": commit, "what": "hipGetErrorString() text"})
            strings = hip_strings(text)
            for c in codes:
                if c["name"] in strings:
                    c["message"] = strings[c["name"]]
        if "cli" in spec:
            text, commit = git_show(mirrors, spec["repo"], spec["cli"])
            sources.append({"repo": spec["repo"], "file": spec["cli"], "commit": commit,
                            "what": "amd-smi's exit codes (`Error code: -N`; -1000 - N is library status N)"})
            table["cli_codes"] = amdsmi_cli(text)
        table["codes"] = codes
        table["aliases"] = aliases
        tables[numbering] = table
    return tables


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for numbering, table in build(Path(argv[1])).items():
        path = OUT / f"codes_{numbering}.yaml"
        head = (f"# {table['title']}: generated by tools/gen_status_codes.py from the sources below;\n"
                "# do not edit by hand, re-run the generator on newer snapshots instead.\n")
        path.write_text(head + yaml.safe_dump(table, sort_keys=False, width=110, allow_unicode=True), encoding="utf-8")
        print(f"{path.relative_to(OUT.parents[2])}: {len(table['codes'])} codes, {len(table['aliases'])} aliases")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
