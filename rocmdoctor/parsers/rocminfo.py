"""`rocminfo` output: the HSA agents ROCr sees, and the error lines it prints when it cannot.

A healthy run starts `ROCk module is loaded` (or `ROCk module version X is
loaded`), lists `Agent N` blocks and ends `*** Done ***`. Failures print lines
such as `Unable to open /dev/kfd read-write: Cannot allocate memory`,
`hsa api call failure at: .../rocminfo.cc:1142`, `Call returned
HSA_STATUS_ERROR_OUT_OF_RESOURCES: ...` and `HSA Error: Incompatible kernel and
userspace, <GPU> disabled. Upgrade amdgpu.` (real captures in
tests/fixtures/outputs/rocminfo/). rocminfo may print some of
these to stderr and exit non-zero, so empty stdout is a valid (empty) result.

Under WSL 2 rocminfo (ROCm's WSL build, on the Windows driver) starts `WSL environment
detected.` (ROCm/ROCm#4435, #3677), older WSL builds fail `at: ./sources/wsl/tools/rocminfo/
rocminfo.cc:1087` (#4068); its runtime says `ROCR: unsupported GPU` for a GPU ROCm on WSL does
not support (#4068, #4435) and `[topology_sysfs_get_system_props] No WDDM adapters found.` /
`hsa_init Failed, possibly no supported GPU devices` when Windows exposes no GPU to it
(ROCm/legacy-rocm-build#5900).

Until ROCm 2.x the failure was one line with the status as a number: `hsa api call failure at
line 900, file: .../rocminfo/rocminfo.cc. Call returned 4104` (ROCm/legacy-rocm-build#739, #783);
4104 is 0x1008, HSA_STATUS_ERROR_OUT_OF_RESOURCES. ROCm 7.2 prints the generic status without a
suffix: `Call returned HSA_STATUS_ERROR: A generic error has occurred.` (legacy-rocm-build#5942,
rocm-systems#6883). `hsa_status` names the status either way.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_ERROR_PATTERNS = [re.compile(p) for p in (
    r"^HSA Error:.*",
    r"^Unable to open /dev/kfd.*",
    r"^hsa api call failure at:.*",
    r"^hsa api call failure at line \d+, file: .*",
    r".*\bHSA_STATUS_ERROR_\w+.*",
    r"^ROCk module is NOT loaded.*",
    r".*is not member of .*group.*",
    r"^Failed to get user name.*",
    r".*\bHSA_STATUS_\w+: .*",
    r"^ROCR: .*",
    r".*\bNo WDDM adapters found\b.*",
    r"^hsa_init Failed.*",
    # glibc's assert in ROCm's WSL thunk: "rocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111:
    # void thunk_proxy::QueryAdapterInfo(...): Assertion `ret == STATUS_SUCCESS' failed." (legacy-rocm-build#4584)
    r"^\S+: \S*/sources/wsl/\S+: .*Assertion .* failed\.?$",
)]
# hsa_status_t values, runtime/hsa-runtime/inc/hsa.h (ROCm/ROCR-Runtime): what a numeric
# `Call returned N` of ROCm 1.x/2.x rocminfo means
_HSA_STATUS = {
    0x1000: "HSA_STATUS_ERROR", 0x1001: "HSA_STATUS_ERROR_INVALID_ARGUMENT",
    0x1002: "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION", 0x1003: "HSA_STATUS_ERROR_INVALID_ALLOCATION",
    0x1004: "HSA_STATUS_ERROR_INVALID_AGENT", 0x1005: "HSA_STATUS_ERROR_INVALID_REGION",
    0x1006: "HSA_STATUS_ERROR_INVALID_SIGNAL", 0x1007: "HSA_STATUS_ERROR_INVALID_QUEUE",
    0x1008: "HSA_STATUS_ERROR_OUT_OF_RESOURCES", 0x100B: "HSA_STATUS_ERROR_NOT_INITIALIZED",
    0x100F: "HSA_STATUS_ERROR_INVALID_ISA", 0x1016: "HSA_STATUS_ERROR_EXCEPTION",
    0x1025: "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE", 0x1026: "HSA_STATUS_ERROR_FATAL",
}
_STATUS_NAME = re.compile(r"\b(HSA_STATUS_ERROR(?:_[A-Z_]+)?)\b")
_STATUS_CODE = re.compile(r"\bCall returned (\d+)\s*$")
_WSL = re.compile(r"^WSL environment detected\.|^hsa api call failure at: \S*/sources/wsl/|^\S+: \S*/sources/wsl/\S+: ", re.MULTILINE)
_AGENT = re.compile(r"^\*{7}\s*\n^Agent (\d+)\s*\n^\*{7}\s*$", re.MULTILINE)
_FIELD = re.compile(r"^(\s*)([^:\n]+?):\s*(.*?)\s*$")
# two of an agent's own fields, indented as rocminfo indents them: an agent block pasted without its banner
_FRAGMENT = re.compile(r"^  (?:Device Type|Chip ID|Compute Unit|BDFID):[ \t]+\S", re.MULTILINE)
# what names a GPU agent in a paste cut short or filtered (`rocminfo | grep gfx`): its ISA name, printed by
# rocminfo.cc as "Name: amdgcn-amd-amdhsa--gfxNNN[:features]" under "ISA Info", and the agent's own
# "Name: gfxNNN" (ROCm/rocminfo@c6f7a17c, AgentInfo/IsaInfo printing)
_ISA_NAME = re.compile(r"amdgcn-amd-amdhsa--gfx[0-9a-f]+")
_ISA_TOKEN = re.compile(r"amdgcn-amd-amdhsa--gfx[0-9a-f]+\S{0,80}")
_AGENT_NAME = re.compile(r"^[ \t]*Name:[ \t]+gfx[0-9a-f]+[ \t]*$", re.MULTILINE)


def _int_prefix(value: str | None) -> int | None:
    m = re.match(r"\s*(\d+)", value or "")
    return int(m.group(1)) if m else None


def _parse_agent(number: int, body: str) -> dict[str, Any]:
    top: dict[str, str] = {}
    isas: list[str] = []
    pools: list[dict[str, Any]] = []
    section = ""
    for line in body.splitlines():
        m = _FIELD.match(line)
        if not m:
            continue
        indent, label, value = len(m.group(1)), m.group(2).strip(), m.group(3)
        if label == "Name" and _ISA_NAME.match(value):
            isas.append(value)  # under "ISA Info" as printed, or anywhere in a paste that lost its indentation
        elif indent == 2:
            section = label
            top.setdefault(label, value)
        elif section == "Pool Info" and label == "Segment":
            pools.append({"segment": value, "size_kb": None})
        elif section == "Pool Info" and label == "Size" and pools:
            pools[-1]["size_kb"] = _int_prefix(value)
    if not isas:  # bare ISA names, as `rocminfo | grep -o 'amdgcn[^ ]*'` prints them
        isas = _ISA_TOKEN.findall(body)
    name = top.get("Name") or None
    gfx = None
    for isa in isas:
        m = re.search(r"--(gfx[0-9a-f]+)", isa)
        if m:
            gfx = m.group(1)
            break
    if gfx is None and name and re.fullmatch(r"gfx[0-9a-f]+", name):
        gfx = name
    bdfid = _int_prefix(top.get("BDFID"))
    coarse = [p["size_kb"] for p in pools if "COARSE GRAINED" in p["segment"] and p["size_kb"]]
    return {
        "agent": number,
        "name": name,
        "marketing_name": top.get("Marketing Name") or None,
        "uuid": top.get("Uuid") or None,
        "device_type": top.get("Device Type") or None,
        "node": _int_prefix(top.get("Node")),
        "chip_id": _int_prefix(top.get("Chip ID")),
        "compute_units": _int_prefix(top.get("Compute Unit")),
        "max_clock_mhz": _int_prefix(top.get("Max Clock Freq. (MHz)")),
        "bdfid": bdfid,
        "pci_bus": (f"{bdfid >> 8:02x}:{(bdfid >> 3) & 0x1f:02x}.{bdfid & 7}"
                    if bdfid else None),
        "gfx": gfx,
        "isas": isas,
        "pool_kb": coarse[0] if coarse else None,
    }


@parser("rocminfo")
def parse_rocminfo(text: str) -> dict[str, Any]:
    """HSA agents and error lines of `rocminfo`: `{rock_loaded, runtime_version, agents, gpu_agents, errors, done, wsl}`.

    `agents`: `[{agent, name, marketing_name, uuid, device_type, node, chip_id,
    compute_units, max_clock_mhz, bdfid, pci_bus, gfx, isas, pool_kb}]` (`gfx`
    from the ISA name, e.g. `gfx942`; `pci_bus` like `26:00.0` decoded from
    BDFID; `pool_kb` = first coarse-grained pool, i.e. VRAM for a GPU);
    `gpu_agents`: the GPU ones; `errors`: failure lines verbatim (kfd open,
    HSA_STATUS_ERROR_*, `HSA Error: Incompatible kernel and userspace ...`);
    `done`: the `*** Done ***` trailer was printed; `wsl`: the WSL build ran (its
    `WSL environment detected.` line, or a failure in its `sources/wsl/` tree); `hsa_status`:
    the HSA status a failure returned (`HSA_STATUS_ERROR_OUT_OF_RESOURCES`, also for the
    numeric `Call returned 4104` of ROCm 2.x), or None; one agent's block pasted without its `Agent N`
    banner is read as agent 0; `group_member`: `{user, group}` from its
    "<user> is member of <group> group" line, or None. Empty text gives empty lists.
    Raises ParseError on text that is none of these.
    """
    lines = text.splitlines()
    errors = [ln.strip() for ln in lines if any(p.match(ln.strip()) for p in _ERROR_PATTERNS)]
    starts = list(_AGENT.finditer(text))
    agents = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        agents.append(_parse_agent(int(m.group(1)), text[m.end():end]))
    if not starts and (len(_FRAGMENT.findall(text)) >= 2 or _ISA_NAME.search(text) or _AGENT_NAME.search(text)):
        # a ticket's paste of one agent's lines without its "Agent N" banner (microsoft/onnxruntime#12662's
        # Vega 10 block from "Marketing Name:" on, RVC-Project/Retrieval-based-Voice-Conversion-WebUI#2454's
        # RX 570 from "Float Round Mode:" on, ROCm/rocBLAS#1299's tail from a pool's "Alloc Alignment:" to
        # "*** Done ***"): one agent all the same, numbered 0; `rocminfo | grep gfx` prints each GPU agent's
        # "Name: gfxNNN" line, one agent per such line
        names = list(_AGENT_NAME.finditer(text))
        bounds = [m.start() for m in names] if len(names) > 1 else [0]
        for i, start in enumerate(bounds):
            agents.append(_parse_agent(i, text[start:bounds[i + 1] if i + 1 < len(bounds) else len(text)]))
    rock = re.search(r"^ROCk module (?:version \S+ )?is (NOT )?loaded", text, re.MULTILINE)
    # rocminfo asked lsmod and the shell had none (a container image without kmod: "sh: 1: lsmod: not found"):
    # its "NOT loaded" is then no reading of the driver at all
    no_lsmod = re.search(r"^(?:sh|bash): (?:\d+: )?lsmod: (?:command )?not found", text, re.MULTILINE)
    # rocminfo's own group check (getgrouplist on the user's name: the group database, not the groups the
    # running process holds): "peastman is member of render group"
    member = re.search(r"^(\S+) is member of \"?([\w.-]+)\"? group", text, re.MULTILINE)
    runtime = re.search(r"^Runtime Version:\s*(\S+)", text, re.MULTILINE)
    wsl = _WSL.search(text) is not None
    if text.strip() and not (agents or errors or rock or runtime or wsl):
        raise ParseError(f"not rocminfo output: {text.strip()[:80]!r}")
    status = None
    for line in errors:
        named, code = _STATUS_NAME.search(line), _STATUS_CODE.search(line)
        if named or code:
            status = named.group(1) if named else _HSA_STATUS.get(int(code.group(1)), f"HSA status {code.group(1)}")
            break
    return {
        "rock_loaded": None if rock is None or (no_lsmod and rock.group(1)) else rock.group(1) is None,
        "runtime_version": runtime.group(1) if runtime else None,
        "agents": agents,
        # a paste trimmed above "Device Type" still names a GPU agent by its LLVM target (CPU agents carry the
        # CPU's model name, never gfxNNN)
        "gpu_agents": [a for a in agents if a["device_type"] == "GPU" or (a["device_type"] is None and a["gfx"])],
        "errors": errors,
        "done": bool(re.search(r"^\*\*\* Done \*\*\*", text, re.MULTILINE)),
        "wsl": wsl,
        "hsa_status": status,
        "group_member": {"user": member.group(1), "group": member.group(2)} if member else None,
    }
