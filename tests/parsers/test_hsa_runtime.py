"""The ROCm runtime's hang and memory-fault reports in job logs, on lines copied from real threads."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.hsa_runtime import parse_hsa_runtime_events

# ROCm/ROCm#5259 (torchrun on 4x MI300A), verbatim
TORCHRUN = """\
Loss/train_mean_inlier_rep_error: 4.7540 (4.7279) | Grad/pos_proj: 1.0838 (1.5358) | Grad/point_encoder: 0.0000 (0.0000) | Grad/point_decoder: 7.3522 (6.8609) | Grad/point: 65.9949 (74.0430) | Grad/conf_decoder: 0.0125 (0.0336) | Grad/conf_head: 0.1573 (1.1025) | Grad/decoder: 0.8831 (1.3174) | Grad/register_token,query_token: 0.0038 (0.0064)
HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang
HW Exception by GPU node-4 (Agent handle: 0x2df30600) reason :GPU Hang
HW Exception by GPU node-4 (Agent handle: 0x33c245e0) reason :GPU Hang
HW Exception by GPU node-4 (Agent handle: 0x462ca2e0) reason :GPU Hang
W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 closing signal SIGTERM
"""

# ROCm/ROCm#5443 (GPTQModel on gfx1151): the end of the progress bar's line, then the hang, verbatim
GPTQ = """\
| 0:19:08 / 7:39:12 [2/48] 4.2%Memory access fault by GPU node-1 (Agent handle: 0x556e9b7e3360) on address 0x7f52c3f5f000. Reason: Page not present or supervisor privilege.
HW Exception by GPU node-1 (Agent handle: 0x563e71f098b0) reason :GPU Hang
Aborted (core dumped)
"""


def test_every_queue_reports_the_hang_of_one_node() -> None:
    out = parse_hsa_runtime_events(TORCHRUN)
    assert out["found"] and out["faults"] == []
    assert [h["node"] for h in out["hangs"]] == [4, 4, 4, 4]
    first = out["hangs"][0]
    assert first == {"node": 4, "handle": "0x1ebc04e0", "reason": "GPU Hang", "lineno": 2,
                     "line": "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang"}


def test_a_fault_inside_a_progress_bar_line_is_found_and_cut_from_it() -> None:
    out = parse_hsa_runtime_events(GPTQ)
    (fault,) = out["faults"]
    assert fault["node"] == 1 and fault["address"] == "0x7f52c3f5f000"
    assert fault["reason"] == "Page not present or supervisor privilege"
    assert fault["line"].startswith("Memory access fault by GPU node-1 (Agent handle: 0x556e9b7e3360)")
    assert [(h["node"], h["lineno"]) for h in out["hangs"]] == [(1, 2)]


def test_a_log_without_runtime_reports_is_not_an_error() -> None:
    out = parse_hsa_runtime_events("W0902 15:10:48.632000 819010 torch/distributed/elastic/multiprocessing/api.py:900] "
                                   "Sending process 819028 closing signal SIGTERM\n")
    assert out == {"found": False, "hangs": [], "faults": []}


def test_a_null_address_and_a_blanked_out_one_are_still_faults() -> None:
    """printf's %p prints a null pointer as "(nil)" (ROCm/tensorflow-upstream#180); ORNL/HeCBench#173's poster
    replaced the handle and the address with "0x..." (both verbatim in the corpus)."""
    root = Path(__file__).resolve().parents[1] / "incidents/gpu-hardware-fault"
    nil = (root / "burnin-rbt-vegafe-riser-h2d-low/bundle/files/ticket/tf-train.log").read_text()
    (fault,) = [f for f in parse_hsa_runtime_events(nil)["faults"] if f["address"] == "(nil)"][:1]
    assert fault["reason"] == "Page not present" and fault["handle"] == "0x564b8ac982f0"
    blanked = (root / "hipify-hecbench-vadd-wave64-memfault/bundle/files/ticket/run.log").read_text()
    (fault,) = parse_hsa_runtime_events(blanked)["faults"]
    assert fault["node"] == 1 and fault["handle"] == "0x..." and fault["reason"] == "Unknown"
