"""Simulated nodes for `rocmdoctor validate`: an `rvs` stub printing real RVS output (RVS's user
guide examples, simnode/formats/rvs/SOURCES.md) for the levels validate runs.

- validate-rvs-pass: `rvs -r N` prints the pcie_h2d_bandwidth run of 8x MI355X, summary PASS;
- validate-rvs-fail: it prints SMQT's failing example (three GPUs `pass: false`, BAR5 size 0);
- validate-slow-link: RVS passes, TransferBench p2p (a real MI350X run) has one slow link;
- validate-gemm-wrong: RVS passes, hipblaslt-bench -v on GPU 3 prints a relative error of 1.08;
- validate-gpu-missing: RVS passes, but KFD enumerates 7 of the node's 8 GPUs;
- validate-busy: the passing node with one job per GPU (refused without --force);
- validate-no-rvs: a healthy node without RVS installed.
"""

from __future__ import annotations

from importlib import resources

from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.nodes import healthy_mi300x
from rocmdoctor.simnode.scenarios import Scenario

RVS_STUB = r"""
case "$*" in
'-r 2'|'-r 3'|'-r 4') cat "$R/.sim/rvs/out.txt"; exit 0 ;;
*) echo "rvs: unrecognized arguments: $*" >&2; exit 1 ;;
esac
"""


def _output(name: str) -> str:
    return resources.files("rocmdoctor.simnode.formats").joinpath(f"validation/{name}").read_text(encoding="utf-8")


def with_rvs(node: SimNode, output: str) -> SimNode:
    node.file("/.sim/rvs/out.txt", _output(output))
    return node.stub("rvs", RVS_STUB)


GEMM_STUB = r"""
dev=0; prev=
for a in "$@"; do [ "$prev" = --device ] && dev=$a; prev=$a; done
case " $* " in *' --precision f32_r '*' -v '*) ;; *) echo "hipblaslt-bench: unexpected arguments: $*" >&2; exit 1 ;; esac
f="$R/.sim/hipblaslt/dev$dev.txt"; [ -f "$f" ] || f="$R/.sim/hipblaslt/out.txt"
cat "$f"
"""


def with_gemm_bench(node: SimNode, wrong_on: int | None = None) -> SimNode:
    """hipblaslt-bench -v printing hipBLASLt's README result on every GPU; on `wrong_on`, the real
    norm_error 1.08 run of ROCm/hipBLASLt#251."""
    node.file("/.sim/hipblaslt/out.txt", _output("hipblaslt-f32-verified.txt"))
    if wrong_on is not None:
        node.file(f"/.sim/hipblaslt/dev{wrong_on}.txt", _output("hipblaslt-norm-error.txt"))
    return node.stub("hipblaslt-bench", GEMM_STUB)


def rvs_pass() -> SimNode:
    return with_gemm_bench(with_rvs(healthy_mi300x(), "pebb-pass.txt"))


def gemm_wrong() -> SimNode:
    """RVS passes (gst checks throughput, not results); GPU 3's GEMM differs from the CPU's."""
    return with_gemm_bench(with_rvs(healthy_mi300x(), "pebb-pass.txt"), wrong_on=3)


def rvs_fail() -> SimNode:
    return with_rvs(healthy_mi300x(), "smqt-fail.txt")


TB_STUB = r"""
[ "$*" = p2p ] || { echo "TransferBench: unknown preset $*" >&2; exit 1; }
cat "$R/.sim/transferbench/p2p.txt"
"""


def slow_link() -> SimNode:
    """RVS passes; TransferBench p2p shows GPU 07 -> GPU 01 at 46.66 of ~57.5 GB/s (a real MI350X run)."""
    node = rvs_pass()
    node.file("/.sim/transferbench/p2p.txt", _output("transferbench-p2p-slow-link.txt"))
    return node.stub("TransferBench", TB_STUB)


def busy() -> SimNode:
    from rocmdoctor.simnode.scenarios.gpu_slow import occupy

    return occupy(rvs_pass())


def gpu_missing() -> SimNode:
    """RVS installed; KFD refused one of the eight GPUs (gpu-not-visible's gpu-missing-from-kfd node)."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import gpu_missing_from_kfd

    return with_gemm_bench(with_rvs(gpu_missing_from_kfd(), "pebb-pass.txt"))


def no_rvs() -> SimNode:
    return healthy_mi300x().remove_tool("rvs")


_OK = {"state": "pass", "step": None, "diagnosis": None, "vars": {}}
SCENARIOS = [
    Scenario("validate-rvs-pass", "healthy node with RVS: `rvs -r N` passes (RVS user guide's pcie_h2d_bandwidth run)",
             rvs_pass, (), _OK),
    Scenario("validate-rvs-fail", "RVS fails three GPUs (SMQT: BAR5 size 0), as RVS's own example shows", rvs_fail, (), _OK),
    Scenario("validate-slow-link", "RVS passes; TransferBench p2p: GPU 07 -> GPU 01 at 46.66 of ~57.5 GB/s (a real MI350X run)",
             slow_link, (), _OK),
    Scenario("validate-gemm-wrong", "RVS passes; GPU 3's f32 GEMM differs from the CPU's (hipblaslt-bench -v, norm_error 1.08)",
             gemm_wrong, (), _OK),
    Scenario("validate-gpu-missing", "RVS passes on the GPUs KFD has; KFD enumerates 7 of the 8 on the PCI bus",
             gpu_missing, (), _OK),
    Scenario("validate-busy", "RVS installed, one job per GPU: validate refuses without --force", busy, (), _OK),
    Scenario("validate-no-rvs", "healthy node without the ROCm Validation Suite", no_rvs, (), _OK),
]
