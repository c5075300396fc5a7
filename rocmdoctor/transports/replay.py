"""Replay transport: answer the probe from a captured bundle.

The same checks and runbooks run on the bundle as on a live node. Whatever
the bundle does not hold comes back as status `unavailable`, reason "not in
bundle", which makes a check UNKNOWN: never a pass, never a crash.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from rocmdoctor.evidence.bundle import Bundle, command_dir, file_member, read_bundle
from rocmdoctor.errors import TargetError
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.results import CommandResult, Evidence
from rocmdoctor.transports.base import Transport

NOT_IN_BUNDLE = "not in bundle"


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """fnmatch, but `*` and `?` do not cross `/`, as in the shell."""
    parts = [fnmatch.translate(seg)[4:-3] for seg in pattern.lstrip("/").split("/")]
    return re.compile("^files/" + "/".join(parts) + r"\Z", re.DOTALL)


class ReplayTransport(Transport):
    def __init__(self, bundle: Bundle, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bundle = bundle
        self.host = f"bundle:{bundle.host}"
        self._items = {item["key"]: item for item in bundle.manifest.get("items", []) if "key" in item}

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


def open_bundle(path: str) -> ReplayTransport:
    return ReplayTransport(read_bundle(path))
