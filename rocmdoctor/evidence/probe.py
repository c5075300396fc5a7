"""The probe: all read-only evidence of a triage gathered by ONE shell script.

A node is asked once per triage. Every gather is compiled into a POSIX sh
function call; commands run in parallel in the background, each under
`timeout`, while files are read. The output is framed by headers carrying a
random nonce, so nothing a node prints (file contents, hostile file names)
can forge a frame.

Frame header:  \\n@@RD:<nonce>:<index>:<tag>:<detail>\\n
tags: file (detail=path), stat (detail=path), missing, denied, out, err, rc (detail="rc ms"), env
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from dataclasses import dataclass
from typing import Mapping

from rocmdoctor.results import CommandResult, Evidence

GATHER_KINDS = ("file", "tail", "glob", "stat", "command", "env")
DEFAULT_COMMAND_TIMEOUT = 10.0
FILE_MAX_BYTES = 1 << 20
GLOB_MAX_BYTES = 1 << 16


@dataclass(frozen=True)
class GatherSpec:
    """One piece of read-only evidence. `target` is a path, glob, argv or env name."""

    kind: str
    target: str | tuple[str, ...]
    timeout: float = DEFAULT_COMMAND_TIMEOUT

    @property
    def key(self) -> str:
        if self.kind == "command":
            return "command:" + shlex.join(self.target)  # type: ignore[arg-type]
        return f"{self.kind}:{self.target}"

    @property
    def source(self) -> str:
        """How a person would gather the same evidence by hand."""
        if self.kind == "command":
            return shlex.join(self.target)  # type: ignore[arg-type]
        if self.kind == "file":
            return f"cat {self.target}"
        if self.kind == "tail":
            return f"tail -c 1M {self.target}"
        if self.kind == "glob":
            return f"head {self.target}"
        if self.kind == "stat":
            return f"stat {self.target}"
        return f"echo ${self.target}"


@dataclass(frozen=True)
class Probe:
    script: str
    nonce: str
    gathers: tuple[GatherSpec, ...]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.script.replace(self.nonce, "NONCE").encode()).hexdigest()[:16]


_PRELUDE = r"""
export LC_ALL=C
T=$(mktemp -d 2>/dev/null || echo /tmp/rocmdoctor.$$) ; mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
h() { printf '\n@@RD:%s:%s:%s:%s\n' "$N" "$1" "$2" "$3"; }
f() { if [ -e "$R$2" ]; then if [ -r "$R$2" ]; then h "$1" file "$2"; head -c $3 "$R$2" 2>/dev/null; else h "$1" denied "$2"; fi; else h "$1" missing "$2"; fi; }
t() { if [ -e "$R$2" ]; then if [ -r "$R$2" ]; then h "$1" file "$2"; tail -c $3 "$R$2" 2>/dev/null; else h "$1" denied "$2"; fi; else h "$1" missing "$2"; fi; }
g() { o=0; for p in $R$2; do [ -f "$p" ] || continue; o=1; if [ -r "$p" ]; then h "$1" file "${p#"$R"}"; head -c $3 "$p" 2>/dev/null; else h "$1" denied "${p#"$R"}"; fi; done; [ $o = 1 ] || h "$1" missing "$2"; }
s() { o=0; for p in $R$2; do [ -e "$p" ] || continue; o=1; h "$1" stat "${p#"$R"}"; stat -L -c '%F|%a|%u|%g|%t|%T|%Y' "$p" 2>&1; done; [ $o = 1 ] || h "$1" missing "$2"; }
v() { if eval "[ -n \"\${$2+x}\" ]"; then h "$1" env "$2"; eval "printf '%s' \"\$$2\""; else h "$1" missing "$2"; fi; }
c() { i=$1; t=$2; shift 2
  if ! command -v "$1" >/dev/null 2>&1; then echo missing > "$T/$i.st"; return; fi
  ( a=$(date +%s%N 2>/dev/null); timeout -k 2 "$t" "$@" >"$T/$i.out" 2>"$T/$i.err" </dev/null; r=$?
    b=$(date +%s%N 2>/dev/null); echo "$r $(( (b - a) / 1000000 ))" > "$T/$i.rc" ) &
}
C() { if [ -f "$T/$1.st" ]; then h "$1" missing "$2"; return; fi
  h "$1" out ""; cat "$T/$1.out" 2>/dev/null; h "$1" err ""; cat "$T/$1.err" 2>/dev/null; h "$1" rc "$(cat "$T/$1.rc" 2>/dev/null)"; }
