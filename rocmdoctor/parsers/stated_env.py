"""The environment a ticket states for the affected machine: its GPU, ROCm release, OS and kernel.

Most tickets say what the machine is before they paste anything, and often nothing they paste
names the GPU or the release (a bare `hipErrorNoDevice`, rocminfo's OUT_OF_RESOURCES). Three
structured forms are read; prose sentences are not (too easy to misread "works on my 6800"):

- GitHub issue forms as GitHub renders them: a `### Label` heading, a blank line, the value;
  `_No response_` for an empty field; a multi-select dropdown as `A, B`. ROCm/ROCm's form
  (`.github/ISSUE_TEMPLATE/issue_report.yml` until ROCm/ROCm#2803, then ROCm/.github's global
  template): Operating System, CPU, GPU (a dropdown with `Other` and a free `Other` field),
  ROCm Version, ROCm Component. Real renders: ROCm/ROCm#2847, #4447, #4864, #5443. ollama's form
  (`### OS`, `### GPU`, `### Ollama version`) and llama.cpp's (`### Operating systems`,
  `### Hardware`) use the same rendering.
- `python -m torch.utils.collect_env` (torch/utils/collect_env.py; vLLM's collect_env.py prints
  the same lines): `PyTorch version: 2.4.0+rocm6.1`, `ROCM used to build PyTorch:
  6.1.40091-a8dbc0c19`, `OS: Ubuntu 22.04.4 LTS (x86_64)`, `Python platform:
  Linux-5.15.0-124-generic-x86_64-with-glibc2.35`, `Is CUDA available: True`, `GPU models and
  configuration: Radeon RX 7900 XTX (gfx1100)`, `HIP runtime version: 6.1.40091`
  (vllm-project/vllm#10150; ROCm/ROCm#4864 for a CPU-only run: `HIP runtime version: N/A`).
- `Key: value` lines a reporter writes for the environment (`GPU: RX 7900 XTX`, `ROCm: 6.2.1`,
  `OS: Ubuntu 22.04`, `Kernel: 6.8.0-45-generic`, `torch: 2.14.0+cu130`), bullets and bold allowed.
- Without any of those naming PyTorch, the wheel pip names: `torch==2.5.1+rocm6.2`, pip's "Successfully
  installed torch-2.5.1+rocm6.2", a wheel's URL with its `+` escaped (`torch-1.13.1%2Brocm5.2-cp38-...whl`,
  download.pytorch.org's index links, ROCm/pytorch#1186), pip show's `Name: torch` / `Version:` (F5-TTS#1236, pytorch#147761).
- Without any GPU field, a line that is nothing but an AMD product name (`Radeon 8050S` under F5-TTS#1236's
  `### Environment Details`, `AMD Radeon RX 7900 XTX`): a list of parts, not a sentence.
- Without any of those, a line that is nothing but one GPU target (`gfx1100(navi3)` under ROCm/pytorch#1186's
  `- device`): what rocm_agent_enumerator and amdgpu-arch print, one target per line (rocminfo's
  rocm_agent_enumerator: `for gfx in target_list: print(gfx)`, gfx000 for the CPU); read only when every such
  line names the same target, so a pasted list of build targets is not taken for the machine's GPU.
- Without a stated release, ROCm's versioned install directory in a pasted path: AMD's packages install a release
  under /opt/rocm-X.Y.Z (/opt/rocm is a link to it), so a backtrace or ldd line through
  `/opt/rocm-4.5.2/opencl/lib/libamdocl64.so` (darktable#10707) names the release the process loaded; read only
  when every such path names the same release. Without either, a ROCm torch wheel's tag (`+rocm5.2`): PyTorch's
  ROCm wheels carry their own ROCm libraries, so the tag names the release the job's GPU code comes from.

A stated fact is weaker than a tool's output (ROCm/ROCm#2847's form made its reporter pick
"MI300X" for an RX 580 the dropdown did not list), so checks use it only where no tool output
says the same thing, and name it as stated.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.stated_prose import at as _at, installer_release, prose_gpu, prose_kernel, prose_os

# a line that is only a product name: "Radeon 8050S", "AMD Radeon(TM) RX 7900 XTX", "AMD Instinct MI250X"
_PRODUCT_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<name>(?:AMD\s+)?(?:Radeon|Instinct)(?:\(TM\)|™)?(?:\s+[A-Za-z0-9][\w+-]{0,12}){1,4})\s*$")
# a line that is only a GPU target, with an optional code name: "gfx1100", "gfx1100(navi3)", "gfx90a:sramecc+:xnack-"
_TARGET_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<name>gfx(?!000\b)[0-9a-f]{3,4}(?::[a-z]+[+-])*)\s*(?:\([\w .-]{1,30}\))?\s*$")
_HEADING = re.compile(r"^#{2,4}\s+(?P<label>[^#].*?)\s*$")
_NO_RESPONSE = {"_no response_", "no response", "n/a", "none", "other", ""}
_KEY_VALUE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>[A-Za-z][^:=\n]{0,80}?)(?:\*\*|__)?\s*[:=]\s*(?:\*\*|__)?\s*"
    r"(?P<value>\S.*?)\s*$")
# docker compose's per-service log prefix (`worker-1  | `), possibly behind a `# ` the reporter put in front of pasted
# output: the key-value line follows it
_COMPOSE_PREFIX = re.compile(r"^(?:#\s+)?[A-Za-z0-9][\w.-]{0,80}\s+\|\s")
# which field a label or key names (lower case, without punctuation)
_FIELDS = {
    "gpu": "gpu", "gpus": "gpu", "gpu model": "gpu", "graphics card": "gpu", "graphics": "gpu", "hardware": "gpu",
    "gpu model and memory": "gpu", "compute device name": "gpu",
    "other": "gpu_other", "gpu models and configuration": "gpu_collect_env",
    "rocm version": "rocm", "rocm": "rocm", "rocm release": "rocm", "rocm used to build pytorch": "torch_rocm",
    "cuda cudnn version": "rocm_if_named",
    "hip runtime version": "hip_runtime", "hip version": "hip_runtime",
    "operating system": "os", "operating systems": "os", "os": "os", "distro": "os", "distribution": "os",
    "linux distribution": "os", "os version": "os", "os platform and distribution": "os", "host os": "os",
    "kernel": "kernel", "kernel version": "kernel", "linux kernel": "kernel", "python platform": "python_platform",
    "pytorch version": "torch", "is cuda available": "torch_gpu", "cuda used to build pytorch": "torch_cuda",
    "pytorch": "torch", "torch": "torch", "torch version": "torch",
    "hip compiled version": "torch_rocm", "cuda compiled version": "torch_cuda",
}
_ROCM_VERSION = re.compile(r"(?i)(?:\brocm[\s-]*)?v?(?P<v>\d+\.\d+(?:\.\d+)?)")
_KERNEL = re.compile(r"\b(?P<k>[2-7]\.\d+(?:\.\d+)?(?:-[\w.+~-]+)?)")
# a kernel named inside an OS value: 'Linux Ubuntu 20.10 with 5.10 LTS Kernel', 'Linux 6.1.78, NixOS, 24.05' (nix-info)
_KERNEL_IN_OS = re.compile(r"(?i)\bkernel\s+v?(?P<a>[2-7]\.\d+[\w.+~-]*)|\b(?P<b>[2-7]\.\d+[\w.+~-]*)\s+(?:LTS\s+)?kernel\b"
                           r"|^Linux (?P<c>[2-7]\.\d+\.\d+[\w.+~-]*),")
_ROCM_NAMED = re.compile(r"(?i)\brocm[\s-]*v?(?P<v>\d+\.\d+(?:\.\d+)?)")
_PLATFORM_KERNEL = re.compile(r"^Linux-(?P<k>\d+\.\d+\.\d+[\w.+~-]*?)-(?:x86_64|aarch64|ppc64le)")
_GPU_INDEXED = re.compile(r"^GPU \d+: (?P<name>.+)$")
_TORCH_VERSION = r"(?P<v>\d+\.\d+\.\d+(?:\.dev\d{8})?(?:\+|%2[Bb])(?:rocm\d+(?:\.\d+){0,2}|cpu|cu\d{2,3})(?![\w.]))"
_PIP_TORCH = re.compile(r"(?<![\w.-])torch(?:==|-)" + _TORCH_VERSION)
_PIP_SHOW_VERSION = re.compile(r"^Version: " + _TORCH_VERSION + "$")

#: distribution names as reporters write them -> os-release ID (what ROCm's matrix keys use)
_OS_NAMES = (
    (re.compile(r"(?i)\b[kxl]?ubuntu\b"), "ubuntu"), (re.compile(r"(?i)\b(?:rhel|red ?hat(?: enterprise linux)?)\b"), "rhel"),
    (re.compile(r"(?i)\bsles\b|\bsuse linux enterprise"), "sles"), (re.compile(r"(?i)\bopensuse leap\b"), "opensuse-leap"),
    (re.compile(r"(?i)\btumbleweed\b"), "opensuse-tumbleweed"), (re.compile(r"(?i)\bdebian\b"), "debian"),
    (re.compile(r"(?i)\bfedora\b"), "fedora"), (re.compile(r"(?i)\bcentos\b"), "centos"),
    (re.compile(r"(?i)\brocky\b"), "rocky"), (re.compile(r"(?i)\balma ?linux\b"), "almalinux"),
    (re.compile(r"(?i)\boracle linux\b"), "ol"), (re.compile(r"(?i)\barch ?linux\b|\barch\b"), "arch"),
    (re.compile(r"(?i)\bmanjaro\b"), "manjaro"), (re.compile(r"(?i)\bcachyos\b"), "cachyos"),
    (re.compile(r"(?i)\bgentoo\b"), "gentoo"), (re.compile(r"(?i)\bnixos\b"), "nixos"),
    (re.compile(r"(?i)\bpop!?_?os\b"), "pop"), (re.compile(r"(?i)\blinux mint\b|\bmint\b"), "linuxmint"),
)
#: Ubuntu code names a reporter may give without the word Ubuntu ("22.04.5 LTS (Jammy Jellyfish)")
_UBUNTU_CODENAMES = re.compile(r"(?i)\b(?:xenial|bionic|focal|jammy|noble|oracular|plucky|questing)\b")
_OS_VERSION = re.compile(r"(?<![\d.])(?P<v>\d{1,2}(?:\.\d{1,2})?)(?:\.\d+)?(?![\d])")
_SLES_SP = re.compile(r"(?i)\b(?P<major>1[25])\s*(?:sp|service pack\s*)(?P<sp>\d)\b")
_WSL = re.compile(r"(?i)\bwsl2?\b|microsoft-standard-WSL")


def _norm(label: str) -> str:
    """'OS Platform and Distribution (e.g., Linux Ubuntu 16.04)' -> 'os platform and distribution'."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", re.sub(r"\(.*?\)", " ", label.lower())).split())


