"""`modinfo <module>`: the module file the next modprobe would load, and its metadata.

`key:  value` lines (module-init-tools / kmod). Keys repeat: `firmware`, `parm`,
`alias`, `softdep`, ... one line each, so those become lists. A `parm` line is
`name:description (type)`, also offered parsed as `parms`. Signature hex
continuation lines (`\t\tAB:CD:...`) are joined onto the key above.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

# keys that kmod prints once per value
MULTI = {"firmware", "parm", "alias", "softdep", "import_ns", "sig_hashalgo_all", "parmtype"}
_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*):\s*(?P<value>.*)$")
_PARM = re.compile(r"^(?P<name>[^:]+):(?P<desc>.*?)(?:\s*\((?P<type>[a-z]+(?: [a-z]+)*|array of \w+)\))?$")


@parser("modinfo")
def parse_modinfo(text: str) -> dict[str, Any]:
    """Fields of `modinfo <module>` output.

    Returns `{key: str}` for single keys (`filename`, `version`, `vermagic`,
    `srcversion`, `depends`, `name`, ...), `{key: [str]}` for repeated keys
    (`firmware`, `parm`, `alias`, ...; always lists, possibly empty for
    firmware/parm), plus `parms: {name: {description, type}}`. Raises
    ParseError on empty text or text without a `filename:` line (modinfo
    prints its "Module x not found" error to stderr, leaving stdout empty).
    """
    out: dict[str, Any] = {"firmware": [], "parm": []}
    last: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line[0] in " \t" and last:
            cont = line.strip()
            if isinstance(out[last], list):
                out[last][-1] += cont
            else:
                out[last] += cont
            continue
        m = _LINE.match(line)
        if not m:
            raise ParseError(f"line {lineno} is not a `modinfo` line: {line[:60]!r}")
        key, value = m.group("key"), m.group("value").rstrip()
        if key in MULTI:
            out.setdefault(key, []).append(value)
        elif key in out:          # an unexpected repeat: keep every value
            prev = out[key]
            out[key] = (prev if isinstance(prev, list) else [prev]) + [value]
        else:
            out[key] = value
        last = key
    if "filename" not in out:
        raise ParseError("no `filename:` line: not `modinfo` output (module not found?)")
    parms: dict[str, dict[str, Any]] = {}
    for p in out["parm"]:
        pm = _PARM.match(p)
        if pm:
            parms[pm.group("name")] = {"description": pm.group("desc").strip(), "type": pm.group("type")}
    out["parms"] = parms
    return out
