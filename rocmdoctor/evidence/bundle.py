"""Evidence bundles: a node's evidence captured once, triaged anywhere.

Layout (docs/capture-format.md): `manifest.json`, `files/<node path>`,
`commands/<argv>/{stdout,stderr,rc}`, `env/<NAME>`, under one top directory.
Reading never extracts to disk: members are read into memory after checking
their names, types and sizes, so a hostile archive cannot write anywhere.
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import shlex
import tarfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rocmdoctor import __version__
from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.evidence.redact import MASK, is_secret_name, redact_text
from rocmdoctor.results import Evidence

FORMAT = "rocmdoctor-bundle"
VERSION = 1
MAX_MEMBER_BYTES = 64 << 20
MAX_TOTAL_BYTES = 512 << 20
MAX_MEMBERS = 50_000


class BundleError(RocmdoctorError):
    pass


#: a member name's longest path component: file systems refuse names over 255 bytes (NAME_MAX), so
#: an extracted bundle would lose the member
_NAME_MAX = 200


def command_dir(argv: tuple[str, ...] | list[str]) -> str:
    """`amd-smi metric --json` -> `commands/amd-smi metric --json` ('/' written as %2F).

    A check's own shell snippet (`sh -c SCRIPT rocmdoctor-NAME [ARG...]`) goes under its name,
    `commands/rocmdoctor-NAME [ARG...]`: the script is hundreds of bytes and the name is what a
    person pasting that output into a hand-written bundle can type. Any other name too long for a
    file system keeps its first bytes and a hash of the whole.
    """
    argv = list(argv)
    if len(argv) >= 4 and argv[0] in ("sh", "bash") and argv[1] == "-c" and argv[3].startswith("rocmdoctor-"):
        argv = argv[3:]
    name = shlex.join(argv).replace("%", "%25").replace("/", "%2F")
    if len(name.encode()) > _NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        name = name.encode()[:_NAME_MAX - 20].decode(errors="ignore") + "~" + digest
    return "commands/" + name


def file_member(path: str) -> str:
    return "files/" + path.lstrip("/")


@dataclass
class Bundle:
    """A bundle in memory: member path -> bytes, plus its manifest (may be empty for hand-made ones)."""

    members: dict[str, bytes]
    manifest: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def text(self, name: str) -> str | None:
        data = self.members.get(name)
        return None if data is None else data.decode("utf-8", "replace")

    @property
    def host(self) -> str:
        return str(self.manifest.get("host") or Path(self.source).name)


# -- writing -------------------------------------------------------------------

def build_bundle(host: str, gathers: list[GatherSpec], evidence: dict[str, Evidence], *,
                 redact: bool = True, facts: dict[str, Any] | None = None) -> Bundle:
    members: dict[str, bytes] = {}
    items = []
    masked = 0
    for g in gathers:
        ev = evidence.get(g.key)
        if ev is None:
            continue
        item: dict[str, Any] = {"key": g.key, "kind": g.kind, "target": list(g.target) if g.kind == "command" else g.target,
                                "source": ev.source, "status": ev.status, "reason": ev.reason}

        def put(name: str, text: str) -> None:
            nonlocal masked
            if redact:
                text, n = redact_text(text)
                masked += n
            members[name] = text.encode()

        if ev.status == "ok" or (g.kind == "command" and isinstance(ev.value, dict)):
            if g.kind in ("file", "tail"):
                put(file_member(str(g.target)), ev.value)
                item["paths"] = [str(g.target)]
            elif g.kind == "glob":
                for path, text in ev.value.items():
                    put(file_member(path), text)
                item["paths"] = sorted(ev.value)
            elif g.kind == "stat":
                item["stat"] = ev.value
            elif g.kind == "env":
                value = ev.value
                if redact and is_secret_name(str(g.target)):
                    value, masked = MASK, masked + 1
                put(f"env/{g.target}", value)
            elif g.kind == "command":
                d = command_dir(g.target)  # type: ignore[arg-type]
                put(f"{d}/stdout", ev.value["stdout"])
                put(f"{d}/stderr", ev.value["stderr"])
                members[f"{d}/rc"] = f"{ev.value['rc']}\n".encode()
                item["rc"] = ev.value["rc"]
                item["duration_ms"] = ev.value["duration_ms"]
        items.append(item)
    manifest = {
        "format": FORMAT, "version": VERSION, "host": host,
        "captured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "rocmdoctor_version": __version__, "redacted": redact, "masked_values": masked,
        "facts": facts or {}, "items": items,
    }
    return Bundle(members, manifest)


def write_bundle(bundle: Bundle, out: Path) -> Path:
    top = f"rocmdoctor-{_safe(bundle.host)}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with tarfile.open(tmp, "w:gz") as tar:
        entries = {"manifest.json": json.dumps(bundle.manifest, indent=2, sort_keys=True).encode() + b"\n"}
        entries.update(bundle.members)
        for name, data in sorted(entries.items()):
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            tar.addfile(info, io.BytesIO(data))
    tmp.replace(out)
    return out


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:64] or "node"


# -- reading -------------------------------------------------------------------

def read_bundle(path: str | Path) -> Bundle:
    p = Path(path)
    if p.is_dir():
        members = _read_dir(p)
    elif p.is_file():
        members = _read_tar(p)
    else:
        raise BundleError(f"{path}: no such bundle", "pass the .tar.gz written by `rocmdoctor capture`, or a directory")
    tops = {name.split("/", 1)[0] for name in members}
    if "manifest.json" not in members and len(tops) == 1 and not tops & {"files", "commands", "env", "listings"}:
        (top,) = tops
        members = {name[len(top) + 1:]: data for name, data in members.items() if "/" in name}
    manifest: dict[str, Any] = {}
    if "manifest.json" in members:
        try:
            manifest = json.loads(members["manifest.json"])
        except ValueError as exc:
            raise BundleError(f"{path}: manifest.json is not valid JSON ({exc})",
                              "fix or delete manifest.json; a bundle works without one") from None
        if not isinstance(manifest, dict) or manifest.get("format", FORMAT) != FORMAT:
            raise BundleError(f"{path}: manifest.json is not a {FORMAT} manifest")
        if int(manifest.get("version", VERSION)) > VERSION:
            raise BundleError(f"{path}: bundle format version {manifest['version']} is newer than this rocmdoctor reads",
                              "upgrade rocmdoctor")
    known = ("files/", "commands/", "env/", "listings/")
    if not manifest and not any(n.startswith(known) for n in members):
        raise BundleError(f"{path}: holds no manifest.json, files/, commands/, env/ or listings/",
                          "see docs/capture-format.md for the layout")
    return Bundle(members, manifest, str(path))


def _check_name(archive: Path, name: str) -> str:
    norm = posixpath.normpath(name)
    if name.startswith("/") or norm.startswith("../") or norm == ".." or "/../" in f"/{name}/":
        raise BundleError(f"{archive}: refusing unsafe member path {name!r}",
                          "a bundle holds only relative paths inside its own directory")
    return norm


def _read_tar(archive: Path) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(archive, "r:*") as tar:
            for n, info in enumerate(tar):
                if n >= MAX_MEMBERS:
                    raise BundleError(f"{archive}: more than {MAX_MEMBERS} members", "not a rocmdoctor bundle")
                name = _check_name(archive, info.name)
                if info.isdir():
                    continue
                if not info.isfile():
                    kind = "link" if (info.issym() or info.islnk()) else "special file"
                    raise BundleError(f"{archive}: refusing {kind} member {info.name!r}",
                                      "bundles hold regular files only")
                if info.size > MAX_MEMBER_BYTES:
                    raise BundleError(f"{archive}: member {info.name!r} is {info.size} bytes (limit {MAX_MEMBER_BYTES})")
                total += info.size
                if total > MAX_TOTAL_BYTES:
                    raise BundleError(f"{archive}: more than {MAX_TOTAL_BYTES} bytes in all")
                fh = tar.extractfile(info)
                members[name] = fh.read(MAX_MEMBER_BYTES + 1) if fh else b""
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        # tarfile's ReadError lists every compression it tried, one per line: the error stays one line
        why = ("neither a plain nor a gzip, bzip2 or xz tar archive" if isinstance(exc, tarfile.ReadError)
               else (str(exc).splitlines() or [type(exc).__name__])[0])
        raise BundleError(f"{archive}: not a readable bundle ({why})",
                          "expected a .tar.gz written by `rocmdoctor capture`") from None
    return members


def _read_dir(root: Path) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    total = 0
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            raise BundleError(f"{root}: refusing symlink {rel!r}", "bundles hold regular files only")
        if p.is_file():
            size = p.stat().st_size
            total += size
            if size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                raise BundleError(f"{root}: {rel!r} is too large for a bundle")
            members[rel] = p.read_bytes()
    return members
