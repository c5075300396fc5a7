"""The TheRock build families a ticket installs ROCm from, as the ticket's commands and logs name them.

Since ROCm 7.9 AMD ships ROCm built by TheRock, per family of GPU targets (data therock_families, from TheRock's
cmake/therock_amdgpu_targets.cmake), and every artifact names its family:

- tarballs: `therock-dist-linux-gfx110X-dgpu-7.10.0a20251018.tar.gz`, `therock-dist-linux-gfx950-dcgpu-7.10.0rc2.tar.gz`
  (ROCm/TheRock#1850, #2506; RELEASES.md "Installing tarballs")
- pip indexes: `https://rocm.nightlies.amd.com/v2/gfx110X-dgpu/`, `https://repo.amd.com/rocm/whl/gfx1151/`
  (ROCm/TheRock#8163), also rocm.prereleases.amd.com and the v2-staging paths
- packages: `rocm-sdk-libraries-gfx110X-dgpu`, `rocm-sdk-device-gfx1100==7.15.0a20260630` (RELEASES.md)
- multi-arch extras: `rocm[libraries,device-gfx942]`, `torch[device-gfx1151]` (RELEASES.md "device-gfx{target}")
- TheRock's own artifact fetch: `TARGET_VARIANT="gfx120X-all"`, `fetch_artifacts.py --target=gfx120X-all`,
  `-DTHEROCK_AMDGPU_FAMILIES=gfx110X-all` (ROCm/rocSPARSE#452's steps)

A family token the data file does not know is returned too: the check keeps only known ones.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_FAM = r"gfx[0-9][0-9a-fA-FxX]{1,3}(?:-(?:dgpu|dcgpu|igpu|all))?"
_GROUPED = r"gfx[0-9][0-9a-fA-FxX]{1,3}-(?:dgpu|dcgpu|igpu|all)"
# a wheel's extras in brackets, each device-gfxNNNN one a target's device code
_EXTRAS = re.compile(r"\[(?P<extras>[\w,\s-]{1,200})\]")
_DEVICE_EXTRA = re.compile(r"(?:^|,)\s*device-(?P<fam>gfx[0-9][0-9a-f]{2,3})\s*(?=,|$)")
_FORMS = (
    ("tarball", re.compile(rf"\btherock-dist-(?:linux|windows)-(?P<fam>{_FAM})-\d")),
    ("pip index", re.compile(rf"\b(?:rocm\.(?:nightlies|prereleases|devreleases)\.amd\.com|repo\.amd\.com/rocm"
                             rf"|d2awnip2yjpvqn\.cloudfront\.net)/(?:v2(?:-staging)?|whl)/(?P<fam>{_FAM})(?![\w-])")),
    ("package", re.compile(rf"\brocm-sdk-(?:libraries|device)-(?P<fam>{_FAM})(?![\w-])")),
    ("build family", re.compile(rf"(?:\bTARGET_VARIANT=|--target[= ]|\bTHEROCK_AMDGPU_FAMILIES=|--amdgpu[-_]famil(?:y|ies)[= ])"
                                rf"[\"']?(?P<fam>{_GROUPED})\b")),
)


@parser("therock_artifacts")
def parse_therock_artifacts(text: str) -> dict[str, Any]:
    """`{artifacts: [{family, form, lineno, line}]}`: every TheRock family an artifact in the text names, in order
    (a family's later mentions are kept: the check quotes the first)."""
    found: list[dict[str, Any]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if "gfx" not in line:
            continue
        for form, rx in _FORMS:
            for m in rx.finditer(line):
                found.append({"family": m.group("fam"), "form": form, "lineno": i, "line": line.strip()[:300]})
        for e in _EXTRAS.finditer(line):
            for m in _DEVICE_EXTRA.finditer(e.group("extras")):
                found.append({"family": m.group("fam"), "form": "wheel extra", "lineno": i, "line": line.strip()[:300]})
    return {"artifacts": found}
