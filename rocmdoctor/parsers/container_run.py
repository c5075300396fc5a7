"""The `docker run` / `podman run` command line a ticket pastes (a shell prompt's line, a script's
backslash-continued one, `sudo` in front): the flags that give a container the GPUs. Docker's run
reference and podman-run(1) name them: `--device HOST[:CONTAINER[:PERMS]]`, `--privileged`,
`--group-add`, `--security-opt`, `--gpus` (an NVIDIA-style device request), a CDI device
(`--device amd.com/gpu=all`), the whole /dev bound (`-v /dev:/dev`), or the AMD container runtime asked for GPUs
(`--runtime=amd -e AMD_VISIBLE_DEVICES=...`: the AMD Container Toolkit's "Running Workloads" page; the runtime adds
/dev/kfd and the named GPUs' render nodes to the container's OCI spec).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from rocmdoctor.parsers import continued_lines, parser

_RUN = re.compile(r"(?:^|[\s$#>])(?:sudo\s+(?:-\S+\s+)*)?(?P<engine>docker|podman|nerdctl)\s+(?:container\s+)?(?:run|create)\s")
_VALUED = {"--device", "--group-add", "--security-opt", "-v", "--volume", "--gpus", "--runtime", "--name", "-e", "--env",
           "--user", "-u", "--ipc", "--cap-add", "--network", "--net", "-w", "--workdir", "--entrypoint", "--shm-size",
           "-p", "--publish", "--mount", "--platform", "--pull", "--hostname", "-h", "--restart", "--label", "-l"}


def _flags(args: list[str]) -> dict[str, Any]:
    devices: list[str] = []
    groups: list[str] = []
    security: list[str] = []
    volumes: list[str] = []
    env: dict[str, str] = {}
    gpus: str | None = None
    runtime: str | None = None
    privileged = False
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, inline = a.partition("=") if a.startswith("--") else (a, "", "")
        if not a.startswith("-"):
            break                      # the image: what follows is the container's command
        value = inline if eq else (args[i + 1] if name in _VALUED and i + 1 < len(args) else None)
        if not eq and name in _VALUED:
            i += 1
        if name == "--device" and value:
            devices.append(value.split(":", 1)[0])
        elif name == "--group-add" and value:
            groups.append(value)
        elif name == "--security-opt" and value:
            security.append(value)
        elif name in ("-v", "--volume") and value:
            volumes.append(value)
        elif name == "--gpus":
            gpus = value
        elif name == "--runtime":
            runtime = value
        elif name in ("-e", "--env") and value:
            key, _, val = value.partition("=")
            env[key] = val
        elif name == "--privileged":
            privileged = True
        i += 1
    image = args[i] if i < len(args) else None
    return {"devices": devices, "group_add": groups, "security_opt": security, "volumes": volumes, "gpus": gpus,
            "runtime": runtime, "env": env, "privileged": privileged, "image": image}


@parser("container_run")
def parse_container_run(text: str) -> dict[str, Any]:
    """`{runs: [{engine, lineno, line, devices, group_add, security_opt, volumes, gpus, runtime, env, privileged, image,
    amd_runtime, kfd, dri}]}`: every run line, its GPU flags and whether /dev/kfd and /dev/dri reach the container.
    `amd_runtime` is the AMD_VISIBLE_DEVICES value the AMD container runtime was given (None without one)."""
    runs = []
    for lineno, line in continued_lines(text):
        m = _RUN.search(line)
        if not m:
            continue
        try:
            words = shlex.split(line[m.end():], comments=False)
        except ValueError:                 # an unbalanced quote in a cut paste: split on blanks
            words = line[m.end():].split()
        f = _flags(words)
        whole_dev = any(v.split(":", 1)[0] == "/dev" for v in f["volumes"])
        cdi = any(d.startswith("amd.com/gpu") for d in f["devices"])
        f["amd_runtime"] = f["env"].get("AMD_VISIBLE_DEVICES") if f["runtime"] == "amd" else None
        by_runtime = f["amd_runtime"] is not None
        f["kfd"] = f["privileged"] or whole_dev or cdi or by_runtime or any(d == "/dev/kfd" for d in f["devices"])
        f["dri"] = f["privileged"] or whole_dev or cdi or by_runtime or any(
            d == "/dev/dri" or d.startswith("/dev/dri/") for d in f["devices"])
        runs.append({"engine": m.group("engine"), "lineno": lineno, "line": line.strip()[:300], **f})
    return {"runs": runs}
