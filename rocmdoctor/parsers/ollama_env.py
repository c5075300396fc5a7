"""The runtime environment ollama logs: HSA_OVERRIDE_GFX_VERSION as the server saw it.

A ticket rarely holds `env` from inside ollama's service or container, but ollama prints the
variables it runs the ROCm runtime under. Real forms (ollama's own log lines):

- `level=INFO source=amd_linux.go:304 msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION="\\"11.0.3\\""`
  (gpu/amd_linux.go since v0.1.3x: `slog.Info(..., "HSA_OVERRIDE_GFX_VERSION", gfxOverride)`; Go's slog
  text handler quotes a value holding quotes or spaces with strconv.Quote, so the value here is
  `"11.0.3"` WITH its quote characters; ollama/ollama#4358's paste);
- `... msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=9.0.0` (bare; ollama/ollama#6336);
- `routes.go:1125: INFO server config env="map[... HSA_OVERRIDE_GFX_VERSION:10.3.0 OLLAMA_DEBUG:true ...]"`
  (envconfig's map, v0.3.x, ollama/ollama#6673; an unset variable prints `HSA_OVERRIDE_GFX_VERSION: `);
- `runner.go:485 WARN msg="user overrode visible devices" HSA_OVERRIDE_GFX_VERSION=11.0.0`
  (Crosstalk-Solutions/project-nomad#810).

Shell lines (`HSA_OVERRIDE_GFX_VERSION="11.0.2" ollama serve`) are not ollama's and are left out:
their quotes are the shell's, not part of the value.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocmdoctor.parsers import parser

_SLOG = re.compile(r'msg="(?:skipping rocm gfx compatibility check|user overrode visible devices)"'
                   r'.*?\bHSA_OVERRIDE_GFX_VERSION=(?P<value>"(?:[^"\\]|\\.){0,80}"|[^\s"]{0,40})(?:\s|$)')
_MAP = re.compile(r'server config env="map\[.*?\bHSA_OVERRIDE_GFX_VERSION:(?P<value>[^\s\]]{0,40})[\s\]]')


def _slog_value(raw: str) -> str:
    """A slog text value as the program held it: a quoted one is Go's strconv.Quote, which JSON reads."""
    if raw.startswith('"'):
        try:
            return str(json.loads(raw))
        except ValueError:
            return raw.strip('"')
    return raw


@parser("ollama_env")
def parse_ollama_env(text: str) -> dict[str, Any]:
    """`{override: value | None, lineno, line}`: the last HSA_OVERRIDE_GFX_VERSION ollama logged (None when
    none is logged, or its config map shows the variable unset)."""
    value: str | None = None
    where: tuple[int, str] | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "HSA_OVERRIDE_GFX_VERSION" not in raw:
            continue
        m = _SLOG.search(raw)
        if m:
            value, where = _slog_value(m.group("value")), (lineno, raw.strip())
            continue
        m = _MAP.search(raw)
        if m:
            value = m.group("value") or None
            where = (lineno, raw.strip()) if value else None
    return {"override": value, "lineno": where[0] if where else None, "line": where[1] if where else None}
