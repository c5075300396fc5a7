"""`lspci -n -D` (numeric ids, full domain) lines: which PCI functions exist.

Numeric output is used because names depend on the node's pci.ids version;
ids do not. Format (pciutils lspci.c show_terse): `[dddd:]bb:dd.f cccc: vvvv:dddd
[(rev rr)] [(prog-if pp)]`; `-nn` output (`Class name [cccc]: Vendor name [vvvv:dddd]`)
is read too.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_SLOT = r"(?P<slot>(?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])"
_NUMERIC = re.compile(_SLOT + r" (?P<cls>[0-9a-f]{4}): (?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})(?P<rest>.*)$")
_NAMED = re.compile(_SLOT + r" (?P<clsname>.*?) \[(?P<cls>[0-9a-f]{4})\]: (?P<name>.*) "
                    r"\[(?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})\](?P<rest>.*)$")
_REV = re.compile(r"\(rev (?P<rev>[0-9a-f]{2})\)")
_PROGIF = re.compile(r"\(prog-if (?P<progif>[0-9a-f]{2})")


@parser("lspci")
def parse_lspci(text: str) -> list[dict[str, Any]]:
    """PCI functions from `lspci -n -D` (or `-nn`).

    Returns `[{slot, class, vendor, device, rev, prog_if}]`, ids as lower-case
    hex strings without 0x (`class` "1200", `vendor` "1002", `device` "74a1");
    `slot` gets the `0000:` domain when lspci omitted it; `rev`/`prog_if` None
    when absent. Indented detail lines (from -v) are skipped. Raises ParseError
    on a top-level line in no lspci form.
    """
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line[0] in " \t":
            continue
        m = _NUMERIC.match(line.strip()) or _NAMED.match(line.strip())
        if not m:
            raise ParseError(f"line {lineno} is not an `lspci -n` line: {line[:60]!r}")
        slot = m.group("slot")
        if slot.count(":") == 1:
            slot = "0000:" + slot
        rest = m.group("rest")
        rev = _REV.search(rest)
        progif = _PROGIF.search(rest)
        out.append({
            "slot": slot,
            "class": m.group("cls"),
            "vendor": m.group("vendor"),
            "device": m.group("device"),
            "rev": rev.group("rev") if rev else None,
            "prog_if": progif.group("progif") if progif else None,
        })
    return out