def _form_fields(lines: list[str]) -> list[tuple[str, int, str, str]]:
    """(field, lineno, heading + value line, value) for each rendered issue-form field we read."""
    out = []
    for i, raw in enumerate(lines):
        m = _HEADING.match(raw)
        if not m or (field := _FIELDS.get(_norm(m.group("label")))) is None:
            continue
        values: list[tuple[int, str]] = []
        for j in range(i + 1, min(i + 8, len(lines))):
            if _HEADING.match(lines[j]):
                break
            if lines[j].strip():
                values.append((j + 1, lines[j].strip()))
        if values and values[0][1].lower() not in _NO_RESPONSE:
            lineno, value = values[0]
            out.append((field, lineno, f"{raw.strip()}: {value}", value))
    return out


def _key_values(lines: list[str]) -> list[tuple[str, int, str, str]]:
    out = []
    for i, raw in enumerate(lines):
        m = _KEY_VALUE.match(_COMPOSE_PREFIX.sub("", raw, count=1))
        if not m or (field := _FIELDS.get(_norm(m.group("key")))) is None:
            continue
        value = m.group("value").strip().strip("*_`").strip()
        if field == "gpu" and re.fullmatch(r"\d+", value):
            continue  # amd-smi's `GPU: 0` rows, not a product
        if field == "gpu_collect_env":
            # collect_env prints several GPUs one per line after the label: `GPU 0: ...`
            follow = [(i + k + 1, g.group("name")) for k in range(1, 17) if i + k < len(lines)
                      and (g := _GPU_INDEXED.match(lines[i + k].strip()))]
            if not value and follow:
                out.extend(("gpu_collect_env", n, lines[n - 1], v) for n, v in follow)
                continue
        if value.lower() not in _NO_RESPONSE:
            out.append((field, i + 1, raw, value))
    return out


