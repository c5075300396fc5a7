"""Which container a process runs in, from its /proc/PID/cgroup, and container names from `docker ps`.

A GPU-memory holder that is alive on the host may still be nobody's job: a container someone
left running. Its /proc/PID/cgroup names the container the way the runtimes lay their cgroups
out: `N:ctrl:/docker/<id>` (cgroupfs driver), `.../docker-<id>.scope` (systemd driver, v1 and
v2 `0::/system.slice/docker-<id>.scope`), `.../cri-containerd-<id>.scope` and
`/kubepods/<qos>/pod<uid>/<id>` (Kubernetes), `crio-<id>.scope` (CRI-O), `libpod-<id>.scope`
(podman). Samples: tests/fixtures/outputs/cgroup/SOURCES.md.

The probe prints one block per KFD process: `== PID`, then that file's lines, or `MISSING`
when the process is not readable from here (another PID namespace, or gone).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_ID = r"(?P<id>[0-9a-f]{64})"
_RUNTIMES: list[tuple[str, re.Pattern[str]]] = [
    ("kubernetes", re.compile(r"kubepods[^\n]*?(?:/pod|-pod)(?P<pod>[0-9a-f_-]{32,36})[^\n]*?[/:]"
                              r"(?:cri-containerd[-:]|docker-|crio-)?" + _ID)),
    ("docker", re.compile(r"/docker[-/]" + _ID)),
    ("podman", re.compile(r"/libpod-" + _ID)),
    ("cri-o", re.compile(r"/crio-" + _ID)),
    ("containerd", re.compile(r"/cri-containerd-" + _ID)),
]


def container_of(cgroup_text: str) -> dict[str, Any] | None:
    """`{runtime, id, short, pod}` for the innermost container named in a cgroup file, else None."""
    for line in cgroup_text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        path = parts[2]
        for runtime, pattern in _RUNTIMES:
            hits = list(pattern.finditer(path))
            if hits:
                m = hits[-1]                                   # docker-in-docker: the innermost
                pod = m.groupdict().get("pod")
                return {"runtime": runtime, "id": m.group("id"), "short": m.group("id")[:12],
                        "pod": pod.replace("_", "-") if pod else None}
    return None


#: the words a container runtime leaves in its processes' cgroup paths (cgroup v1, and v2 without a
#: cgroup namespace): enough to tell "inside a container" from PID 1's cgroup file
_ENGINE_HINT = re.compile(r"(docker|kubepods|libpod|containerd)")


@parser("cgroup_engine")
def parse_cgroup_engine(text: str) -> str | None:
    """The runtime word (`docker`, `kubepods`, `libpod`, `containerd`) in /proc/1/cgroup, or None
    on a host (`0::/init.scope`, `1:name=systemd:/`) and in a container with its own cgroup namespace."""
    m = _ENGINE_HINT.search(text)
    return m.group(1) if m else None


@parser("kfd_cgroups")
def parse_kfd_cgroups(text: str) -> dict[str, Any]:
    """`{pid (str): {readable: bool, container: {runtime, id, short, pod} | None}}` from the
    probe's `== PID` blocks (an empty text: no KFD process). ParseError on anything else."""
    out: dict[str, Any] = {}
    pid: str | None = None
    body: list[str] = []

    def close() -> None:
        if pid is not None:
            readable = body != ["MISSING"]
            out[pid] = {"readable": readable, "container": container_of("\n".join(body)) if readable else None}

    for line in text.splitlines():
        if line.startswith("== "):
            close()
            pid, body = line[3:].strip(), []
            if not pid.isdigit():
                raise ParseError(f"not a process id: {line!r}")
        elif pid is None and line.strip():
            raise ParseError(f"expected '== PID' before {line[:60]!r}")
        elif line.strip():
            body.append(line.strip())
    close()
    return out


@parser("container_names")
def parse_container_names(text: str) -> dict[str, str]:
    """`docker ps --no-trunc --format '{{.ID}} {{.Names}}'` (podman takes the same template):
    full container id -> name."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and re.fullmatch(r"[0-9a-f]{64}", fields[0]):
            out[fields[0]] = fields[1]
        elif line.strip():
            raise ParseError(f"not an 'ID NAME' line: {line[:60]!r}")
    return out
