"""A stand-in for Slurm's `sinfo` and `scontrol`, for drain/resume tests.

Node state lives in files (`<dir>/state/<node>.state`, `.reason`); every
call's argv is appended NUL-separated to `<dir>/calls`, so a test sees the
exact argument vector rocmdoctor passed (no shell in between). sinfo answers
`--format=%T|%E` as real sinfo does: the extended state in lower case
("idle", "drained", "draining", "down*") and the reason, or "none".
Creating `<dir>/hang` makes both tools hang, like a wedged slurmctld.
"""

from __future__ import annotations

from pathlib import Path

_COMMON = r"""#!/bin/sh
D=%(dir)s
{ printf '%%s\0' "$0" "$@"; printf '\n'; } >> "$D/calls"
[ -e "$D/hang" ] && exec sleep 30
"""

SINFO = _COMMON + r"""
node=""
for a in "$@"; do case "$a" in --nodes=*) node=${a#--nodes=};; esac; done
[ -f "$D/state/$node.state" ] || exit 0
printf '%%s|%%s\n' "$(cat "$D/state/$node.state")" "$(cat "$D/state/$node.reason" 2>/dev/null || echo none)"
"""

SCONTROL = _COMMON + r"""
[ "$1" = update ] || { echo "fake scontrol: only update" >&2; exit 1; }
shift
node=""; state=""; reason=""; hasreason=0
for a in "$@"; do case "$a" in
  NodeName=*) node=${a#NodeName=};;
  State=*) state=${a#State=};;
  Reason=*) reason=${a#Reason=}; hasreason=1;;
esac; done
[ -f "$D/state/$node.state" ] || { echo "slurm_update error: Invalid node name specified" >&2; exit 1; }
case "$state" in
  DRAIN) [ $hasreason = 1 ] || { echo "You must specify a reason when DOWNING or DRAINING a node. Request denied" >&2; exit 1; }
         echo drained > "$D/state/$node.state"; printf '%%s' "$reason" > "$D/state/$node.reason";;
  RESUME) echo idle > "$D/state/$node.state"; rm -f "$D/state/$node.reason";;
  *) echo "fake scontrol: state $state" >&2; exit 1;;
esac
"""


class FakeSlurm:
    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self.bin = self.dir / "bin"
        (self.dir / "state").mkdir(parents=True, exist_ok=True)
        self.bin.mkdir(exist_ok=True)
        for name, body in (("sinfo", SINFO), ("scontrol", SCONTROL)):
            p = self.bin / name
            p.write_text(body % {"dir": str(self.dir)})
            p.chmod(0o755)

    def node(self, name: str, state: str = "idle", reason: str | None = None) -> "FakeSlurm":
        (self.dir / "state" / f"{name}.state").write_text(state + "\n")
        r = self.dir / "state" / f"{name}.reason"
        if reason is None:
            r.unlink(missing_ok=True)
        else:
            r.write_text(reason)
        return self

    def state(self, name: str) -> tuple[str, str | None]:
        r = self.dir / "state" / f"{name}.reason"
        return ((self.dir / "state" / f"{name}.state").read_text().strip(), r.read_text() if r.exists() else None)

    def calls(self) -> list[list[str]]:
        p = self.dir / "calls"
        if not p.exists():
            return []
        return [[Path(line.split("\0")[0]).name, *line.split("\0")[1:-1]]
                for line in p.read_text().split("\n") if line]

    def hang(self, on: bool = True) -> None:
        h = self.dir / "hang"
        h.touch() if on else h.unlink(missing_ok=True)
