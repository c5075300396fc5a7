"""A strict reader of the Prometheus text exposition format, for tests.

prometheus_client is not a dependency; this checks what node_exporter's
textfile collector requires: HELP then TYPE once per family, samples of a
family contiguous, `name{label="value",...} number` lines, escaped labels.
"""

from __future__ import annotations

import re

# the text exposition format, strictly: name{label="value",...} number
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
_SAMPLE = re.compile(rf"^({_NAME})(\{{{_LABEL}(?:,{_LABEL})*\}})? (-?[0-9.e+]+|NaN|[+-]Inf)$")
_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> dict[str, dict]:
    """A strict parser: every family has HELP then TYPE before its samples, once, contiguous."""
    assert text.endswith("\n")
    families: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in families, f"family {name} appears twice"
            families[name] = {"help": line.split(" ", 3)[3], "samples": []}
            current = name
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert name == current and kind in ("gauge", "counter")
            families[name]["type"] = kind
        else:
            m = _SAMPLE.match(line)
            assert m, f"not a valid sample line: {line!r}"
            assert m.group(1) == current and "type" in families[current]
            labels = {k: v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
                      for k, v in _LABEL_RE.findall(m.group(2) or "")}
            families[current]["samples"].append((labels, float(m.group(3))))
    return families
