"""Add the kernel CVE team's amdgpu/amdkfd records to rocmdoctor/catalog/data/amdgpu_fixed_bugs.yaml.

    python tools/gen_fixed_bugs.py VULNS_GIT_DIR REV >> (review, then merge into) amdgpu_fixed_bugs.yaml
    python tools/gen_fixed_bugs.py VULNS_GIT_DIR REV --write    # appends the missing ones in place

VULNS_GIT_DIR is a git copy of the kernel CVE team's vulns repository (git.kernel.org/pub/scm/linux/security/vulns.git,
mirrored on GitHub); REV the commit read. Each record (cve/published/<year>/<CVE>.mbox) quotes the fixing commit's
message, where a crash or warning the bug prints is often pasted, and lists "Issue introduced in A with commit X and
fixed in B with commit Y" per stable series. A record becomes an entry when its affected files are under
drivers/gpu/drm/amd and its message quotes a trace with a frame in the driver (or two driver messages): the log
lines are copied with timestamps, "? " unreliable frames, registers and code bytes left out. Records already in the
file (by CVE id) are kept as they are: an entry someone curated by hand is not overwritten.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rocmdoctor.catalog.known_bugs import DRIVER_FRAME  # noqa: E402

DATA = ROOT / "rocmdoctor" / "catalog" / "data" / "amdgpu_fixed_bugs.yaml"
_STAMP = re.compile(r"^\s*(?:\[\s*[+\d.:]+\]\s*)?(?:\w{3} \d+ [\d:]+ \S+ kernel: )?")
_DEVICE = re.compile(r"^amdgpu [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: ")
_FRAME = re.compile(r"^(?:RIP: [0-9a-f]{4}:)?[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+(?: ?\[\w+\])?$")
# what the driver prints (after the device prefix), never the commit message's prose about a function
_MESSAGE = re.compile(r"^(?:amdgpu: |\[drm[^\]]*\] |kfd kfd: |amdkfd: )")
_HEADER = re.compile(r"^(?:BUG: |WARNING: CPU|general protection fault|divide error|refcount_t: |INFO: task .* blocked|"
                     r"Workqueue: )")
_VERSIONS = re.compile(r"Issue introduced in (?P<intro>[\d.]+) with commit \w+ and fixed in (?P<fix>[\d.]+) with commit (?P<sha>\w+)"
                       r"|Fixed in (?P<fix2>[\d.]+) with commit (?P<sha2>\w+)")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def log_lines(description: str) -> list[str]:
    """The log lines a commit message quotes, as the kernel printed them, without timestamps."""
    out: list[str] = []
    for raw in description.splitlines():
        line = _DEVICE.sub("", _STAMP.sub("", raw).strip())
        if not line or line.startswith("? "):
            continue
        if _FRAME.match(line) or _HEADER.match(line) or _MESSAGE.match(line):
            if line not in out:
                out.append(line)
    return out


def entry(cve: str, mbox: str) -> dict | None:
    subject = re.search(r"^Subject: CVE-[\d-]+: (.+)$", mbox, re.M)
    desc = mbox.split("Description\n===========", 1)[-1].split("The Linux kernel CVE team has assigned", 1)[0]
    files = mbox.split("Affected files\n==============", 1)[-1]
    if "drivers/gpu/drm/amd" not in files or not subject:
        return None
    lines = log_lines(desc)
    frames = [x for x in lines if _FRAME.match(x)]
    driver_frames = [x for x in frames if DRIVER_FRAME.search(x.split("+")[0])]
    messages = [x for x in lines if _MESSAGE.match(x)]
    if not driver_frames and len(messages) < 2:
        return None
    versions = [m.groupdict() for m in _VERSIONS.finditer(mbox)]
    fixed = [v["fix"] or v["fix2"] for v in versions]
    if not fixed:
        return None
    intro = sorted({v["intro"] for v in versions if v["intro"]})
    mainline = [v for v in versions if (v["fix"] or v["fix2"]).count(".") == 1]
    sha = (mainline[0]["sha"] or mainline[0]["sha2"]) if mainline else (versions[-1]["sha"] or versions[-1]["sha2"])
    said = next((m.group(0) for m in _VERSIONS.finditer(mbox) if (m.group("fix") or m.group("fix2")).count(".") == 1), "")
    return {"id": cve.lower(), "title": subject.group(1), "lines": (lines[:10]), "targets": [],
            "introduced_in": intro, "fixed_in": sorted(set(fixed), key=lambda v: [int(x) for x in v.split(".")]),
            "fix": f"https://git.kernel.org/stable/c/{sha}", "said": said, "sources": [cve.lower()]}


def _indented(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.splitlines())


def main(argv: list[str]) -> int:
    repo, rev = Path(argv[1]), argv[2]
    doc = yaml.safe_load(DATA.read_text())
    have = {s for e in doc["regressions"] for s in e.get("sources", [])}
    paths = [p for p in _git(repo, "grep", "-l", "drivers/gpu/drm/amd", rev, "--", "cve/published/*.mbox").splitlines()]
    new_entries, new_sources = [], []
    for path in sorted(p.split(":", 1)[1] for p in paths):
        cve = Path(path).stem
        if cve.lower() in have:
            continue
        e = entry(cve, _git(repo, "show", f"{rev}:{path}"))
        if e:
            new_entries.append(e)
            new_sources.append({"id": cve.lower(), "url": f"https://cve.org/CVERecord/?id={cve}",
                                "read_from": f"kernel-security-vulns@{rev[:12]} {path}"})
    text = yaml.safe_dump({"sources": new_sources, "regressions": new_entries}, sort_keys=False, width=200, allow_unicode=True)
    if "--write" in argv and new_entries:
        # text insertion, not a re-dump: the hand-curated entries keep their comments
        current = DATA.read_text()
        sources_yaml = _indented(yaml.safe_dump(new_sources, sort_keys=False, width=200, allow_unicode=True))
        entries_yaml = _indented(yaml.safe_dump(new_entries, sort_keys=False, width=200, allow_unicode=True))
        head, tail = current.split("\nregressions:\n", 1)
        DATA.write_text(head.rstrip("\n") + "\n" + sources_yaml + "regressions:\n" + tail.rstrip("\n") + "\n" + entries_yaml)
    else:
        print(text)
    print(f"{len(new_entries)} new entries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
