"""`rocm_bandwidth_test -v` output for a simulated node, laid out as the tool prints it.

The layout is that of ROCm/rocm_bandwidth_test (rocm_bandwidth_test_report.cpp DisplayDevInfo,
PrintPerfMatrix with validate=true; rocm_bandwidth_test_print.cpp PrintVersion,
PrintLinkPropsMatrix): every line indented by a 10-wide empty field, a GPU's device line
carrying its UUID and its bus address as PopulateBDF() writes it (`%02x:%x.%x`, domain dropped,
e.g. `0c:0.0` as in ROCm/rccl#80), matrix columns 10 (access) and 12 (validation) wide. A real
report of the same matrix, version 1.0.0: ROCm/legacy-rocm-build#559.
"""

from __future__ import annotations

from rocmdoctor.simnode.formats.rocminfo import DEFAULT_CPUS, rocminfo_uuid
from rocmdoctor.simnode.gpu import SimGPU

_PAD = " " * 10


def _bdf(gpu: SimGPU) -> str:
    bus, devfn = gpu.bdf.split(":")[1:]
    dev, fn = devfn.split(".")
    return f"{int(bus, 16):02x}:{int(dev, 16):x}.{int(fn, 16):x}"


def validation_report(gpus: list[SimGPU], failing: set[tuple[int, int]], version: str = "2.6.0") -> str:
    """The -v report for the node's two CPU agents and `gpus`; `failing` holds (src, dst) agent
    index pairs whose copy came back different. Paths between CPU agents are not run (N/A)."""
    cpus = [c.name for c in DEFAULT_CPUS]
    n = len(cpus) + len(gpus)
    out = ["", f"{_PAD}RocmBandwidthTest Version: {version}", "",
           f"{_PAD}Launch Command is: rocm_bandwidth_test -v", "", ""]
    for i, name in enumerate(cpus):
        out.append(f"{_PAD}Device: {i},  {name}")
    for i, g in enumerate(gpus, start=len(cpus)):
        out.append(f"{_PAD}Device: {i},  {g.market_name},  {rocminfo_uuid(g)},  {_bdf(g)}")
    out += ["", f"{_PAD}{'Inter-Device Access':<10}", "",
            f"{_PAD}{'D/D':<10}" + "".join(f"{j:<10}" for j in range(n)), ""]
    for i in range(n):
        out += [f"{_PAD}{i:<10}" + "".join(f"{1:<10}" for _ in range(n)), ""]
    out += [f"{_PAD}{'Data Path Validation':<10}", "",
            f"{_PAD}{'D/D':<10}" + "".join(f"{j:<12}" for j in range(n)), ""]
    for i in range(n):
        cells = []
        for j in range(n):
            if i < len(cpus) and j < len(cpus):
                cells.append("N/A")
            else:
                cells.append("FAIL" if (i, j) in failing else "PASS")
        out += [f"{_PAD}{i:<10}" + "".join(f"{c:<12}" for c in cells), ""]
    return "\n".join(out) + "\n"
