"""Replay transport: answer the probe from a captured bundle.

The same checks and runbooks run on the bundle as on a live node. Whatever
the bundle does not hold comes back as status `unavailable`, reason "not in
bundle", which makes a check UNKNOWN: never a pass, never a crash.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Any

from rocmdoctor.evidence.bundle import Bundle, command_dir, file_member, read_bundle
from rocmdoctor.errors import TargetError
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.results import CommandResult, Evidence
from rocmdoctor.transports.base import Transport

NOT_IN_BUNDLE = "not in bundle"
LISTINGS = "listings/"   # pasted `ls -l` text (hand-written bundles): answers `stat` gathers


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """fnmatch, but `*` and `?` do not cross `/`, as in the shell."""
    parts = [fnmatch.translate(seg)[4:-3] for seg in pattern.lstrip("/").split("/")]
    return re.compile("^files/" + "/".join(parts) + r"\Z", re.DOTALL)


class ReplayTransport(Transport):
    replays = True

    def __init__(self, bundle: Bundle, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bundle = bundle
        self.host = f"bundle:{bundle.host}"
        self._items = {item["key"]: item for item in bundle.manifest.get("items", []) if "key" in item}
        self._listed: dict[str, dict[str, Any]] | None = None
        self._group_file: dict[str, dict[str, Any]] | None = None

    def _exec(self, command: str, *, timeout: float, stdin: str | None, sudo: bool) -> CommandResult:
        raise TargetError(f"{self.host}: a bundle is evidence only; nothing can run on it",
                          "run remediations against the live node")

    def collect(self, gathers: list[GatherSpec], *, timeout: float | None = None) -> dict[str, Evidence]:
        return {g.key: self.evidence_for(g) for g in gathers}

    def evidence_for(self, g: GatherSpec) -> Evidence:
        item = self._items.get(g.key)
        if item is not None and item.get("status") != "ok" and not (g.kind == "command" and "rc" in item):
            return Evidence(g.key, g.kind, g.source, item["status"], None, item.get("reason", ""))
        b = self.bundle
        if g.kind in ("file", "tail", "env"):
            name = f"env/{g.target}" if g.kind == "env" else file_member(str(g.target))
            text = b.text(name)
            if text is not None:
                return Evidence(g.key, g.kind, g.source, "ok", text)
        elif g.kind == "glob":
            rx = _glob_regex(str(g.target))
            found = {"/" + n[len("files/"):]: b.text(n) for n in b.members if rx.match(n)}
            if found or item is not None:
                return Evidence(g.key, g.kind, g.source, "ok", found)
        elif g.kind == "stat" and item is not None:
            return Evidence(g.key, g.kind, g.source, "ok", item.get("stat", {}))
        elif g.kind == "stat" and self._listing():
            found = self._from_listing(str(g.target))
            if found is not None:
                return Evidence(g.key, g.kind, "ls -l (pasted)", "ok", found)
        elif g.kind == "command":
            d = command_dir(g.target)  # type: ignore[arg-type]
            out = b.text(f"{d}/stdout")
            if out is not None:
                rc_text = (b.text(f"{d}/rc") or "0").strip()
                value = {"rc": int(rc_text) if rc_text.lstrip("-").isdigit() else 0, "stdout": out,
                         "stderr": b.text(f"{d}/stderr") or "", "duration_ms": int(item.get("duration_ms", 0)) if item else 0}
                status = item.get("status", "ok") if item else "ok"
                return Evidence(g.key, g.kind, g.source, status, value, item.get("reason", "") if item else "")
        return Evidence(g.key, g.kind, g.source, "unavailable", None, f"`{g.source}`: {NOT_IN_BUNDLE}")

    def _listing(self) -> dict[str, dict[str, Any]]:
        """Every `ls -l` paste under listings/, parsed once; a paste that is not `ls -l` is ignored."""
        if self._listed is None:
            from rocmdoctor.parsers import ParseError
            from rocmdoctor.parsers.ls_long import parse_ls_long

            self._listed = {}
            for name in sorted(n for n in self.bundle.members if n.startswith(LISTINGS)):
                try:
                    self._listed.update(parse_ls_long(self.bundle.text(name) or ""))
                except ParseError:
                    continue
        return self._listed

    def _groups(self) -> dict[str, dict[str, Any]]:
        """The bundle's /etc/group, parsed once (empty when it has none or it is not /etc/group)."""
        if self._group_file is None:
            from rocmdoctor.parsers import ParseError
            from rocmdoctor.parsers.ids import parse_etc_group

            try:
                self._group_file = parse_etc_group(self.bundle.text(file_member("/etc/group")) or "")
            except ParseError:
                self._group_file = {}
        return self._group_file

    def _from_listing(self, pattern: str) -> dict[str, dict[str, Any]] | None:
        """The `stat` answer for a path or glob from the pasted listings: uid/gid only where the
        bundle can say them (root is 0; a group's gid from the bundle's /etc/group), else None.
        None (not in bundle) when no listing shows the pattern's directory at all."""
        rx = re.compile(_glob_regex(pattern).pattern.replace("^files/", "^", 1), re.DOTALL)
        listed = self._listing()
        hits = {p: e for p, e in listed.items() if rx.match(p.lstrip("/"))}
        if not hits and not any(posixpath.dirname(p) == posixpath.dirname(pattern) for p in listed):
            return None
        groups = self._groups()
        return {p: {"type": e["type"], "mode": e["mode"], "uid": 0 if e["owner"] == "root" else None,
                    "gid": groups[e["group"]]["gid"] if e["group"] in groups else 0 if e["group"] == "root" else None,
                    "group": e["group"],
                    **({"major": e["major"], "minor": e["minor"]} if "major" in e else {})}
                for p, e in sorted(hits.items())}


def open_bundle(path: str) -> ReplayTransport:
    return ReplayTransport(read_bundle(path))
