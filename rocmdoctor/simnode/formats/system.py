"""Render user/process/scheduler/container evidence and amdgpu sysfs value files as the
exact text the real sources print: `id`, /etc/group, `ps`, `scontrol listpids`,
`docker|podman inspect`, `kubectl get node -o json`, `pp_dpm_*`, RAS err_count,
KFD `properties`, `current_link_speed`.

Each renderer names the public source of its format; verbatim samples live in
tests/fixtures/outputs/<source>/ with a SOURCES.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def render_id(uid: int, user: str, gid: int, group: str, groups: Sequence[tuple[int, str]]) -> str:
    """`id user` (coreutils id.c): `uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video)`."""
    gs = ",".join(f"{g}({n})" for g, n in groups)
    return f"uid={uid}({user}) gid={gid}({group}) groups={gs}\n"


def render_etc_group(groups: Sequence[tuple[str, int, Sequence[str]]]) -> str:
    """/etc/group (man 5 group): `name:x:gid:member1,member2`."""
    return "".join(f"{name}:x:{gid}:{','.join(members)}\n" for name, gid, members in groups)


def render_ps(procs: Sequence[Mapping[str, Any]]) -> str:
    """`ps -e -o pid=,stat=,user=,comm=` (procps): PID right-aligned to 7, STAT left 4,
    USER left 8 (numeric uid when longer), COMM last (may contain spaces).

    Each proc: `{pid, stat, user, comm}`.
    """
    out = []
    for p in procs:
        user = str(p["user"])
        if len(user) > 8:
            user = str(p.get("uid", user))
        out.append(f"{p['pid']:>7} {p['stat']:<4} {user:<8} {p['comm']}\n")
    return "".join(out)


def render_scontrol_listpids(rows: Sequence[Mapping[str, Any]]) -> str:
    """`scontrol listpids` (SchedMD/slurm src/scontrol/info_job.c): header `%-8s %-8s %-8s %-7s %-8s`,
    rows `%-8d %-8d %-8s ` + `%-7d ` / `%-7s ` ("-") + GLOBALID padded to 8. The source at
    2bb5a084 prints one more blank after GLOBALID; the real capture in
    fixtures/outputs/slurm has none, and the renderer follows the capture.

    Each row: `{pid, jobid, stepid, localid=None, globalid=None}`.
    """
    out = [f"{'PID':<8} {'JOBID':<8} {'STEPID':<8} {'LOCALID':<7} {'GLOBALID':<8}\n"]
    for r in rows:
        local = "-" if r.get("localid") is None else r["localid"]
        glob = "-" if r.get("globalid") is None else r["globalid"]
        out.append(f"{r['pid']:<8} {r['jobid']:<8} {r['stepid']:<8} {local!s:<7} {glob!s:<8}\n")
    return "".join(out)


def render_container_inspect(name: str, *, running: bool = True, privileged: bool = False,
                             devices: Sequence[str] = ("/dev/kfd", "/dev/dri"),
                             group_add: Sequence[str] = ("video",), security_opt: Sequence[str] = (),
                             cap_add: Sequence[str] | None = None, env: Sequence[str] = (),
                             image: str = "rocm/pytorch:latest", engine: str = "docker",
                             container_id: str = "4f2a9c1e8b7d") -> str:
    """`docker inspect NAME` / `podman inspect NAME`: a JSON array with one object in the Docker
    Engine API `ContainerInspectResponse` shape (docs.docker.com/reference/api/engine,
    "Inspect a container"); docker's `Name` has a leading `/`, podman's does not. Only the keys
    rocmdoctor reads plus their usual neighbours are emitted; both tools print 4-space indents.
    """
    cid = (container_id * 6)[:64]
    status = "running" if running else "exited"
    doc = {
        "Id": cid,
        "Created": "2024-10-01T09:12:44.123456789Z",
        "Path": "/bin/bash",
        "Args": [],
        "State": {"Status": status, "Running": running, "Paused": False, "Restarting": False,
                  "OOMKilled": False, "Dead": False, "Pid": 48213 if running else 0,
                  "ExitCode": 0, "Error": "", "StartedAt": "2024-10-01T09:12:45.0Z",
                  "FinishedAt": "0001-01-01T00:00:00Z"},
        "Image": "sha256:" + "ab" * 32,
        "Name": ("/" if engine == "docker" else "") + name,
        "HostConfig": {
            "Privileged": privileged,
            "CapAdd": list(cap_add) if cap_add is not None else None,
            "CapDrop": None,
            "GroupAdd": list(group_add) or None,
            "IpcMode": "host",
            "SecurityOpt": list(security_opt) or None,
            "ShmSize": 17179869184,
            "Devices": [{"PathOnHost": d, "PathInContainer": d, "CgroupPermissions": "rwm"} for d in devices],
        },
        "Config": {"Hostname": cid[:12], "Env": list(env) + ["PATH=/opt/rocm/bin:/usr/bin:/bin"],
                   "Cmd": ["/bin/bash"], "Image": image},
    }
    if engine == "podman":
        doc["ImageName"] = image
    return json.dumps([doc], indent=4) + "\n"


def render_kubectl_node(name: str, *, capacity_gpu: int | None = 8, allocatable_gpu: int | None = 8,
                        ready: bool = True, unschedulable: bool = False,
                        taints: Sequence[Mapping[str, str]] = (), labels: Mapping[str, str] | None = None) -> str:
    """`kubectl get node NAME -o json`: a Kubernetes v1 `Node` (kubernetes.io API reference, Node v1
    core); `amd.com/gpu` as advertised by ROCm/k8s-device-plugin (sample: skypilot docs, MI300 node
    `"amd.com/gpu": "8"`). kubectl prints 4-space-indented JSON.
    """
    def resources(gpu: int | None) -> dict[str, str]:
        res = {"cpu": "160", "ephemeral-storage": "2077109340Ki", "hugepages-1Gi": "0",
               "hugepages-2Mi": "0", "memory": "1981633424Ki", "pods": "110"}
        if gpu is not None:
            res["amd.com/gpu"] = str(gpu)
        return dict(sorted(res.items()))

    cond = [
        {"lastHeartbeatTime": "2024-10-01T09:30:00Z", "lastTransitionTime": "2024-09-20T11:02:10Z",
         "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory",
         "status": "False", "type": "MemoryPressure"},
        {"lastHeartbeatTime": "2024-10-01T09:30:00Z", "lastTransitionTime": "2024-09-20T11:02:10Z",
         "message": "kubelet is posting ready status" if ready else "Kubelet stopped posting node status.",
         "reason": "KubeletReady" if ready else "NodeStatusUnknown",
         "status": "True" if ready else "Unknown", "type": "Ready"},
    ]
    spec: dict[str, Any] = {"podCIDR": "10.244.3.0/24"}
    if unschedulable:
        spec["unschedulable"] = True
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    doc = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {"kubernetes.io/hostname": name,
                                                             "feature.node.kubernetes.io/amd-gpu": "true"})},
        "spec": spec,
        "status": {"allocatable": resources(allocatable_gpu), "capacity": resources(capacity_gpu),
                   "conditions": cond,
                   "nodeInfo": {"kernelVersion": "6.8.0-45-generic", "kubeletVersion": "v1.30.4",
                                "osImage": "Ubuntu 22.04.5 LTS", "containerRuntimeVersion": "containerd://1.7.22"}},
    }
    return json.dumps(doc, indent=4) + "\n"


def render_pp_dpm(levels_mhz: Sequence[int], current: int | str | None, deep_sleep_mhz: int | None = None,
                  trailing_blank: bool = False) -> str:
    """`pp_dpm_sclk`-style file (amdgpu SMU printers `"%d: %uMhz %s\n"`, `*` = current).

    `current="S"` with `deep_sleep_mhz` renders the MI300 (smu_v13_0_6_ppt.c) deep-sleep first
    line `S: <clk>Mhz *`; for MI300 sclk pass the idle clock as a middle level (the real file
    reads `0: 500Mhz / 1: 142Mhz * / 2: 2100Mhz`). Newer SMU code (MI300, RDNA3 samples) prints no
    blank after a non-current level; older powerplay (Vega) prints `"%s"` of "" as a trailing
    blank, selected with `trailing_blank=True`. The last level never has one in the samples.
    """
    out = []
    if current == "S":
        out.append(f"S: {deep_sleep_mhz}Mhz *\n")
    last = len(levels_mhz) - 1
    for i, mhz in enumerate(levels_mhz):
        mark = " *" if current == i else (" " if trailing_blank and i != last else "")
        out.append(f"{i}: {mhz}Mhz{mark}\n")
    return "".join(out)


def render_ras_err_count(ue: int | None, ce: int | None, de: int | None = None) -> str:
    """RAS `<block>_err_count` (amdgpu_ras.c `"%s: %lu\\n%s: %lu\\n"`, optional `de:`);
    `ue=None` renders `Query currently inaccessible`."""
    if ue is None:
        return "Query currently inaccessible\n"
    return f"ue: {ue}\nce: {ce}\n" + (f"de: {de}\n" if de is not None else "")


def render_kfd_properties(props: Mapping[str, int]) -> str:
    """KFD topology `properties` (kfd_topology.c sysfs_show_32/64bit_prop: `"%s %u\\n"`)."""
    return "".join(f"{k} {v}\n" for k, v in props.items())


def render_link_speed(gts: float) -> str:
    """PCI `current_link_speed` (drivers/pci/pci-sysfs.c + probe.c speed strings): `32.0 GT/s PCIe`."""
    return f"{gts:.1f} GT/s PCIe\n"


#: The AMD device plugin's first log lines (glog), as pasted in siderolabs/extensions#307
#: (https://github.com/siderolabs/extensions/issues/307; the same lines with v1.18.1-27-g5eb0a0f
#: and v1.25.2.7-10-g736a6ef appear in other public setups): the second names its version.
DEVICE_PLUGIN_START = (
    "I0127 18:29:58.101908       1 main.go:305] AMD GPU device plugin for Kubernetes",
    "I0127 18:29:58.101961       1 main.go:305] ./k8s-device-plugin version v1.25.2.7-0-g4503704",
    "I0127 18:29:58.101965       1 main.go:305] hwloc: _VERSION: 2.10.0, _API_VERSION: 0x00020800, "
    "_COMPONENT_ABI: 7, Runtime: 0x00020800",
    "I0127 18:29:58.101971       1 manager.go:42] Starting device plugin manager",
)
#: where the kubelet keeps that container's log: /var/log/pods/<namespace>_<pod>_<pod uid>/<container>/<restart>.log
#: (layout as in open-telemetry's issue quoting /var/log/pods/kube-system_kube-proxy-t84bs_83c0cbc2-.../kube-proxy/0.log;
#: DaemonSet and container names from ROCm/k8s-device-plugin k8s-ds-amdgpu-dp.yaml)
DEVICE_PLUGIN_LOG = ("/var/log/pods/kube-system_amdgpu-device-plugin-daemonset-6h7tt_"
                     "4f3b2d1e-9a8c-4b7d-8e6f-5a4b3c2d1e0f/amdgpu-dp-cntr/0.log")


def render_cri_log(lines: Sequence[str], *, start: str = "2024-01-27T18:29:58.10", stream: str = "stderr") -> str:
    """A container log as the kubelet writes it under /var/log/pods (the CRI logging format of
    kubernetes' kubelet-cri-logging design: `<RFC3339Nano time> <stream> <F|P> <line>`, e.g.
    `2021-01-11T17:23:43.253214031Z stderr F I0111 17:23:43.252724 1 serving.go:312] ...`)."""
    return "".join(f"{start}{i:07d}Z {stream} F {line}\n" for i, line in enumerate(lines))


def render_proc_cgroup_docker(container_id: str) -> str:
    """/proc/PID/cgroup of a process in a docker container (systemd cgroup driver, cgroup v1):
    the controller lines of NeuVector's TestDockerIDCentOS (neuvector/neuvector
    share/system/cgroup_test.go; tests/fixtures/outputs/cgroup/centos-docker-systemd.txt), with
    this container's id."""
    controllers = [(10, "devices"), (9, "blkio"), (8, "memory"), (7, "freezer"), (6, "perf_event"), (5, "hugetlb"),
                   (4, "net_cls"), (3, "cpuset"), (2, "cpuacct,cpu"), (1, "name=systemd")]
    return "".join(f"{n}:{c}:/system.slice/docker-{container_id}.scope\n" for n, c in controllers)


