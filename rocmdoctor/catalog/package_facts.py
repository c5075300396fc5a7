"""Which ROCm releases a node's installed packages belong to, for `rocm.packages_one_release`.

A release's packages are built and tested together; packages of two releases side by side (an
upgrade that moved some and left others, AMD on ROCm/ROCm#1451: "Upgrade does not work now ...
uninstall old rocm and install new") load each other's libraries across releases. Only ROCm's
user space counts: the amdgpu driver and graphics packages (amdgpu-dkms, amdgpu-install,
libdrm-amdgpu, Mesa) follow their own window of supported releases, and AMD's multi-version
packages (`rocm-core6.2.4`) are meant to sit beside another release.
"""

from __future__ import annotations

import re
from typing import Any

# the driver and graphics stack, whose release may differ from ROCm's by design
_NOT_ROCM = re.compile(r"^(?:amdgpu|rock-|libdrm|mesa|libgl|libegl|libgbm|vulkan|xserver)|-amdgpu\d*$")
# AMD's multi-version install: the release is part of the package's name
_VERSIONED_NAME = re.compile(r"\d+\.\d+\.\d+$")


def same_release(a: str, b: str) -> bool:
    """`4.0` and `4.0.1` name one release as far as both say; `4.0` and `4.1.0` do not."""
    pa, pb = str(a).split("."), str(b).split(".")
    n = min(len(pa), len(pb))
    return pa[:n] == pb[:n]


def rocm_package_releases(packages: Any, node_release: Any = None) -> dict[str, Any]:
    """The ROCm releases of the installed ROCm packages (`packages` parser rows), grouped.

    `{groups: [{release, names, count}] (largest first), node: node_release, odd: [groups not of the
    node's release, or all but the largest when the node's release is unknown], packages: n}`."""
    groups: list[dict[str, Any]] = []
    seen: set[str] = set()
    for p in packages or ():
        name, release = str(p.get("name", "")), p.get("release")
        if not release or name in seen or _NOT_ROCM.search(name) or _VERSIONED_NAME.search(name):
            continue
        seen.add(name)
        g = next((g for g in groups if same_release(g["release"], release)), None)
        if g is None:
            groups.append({"release": release, "names": [name], "count": 1})
            continue
        g["names"].append(name)
        g["count"] += 1
        if len(release) > len(g["release"]):
            g["release"] = release
    groups.sort(key=lambda g: -g["count"])
    node = str(node_release) if node_release else None
    odd = [g for g in groups if not same_release(g["release"], node)] if node else groups[1:]
    return {"groups": groups, "node": node, "odd": odd, "packages": len(seen)}
