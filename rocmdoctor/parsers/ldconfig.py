"""`ldconfig -p` (`--print-cache`): the shared libraries the dynamic loader's cache
offers, in the order the cache lists them.

Format from glibc elf/cache.c (print_entry: a tab, the soname, the flags in
parentheses — `libc6,x86-64`, with `, hwcap: ...` or `, OS ABI: ...` appended on
some entries — then ` => ` and the path) after the header "N libs found in cache
`/etc/ld.so.cache'"; a real listing is flox/flox cli/tests/cuda/ldconfig-mock-absent.sh
(`ldconfig --print-cache` in ubuntu:24.04), a ROCm line ROCm/legacy-rocm-build#1274. A probe usually greps the lines it wants,
so the header may be missing; `== no ldconfig` is the probe's own marker that the
tool is not installed.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_ENTRY = re.compile(r"^\s*(?P<soname>\S+) \((?P<flags>[^)]*)\) => (?P<path>/\S.*?)\s*$")
_HEADER = re.compile(r"^\d+ \S")  # "N libs found in cache ...", translated in other locales
_NO_TOOL = "== no ldconfig"


@parser("ldconfig_cache")
def parse_ldconfig_cache(text: str) -> dict[str, Any]:
    """Entries of `ldconfig -p`, in the cache's order.

    Returns `{available: bool, entries: [{soname, flags, arch, path, line}]}`: `arch` is the
    flags' second field (`x86-64`, `AArch64`, "" for 32-bit entries); `available` is False
    only for the probe's `== no ldconfig` marker. Raises ParseError on a line that is
    neither the header nor an entry.
    """
    entries = []
    available = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or _HEADER.match(line):
            continue
        if line == _NO_TOOL:
            available = False
            continue
        m = _ENTRY.match(raw)
        if not m:
            raise ParseError(f"line {lineno} is not an ldconfig cache entry: {line[:80]!r}")
        flags = [f.strip() for f in m["flags"].split(",")]
        entries.append({"soname": m["soname"], "flags": m["flags"], "path": m["path"], "line": line,
                        "arch": flags[1] if len(flags) > 1 and ":" not in flags[1] else ""})
    return {"available": available, "entries": entries}
