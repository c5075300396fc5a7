"""A job's log: the shared libraries the dynamic loader could not find, by soname.

glibc reports a library it cannot open as `<name>: cannot open shared object file: <strerror>`
(elf/dl-load.c, _dl_map_object: `_dl_signal_error (errno, name, NULL, "cannot open shared object
file")`, formatted by dlerror as "name: message: strerror"). A program that fails at start-up prints it
after `<program>: error while loading shared libraries: ` (elf/rtld.c); a dlopen() caller prints dlerror()'s
text in its own words: Python's `ImportError: libamdhip64.so.5: cannot open shared object file: No such
file or directory` (pyg-team/pytorch_geometric ROCm wheels, tests/incidents/gpu-not-visible/
graphml-pygrocm-mi300x-rocm62-wheels-need-libamdhip64-so5), a framework's warning that quotes it
(`Stacktrace: libamdhip64.so.6: cannot open shared object file: ...`, torch_geometric/typing.py).
The name is what the binary asked for: its DT_NEEDED soname, or the path given to dlopen().

ldd lists each DT_NEEDED soname it could not find as `\tlibrocblas.so.3 => not found` and each it found as
`\tlibrocblas.so.4 => /opt/rocm/lib/librocblas.so.4 (0x...)` (glibc elf/rtld.c, trace mode: `"\t%s => not
found\n"`, `"\t%s => %s (0x%0*zx)\n"`; microsoft/onnxruntime#20929 shows both for one library).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_MISSING = re.compile(
    r"(?<![\w.+-])(?P<path>(?:/[^\s:/]{1,120}){0,16}/)?(?P<lib>(?P<base>lib[\w+-]{1,80})\.so(?P<version>(?:\.\d{1,6}){0,4}))"
    r": cannot open shared object file")
_LDD = re.compile(r"^\s+(?P<lib>(?P<base>lib[\w+-]{1,80})\.so(?P<version>(?:\.\d{1,6}){0,4})) => (?:(?P<nf>not found)"
                  r"|(?P<path>/\S{1,300}) \(0x[0-9a-f]{1,16}\))\s*$")


def _major(version: str) -> int | None:
    version = version.lstrip(".")
    return int(version.split(".")[0]) if version else None


@parser("loader_errors")
def parse_loader_errors(text: str) -> dict[str, Any]:
    """Libraries the loader could not open: `{missing: [{lib, base, major, path, lineno, line}]}`, one per
    soname (its first line). `lib` as asked for (`libamdhip64.so.6`), `base` without `.so` and version
    (`libamdhip64`), `major` the soname's first version number (6) or None for an unversioned name,
    `path` the directory a dlopen() path named, or None. `resolved`: the sonames an ldd listing found, with the
    file each resolved to (`path`)."""
    seen: dict[str, dict[str, Any]] = {}
    resolved: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if " => " in line and (m := _LDD.match(line)):
            row = {"lib": m.group("lib"), "base": m.group("base"), "major": _major(m.group("version")),
                   "lineno": n, "line": line.strip()[:300]}
            if m.group("nf"):
                seen.setdefault(m.group("lib"), {**row, "path": None})
            else:
                resolved.setdefault(m.group("lib"), {**row, "path": m.group("path")})
            continue
        if "cannot open shared object file" not in line:
            continue
        for m in _MISSING.finditer(line):
            lib = m.group("lib")
            if lib in seen:
                continue
            seen[lib] = {"lib": lib, "base": m.group("base"), "major": _major(m.group("version")),
                         "path": m.group("path").rstrip("/") if m.group("path") else None,
                         "lineno": n, "line": line.strip()[:300]}
    return {"missing": list(seen.values()), "resolved": list(resolved.values())}