# torch.utils.collect_env's SystemEnv fields as JSON keys: AUTOMATIC1111's sysinfo ("Torch env info", modules/
# sysinfo.py get_torch_sysinfo(): get_env_info()._asdict()) and the web UIs built on it paste them so. Only
# those field names are read (a JSON "gpu" or "kernel" elsewhere in a paste is not a statement); each maps
# through _FIELDS like its collect_env label ("torch_version" as "torch version").
_COLLECT_ENV_JSON = re.compile(r'^\s*"(?P<key>[a-z_]{2,40})":\s*"(?P<value>[^"\n]{1,200})",?\s*$')
_COLLECT_ENV_KEYS = frozenset({"torch_version", "hip_compiled_version", "cuda_compiled_version", "is_cuda_available",
                               "hip_runtime_version", "os", "python_platform"})


def _collect_env_json(lines: list[str]) -> list[tuple[str, int, str, str]]:
    out = []
    for i, raw in enumerate(lines):
        m = _COLLECT_ENV_JSON.match(raw)
        if m and m.group("key") in _COLLECT_ENV_KEYS and m.group("value").lower() not in _NO_RESPONSE:
            out.append((_FIELDS[_norm(m.group("key"))], i + 1, raw, m.group("value")))
    return out


def _rocm_version(value: str) -> str | None:
    """'ROCm 6.0.0' / 'ROCM6.3.2' / '6.1.40091-a8dbc0c19' (a build: 6.1) -> '6.0.0' / '6.3.2' / '6.1'."""
    m = _ROCM_VERSION.search(value)
    if not m:
        return None
    parts = m.group("v").split(".")
    if len(parts) == 3 and len(parts[2]) >= 4:  # HIP's build number (40091), not a point release
        parts = parts[:2]
    return ".".join(parts)