"""


def build_probe(gathers: list[GatherSpec] | tuple[GatherSpec, ...], *, root: str = "",
                env: Mapping[str, str] | None = None) -> Probe:
    nonce = os.urandom(8).hex()  # what secrets.token_hex does, without importing random
    lines = [
        "# rocmdoctor probe: read-only evidence gathering, one round trip",
        f"N={nonce}",
        f"R={shlex.quote(root.rstrip('/'))}",
        'export ROCMDOCTOR_ROOT="$R"',   # commands that read files (a gather's `sh -c`) honour --rootfs too
    ]
    for name, value in sorted((env or {}).items()):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"bad environment variable name: {name!r}")
        lines.append(f"export {name}={shlex.quote(value)}")
    lines.append(_PRELUDE.strip())
    lines.append("IFS=''")
    commands: list[tuple[int, GatherSpec]] = []
    for i, g in enumerate(gathers):
        if g.kind == "command":
            argv = " ".join(shlex.quote(a) for a in g.target)  # type: ignore[union-attr]
            lines.append(f"c {i} {int(max(1, g.timeout))} {argv}")
            commands.append((i, g))
    for i, g in enumerate(gathers):
        t = shlex.quote(str(g.target)) if g.kind != "command" else ""
        if g.kind == "file":
            lines.append(f"f {i} {t} {FILE_MAX_BYTES}")
        elif g.kind == "tail":
            lines.append(f"t {i} {t} {FILE_MAX_BYTES}")
        elif g.kind == "glob":
            lines.append(f"g {i} {t} {GLOB_MAX_BYTES}")
        elif g.kind == "stat":
            lines.append(f"s {i} {t}")
        elif g.kind == "env":
            lines.append(f"v {i} {t}")
    if commands:
        lines.append("wait")
        for i, g in commands:
            lines.append(f"C {i} {shlex.quote(g.target[0])}")  # type: ignore[index]
    lines.append("h end end end")
    return Probe(script="\n".join(lines) + "\n", nonce=nonce, gathers=tuple(gathers))


def probe_timeout(gathers: list[GatherSpec] | tuple[GatherSpec, ...]) -> float:
    """Commands run in parallel, so the probe takes about its slowest command."""
    longest = max((g.timeout for g in gathers if g.kind == "command"), default=0.0)
    return longest + 15.0


def _frames(nonce: str, text: str) -> list[tuple[int | None, str, str, str]]:
    header = re.compile(r"\n@@RD:" + re.escape(nonce) + r":([^:\n]*):([^:\n]*):([^\n]*)\n")
    matches = list(header.finditer(text))
    frames = []
    for n, m in enumerate(matches):
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        idx = int(m.group(1)) if m.group(1).isdigit() else None
        frames.append((idx, m.group(2), m.group(3), text[m.end():end]))
    return frames


def parse_probe_output(probe: Probe, result: CommandResult) -> dict[str, Evidence]:
    """Turn probe output into one Evidence per gather; nothing is ever dropped silently."""
    per: dict[int, list[tuple[str, str, str]]] = {}
    completed = False
    for idx, tag, detail, body in _frames(probe.nonce, result.stdout):
        if idx is None:
            completed = completed or tag == "end"
            continue
        per.setdefault(idx, []).append((tag, detail, body))
    evidence: dict[str, Evidence] = {}
    for i, g in enumerate(probe.gathers):
        frames = per.get(i)
        if not frames:
            if result.timed_out:
                reason = f"the probe timed out after {result.duration_ms / 1000:.1f}s before this was read"
                status = "timeout"
            elif not completed:
                reason = f"the probe did not complete (exit {result.exit_status}): {result.stderr.strip()[:200]}"
                status = "error"
            else:
                reason, status = "no output for this gather", "error"
            evidence[g.key] = Evidence(g.key, g.kind, g.source, status, None, reason)
            continue
        evidence[g.key] = _to_evidence(g, frames)
    return evidence


def _to_evidence(g: GatherSpec, frames: list[tuple[str, str, str]]) -> Evidence:
    tags = [f[0] for f in frames]
    if g.kind in ("file", "tail", "env"):
        tag, detail, body = frames[0]
        if tag == "missing":
            return Evidence(g.key, g.kind, g.source, "missing", None, f"{g.target}: not found")
        if tag == "denied":
            return Evidence(g.key, g.kind, g.source, "denied", None, f"{g.target}: permission denied")
        return Evidence(g.key, g.kind, g.source, "ok", body)
    if g.kind == "glob":
        if tags == ["missing"]:
            return Evidence(g.key, g.kind, g.source, "ok", {})
        files = {d: b for t, d, b in frames if t == "file"}
        denied = [d for t, d, _ in frames if t == "denied"]
        if denied and not files:
            return Evidence(g.key, g.kind, g.source, "denied", None, f"permission denied: {', '.join(denied[:3])}")
        return Evidence(g.key, g.kind, g.source, "ok", files)
    if g.kind == "stat":
        stats: dict[str, dict[str, object]] = {}
        for t, d, b in frames:
            if t != "stat":
                continue
            parts = b.strip().split("|")
            if len(parts) in (4, 6, 7) and parts[2].isdigit():
                stats[d] = {"type": parts[0], "mode": parts[1], "uid": int(parts[2]), "gid": int(parts[3])}
                if len(parts) >= 6 and parts[0].endswith("special file"):   # %t %T: device major, minor in hex
                    try:
                        stats[d]["major"], stats[d]["minor"] = int(parts[4], 16), int(parts[5], 16)
                    except ValueError:
                        pass
                if len(parts) == 7 and parts[6].isdigit():   # %Y: modified, seconds since the epoch
                    stats[d]["mtime"] = int(parts[6])
            else:
                stats[d] = {"type": "unknown", "error": b.strip()}
        return Evidence(g.key, g.kind, g.source, "ok", stats)
    # command
    if tags == ["missing"]:
        return Evidence(g.key, g.kind, g.source, "missing", None, f"{g.target[0]}: command not found")
    body = {t: b for t, _, b in frames}
    rc_text = next((d for t, d, _ in frames if t == "rc"), "").split()
    rc = int(rc_text[0]) if rc_text and rc_text[0].lstrip("-").isdigit() else -1
    ms = int(rc_text[1]) if len(rc_text) > 1 and rc_text[1].lstrip("-").isdigit() else 0
    value = {"rc": rc, "stdout": body.get("out", ""), "stderr": body.get("err", ""), "duration_ms": ms}
    if rc in (124, 137):
        return Evidence(g.key, g.kind, g.source, "timeout", value,
                        f"{g.source}: timed out after {g.timeout:g}s")
    if rc == 126:
        return Evidence(g.key, g.kind, g.source, "denied", value, f"{g.source}: permission denied")
    return Evidence(g.key, g.kind, g.source, "ok", value)
