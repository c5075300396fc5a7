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

from rocmdoctor.catalog.gpu_facts import version_key

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


def own_soname_mismatch(missing: Any, resolved: Any, table: Any, running: Any = None) -> list[dict[str, Any]]:
    """The ROCm libraries a job asked for at a soname major another release shipped (data rocm_sonames
    `own_major`): each missing row (loader_errors, with `quote`) with `asked` (the releases that shipped that
    major) and `other`, either the same library the loader found at another major (ldd's `=>` line, with its
    releases) or the running release when it lies in another major's range. A major, or a running release, the
    table does not cover says nothing."""
    table = dict(table or {})
    found = [r for r in resolved or () if isinstance(r, dict)]
    out = []
    for row in missing or ():
        entry = table.get(row.get("base")) if isinstance(row, dict) else None
        majors = dict((entry or {}).get("majors") or {})
        asked = majors.get(str(row.get("major")))
        if not asked:
            continue
        sibling = next((f for f in found if f.get("base") == row["base"] and f.get("major") != row["major"]
                        and str(f.get("major")) in majors), None)
        other = None
        if sibling:
            span = majors[str(sibling["major"])]
            other = {"lib": sibling["lib"], "from": span["from"], "to": span["to"], "quote": sibling.get("quote", ""),
                     "how": f"the loader finds {sibling['lib']} at {sibling.get('path')}"}
        elif running:
            key = version_key(running)
            for major, span in majors.items():
                if major != str(row["major"]) and version_key(span["from"])[:len(key)] <= key <= version_key(span["to"]):
                    other = {"lib": f"{row['base']}.so.{major}", "from": span["from"], "to": span["to"], "quote": "",
                             "how": f"ROCm {running} ships {row['base']}.so.{major}"}
                    break
        if other:
            out.append({**row, "what": entry.get("what") or row["base"], "asked_from": asked["from"],
                        "asked_to": asked["to"], "other": other})
    return out