def _os(value: str) -> dict[str, Any] | None:
    """'Ubuntu 22.04.5 LTS (Jammy Jellyfish)' -> {id: ubuntu, version_id: 22.04}; SLES' 'SP5' as 15.5. The
    version is the first after the distribution's name ('Windows 11 with WSL (Ubuntu 24.04.2 ...)': 24.04)."""
    found = next(((m, i) for rx, i in _OS_NAMES if (m := rx.search(value))), None)
    if found is None and _UBUNTU_CODENAMES.search(value):
        os_id, rest = "ubuntu", value.split("(")[0]  # '22.04.5 LTS (Jammy Jellyfish)'
    elif found is None:
        return None
    else:
        os_id, rest = found[1], value[found[0].end():]
    sp = _SLES_SP.search(rest) if os_id == "sles" else None
    m = _OS_VERSION.search(re.sub(r"(?i)\b(?:x86_64|amd64|aarch64)\b", "", rest))
    version = f"{sp.group('major')}.{sp.group('sp')}" if sp else (m.group("v") if m else None)
    return {"id": os_id, "version_id": version}


def _split_outside_parens(value: str) -> list[str]:
    """A multi-select's `A, B` split at its commas, not at one inside a product's parentheses
    (`AMD Radeon 8060S (gfx1151, RDNA 3.5), Ryzen AI Max+ 395` is two items)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth <= 0:
            items.append(value[start:i])
            start = i + 1
    items.append(value[start:])
    return [item.strip() for item in items]


@parser("stated_env")
def parse_stated_env(text: str) -> dict[str, Any]:
    """`{gpus: [{text, lineno, line, field}], rocm: {version, ...} | None, os: {id, version_id, ...} | None,
    kernel: {release, ...} | None, wsl: {...} | None, torch: {version, rocm_build, hip_runtime, gpu_available,
    flavor} | None, form: bool}`: what the ticket states, each with the line that states it."""
    lines = text.splitlines()
    form = _form_fields(lines)
    fields = form + _key_values(lines) + _collect_env_json(lines)
    got: dict[str, list[tuple[int, str, str]]] = {}
    for field, lineno, line, value in fields:
        got.setdefault(field, []).append((lineno, line, value))

    gpus = []
    for field in ("gpu_collect_env", "gpu", "gpu_other"):
        for lineno, line, value in got.get(field, []):
            if field == "gpu_collect_env" and value.lower().startswith("no cuda"):
                continue
            names = [value] if field != "gpu" or "[" in value else _split_outside_parens(value)
            gpus.extend(_at(lineno, line, field, n) for n in names if n and n.lower() not in _NO_RESPONSE)

    if not gpus:
        gpus = [_at(n, raw, "gpu_line", m.group("name"))
                for n, raw in enumerate(lines, 1) if (m := _PRODUCT_LINE.match(raw))]
    if not gpus:
        targets = [_at(n, raw, "gpu_target_line", m.group("name"))
                   for n, raw in enumerate(lines, 1) if "gfx" in raw and (m := _TARGET_LINE.match(raw))]
        if len({t["text"].split(":")[0] for t in targets}) == 1:
            gpus = targets[:1]
    if not gpus:
        gpus = prose_gpu(lines)

    rocm = None
    for field in ("rocm", "rocm_if_named", "torch_rocm", "hip_runtime"):
        for lineno, line, value in got.get(field, []):
            version = _rocm_version(value) if field != "rocm_if_named" else (
                m.group("v") if (m := _ROCM_NAMED.search(value)) else None)
            if version and rocm is None:
                rocm = {**_at(lineno, line, field, value), "version": version}
    # 'AMD A10-8700P Radeon R6/R7 with ROCm-1.9.1 Stack installed' in another field
    for field, lineno, line, value in fields:
        if rocm is None and field in ("gpu", "os") and (m := _ROCM_NAMED.search(value)):
            rocm = {**_at(lineno, line, field, value), "version": m.group("v")}

    if rocm is None:
        rocm = _install_path_release(lines)
    if rocm is None:
        rocm = installer_release(lines)

    os_ = None
    for lineno, line, value in got.get("os", []):
        parsed = _os(value)
        if parsed and os_ is None:
            os_ = {**_at(lineno, line, "os", value), **parsed}

    if os_ is None:
        os_ = prose_os(lines)

    kernel = None
    for field in ("kernel", "python_platform", "os"):
        for lineno, line, value in got.get(field, []):
            rx = {"python_platform": _PLATFORM_KERNEL, "os": _KERNEL_IN_OS}.get(field, _KERNEL)
            m = rx.search(value)
            if m and kernel is None:
                release = m.group("k") if field != "os" else (m.group("a") or m.group("b") or m.group("c"))
                kernel = {**_at(lineno, line, field, value), "release": release}

    if kernel is None:
        kernel = prose_kernel(lines)

    wsl = next((_at(n, line, f, v) for f, n, line, v in fields if f in ("os", "kernel", "python_platform")
                and _WSL.search(v)), None)

    torch = None
    # `torch==2.5.1+rocm6.2` is pip's requirement form (below), not a `torch: value` line
    stated_torch = [(n, line, v) for n, line, v in got.get("torch", []) if not v.startswith("=")]
    if stated_torch:
        lineno, line, value = stated_torch[0]
        value = value.strip("`'\"")
        build = got.get("torch_rocm", [(0, "", "")])[0][2]
        cuda = got.get("torch_cuda", [(0, "", "")])[0][2]
        hip = got.get("hip_runtime", [(0, "", "")])[0][2]
        local = value.split("+", 1)[1] if "+" in value else ""
        # collect_env prints N/A for the backend a build lacks (`_NO_RESPONSE` dropped those lines)
        neither = re.search(r"(?m)^ROCM used to build PyTorch: (?:N/A|None)$", text) and re.search(
            r"(?m)^CUDA used to build PyTorch: (?:N/A|None)$", text)
        flavor = ("rocm" if local.startswith("rocm") or build else "cpu" if local.startswith("cpu") or neither
                  else "cuda" if local.startswith("cu") or cuda else None)
        available = got.get("torch_gpu", [(0, "", "")])[0][2].lower()
        read_as = "collect_env" if line.strip().startswith("PyTorch version:") else "stated"
        torch = {**_at(lineno, line, "torch", value), "version": value, "form": read_as, "rocm_build": build or None,
                 "hip_runtime": hip or None, "flavor": flavor,
                 "gpu_available": {"true": True, "false": False}.get(available)}
    if torch is None:
        torch = _pip_torch(lines)
    # PyTorch's ROCm wheels carry their ROCm libraries: `+rocm5.2` names the release the job's kernels come from
    if rocm is None and torch and (m := _WHEEL_ROCM.search(str(torch.get("version") or ""))):
        rocm = {**_at(torch["lineno"], torch["line"], "torch_wheel", torch["version"]), "version": m.group("v")}
    return {"gpus": gpus, "rocm": rocm, "os": os_, "kernel": kernel, "wsl": wsl, "torch": torch, "form": bool(form)}


_WHEEL_ROCM = re.compile(r"\+rocm(?P<v>\d+\.\d+(?:\.\d+)?)$")
_ROCM_INSTALL_DIR = re.compile(r"/opt/rocm-(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?![\w.-])")


def _install_path_release(lines: list[str]) -> dict[str, Any] | None:
    """The release of the one versioned ROCm install directory the pasted paths go through; None when there is
    none, or when paths name two releases (side-by-side installs: which one the failing process used is unknown)."""
    seen: dict[str, tuple[int, str, str]] = {}
    for i, line in enumerate(lines):
        for m in _ROCM_INSTALL_DIR.finditer(line):
            seen.setdefault(m.group("v"), (i + 1, line, m.group(0)))
    if len(seen) != 1:
        return None
    version, (lineno, line, path) = next(iter(seen.items()))
    return {**_at(lineno, line, "install_path", path), "version": version}


def _pip_torch(lines: list[str]) -> dict[str, Any] | None:
    """The torch wheel pip names, for a ticket without collect_env: `torch==2.5.1+rocm6.2` (a requirement or
    install line), `torch-2.5.1+rocm6.2` (pip's "Successfully installed ...", a wheel's file name), pip show's
    `Name: torch` then `Version: ...`. Only a local version tag (+rocm6.2, +cpu, +cu121) says which build it is."""
    for i, line in enumerate(lines):
        m = _PIP_TORCH.search(line)
        if not m and line.strip() == "Name: torch" and i + 1 < len(lines):
            m = _PIP_SHOW_VERSION.match(lines[i + 1].strip())
            line = f"{line.strip()} / {lines[i + 1].strip()}"
        if m:
            value = re.sub("%2[Bb]", "+", m.group("v"))   # a wheel's URL: download.pytorch.org/whl/rocm5.2/torch-1.13.1%2Brocm5.2-...
            local = value.split("+", 1)[1]
            flavor = "rocm" if local.startswith("rocm") else "cpu" if local.startswith("cpu") else "cuda"
            return {**_at(i + 1, line, "torch", value), "version": value, "form": "pip", "rocm_build": None,
                    "hip_runtime": None, "flavor": flavor, "gpu_available": None}
    return None