def render_ldconfig_cache(entries: list[tuple[str, str]]) -> str:
    """`ldconfig -p` for x86-64 `(soname, path)` entries in cache order: glibc's format
    (elf/cache.c print_entry) as a real listing prints it (flox/flox
    cli/tests/cuda/ldconfig-mock-absent.sh, `ldconfig --print-cache` in ubuntu:24.04)."""
    body = "".join(f"\t{soname} (libc6,x86-64) => {path}\n" for soname, path in entries)
    return f"{len(entries)} libs found in cache `/etc/ld.so.cache'\n{body}"


#: ROCm's amdgpu packages ship their own libdrm (libdrm-amdgpu-amdgpu1, libdrm2-amdgpu;
#: ROCm/legacy-rocm-build#2934, #2451) under /opt/amdgpu and list it in /etc/ld.so.conf
#: (ValveSoftware/Proton#4288: "the copy in /opt ... /opt/amdgpu/lib ... /etc/ld.so.conf")
LIBDRM_ROCM = [("libdrm_amdgpu.so.1", "/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1"),
               ("libdrm.so.2", "/opt/amdgpu/lib/x86_64-linux-gnu/libdrm.so.2")]
LIBDRM_DISTRO = [("libdrm_amdgpu.so.1", "/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1"),
                 ("libdrm.so.2", "/lib/x86_64-linux-gnu/libdrm.so.2")]
