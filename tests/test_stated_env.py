"""A ticket's own statement of the machine (parser stated_env; `--report`, a bundle's files/ticket/report.md):
the GPU, ROCm release, OS and kernel it states stand in where no tool output says them. Samples verbatim from
public threads, named in tests/fixtures/outputs/stated-env/SOURCES.md."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.gpu_facts import stated_gpu_targets
from rocmdoctor.parsers.stated_env import parse_stated_env
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

SAMPLES = Path(__file__).parent / "fixtures" / "outputs" / "stated-env"
DATA = Path(__file__).parent.parent / "rocmdoctor" / "catalog" / "data"
PRODUCTS = yaml.safe_load((DATA / "gfx_products.yaml").read_text())["targets"]
PCI = yaml.safe_load((DATA / "amd_pci_targets.yaml").read_text())["devices"]


def sample(name: str) -> str:
    return (SAMPLES / name).read_text()


@pytest.mark.parametrize("name, gfx, rocm, os_id, os_version, kernel", [
    ("rocm-form-2847-mi300x-chosen-for-rx580.md", ["gfx942"], "6.0.0", "ubuntu", "20.04", None),
    # lspci's pci.ids name: the code name and the bracketed products both say gfx1030
    ("rocm-form-4447-navi21-lspci-name.md", ["gfx1030"], "6.3.1", "ubuntu", "24.04", None),
    # an APU named by its CPU, beside the CPU field that says the same (only the GPU field counts)
    ("rocm-form-5443-strix-halo-cachyos.md", ["gfx1151"], "6.4.4", "cachyos", None, None),
    # the issue form's ROCm Version (the system's) before collect_env's PyTorch build
    ("rocm-form-4864-collect-env-wsl2-no-gpu.md", ["gfx1100"], "6.4.1", "ubuntu", "24.04", "6.6.87.1-microsoft-standard-WSL2"),
    # collect_env: the target written out; HIP's build number (40091) is not a point release
    ("collect-env-vllm-10150-rx7900xtx.txt", ["gfx1100"], "6.1", "ubuntu", "22.04", "5.15.0-124-generic"),
    ("collect-env-vllm-ascend-604-cpu-build.txt", [], None, None, None, "5.10.112-100.alios7.x86_64"),
])
def test_what_a_ticket_states(name: str, gfx: list[str], rocm: str | None, os_id: str | None,
                              os_version: str | None, kernel: str | None) -> None:
    got = parse_stated_env(sample(name))
    assert [g["gfx"] for g in stated_gpu_targets(got, PRODUCTS, PCI)] == gfx
    assert (got["rocm"] or {}).get("version") == rocm
    assert (got["os"] or {}).get("id") == os_id and (got["os"] or {}).get("version_id") == os_version
    assert (got["kernel"] or {}).get("release") == kernel
    text = sample(name).splitlines()
    for fact in (got["rocm"], got["os"], got["kernel"], *got["gpus"]):
        if fact:  # every fact points at the line that states it
            assert fact["text"] in text[fact["lineno"] - 1]


def test_collect_env_names_the_pytorch_build() -> None:
    rocm = parse_stated_env(sample("collect-env-vllm-10150-rx7900xtx.txt"))["torch"]
    cpu = parse_stated_env(sample("collect-env-vllm-ascend-604-cpu-build.txt"))["torch"]
    wsl = parse_stated_env(sample("rocm-form-4864-collect-env-wsl2-no-gpu.md"))
    assert (rocm["flavor"], rocm["rocm_build"], rocm["gpu_available"]) == ("rocm", "6.1.40091-a8dbc0c19", True)
    assert (cpu["flavor"], cpu["version"], cpu["gpu_available"]) == ("cpu", "2.5.1+cpu", False)
    assert wsl["torch"]["gpu_available"] is False and "WSL2" in wsl["wsl"]["line"]


def test_a1111_sysinfo_json_names_the_pytorch_build() -> None:
    """collect_env's fields as AUTOMATIC1111's sysinfo writes them, JSON keys (`"torch_version": "2.2.2+cu121"`)."""
    stated = parse_stated_env(sample("a1111-sysinfo-15542-cu121-torch-on-rx7800xt.md"))
    torch = stated["torch"]
    assert (torch["version"], torch["flavor"], torch["gpu_available"]) == ("2.2.2+cu121", "cuda", False)
    assert torch["line"] == '"torch_version": "2.2.2+cu121",'
    assert stated["os"]["id"] == "arch"


def test_a_compose_service_log_names_the_pytorch_build() -> None:
    """huggingface/text-generation-inference#223: a torch check run in a compose service, its output pasted as shell
    comments behind docker compose's `service-1  | ` prefix."""
    log = (Path(__file__).parent / "incidents" / "gpu-not-visible" / "tserve-tgi223-rx6900xt-cu118-torch" / "bundle" /
           "files" / "ticket" / "worker.log").read_text()
    torch = parse_stated_env(log)["torch"]
    assert (torch["version"], torch["flavor"]) == ("2.0.0+cu118", "cuda")
    assert torch["line"] == "# open-assistant-inference-worker-1     | torch version:  2.0.0+cu118"
    # a markdown table row is not a compose prefix with a key behind it
    assert parse_stated_env("GPU    | MI300X\n").get("gpu") is None


@pytest.mark.parametrize("name, gfx", [
    ("AMD radeon rx7900XT", "gfx1100"), ("7900XTX", "gfx1100"), ("Sapphire Nitro+ RX 580", "gfx803"),
    ("AMD Radeon PRO W7900 Dual Slot", "gfx1100"), ("MI250X/MI250", "gfx90a"), ("Radeon VII", "gfx906"),
    ("Ryzen 9 7950X + RX 7900 XTX", "gfx1100"), ("AMD Radeon Pro V620", "gfx1030"),
    ("AMD Radeon AI Pro 32 Gb", None),   # no model number: not guessed
    # an issue form's GPU field naming a family (ROCm/rocm-libraries#2233): no target, and "4" names no product
    ("RDNA4 gfx120x Radeon GPUs", None), ("gfx11xx", None),
])
def test_product_names_as_reporters_write_them(name: str, gfx: str | None) -> None:
    got = stated_gpu_targets({"gpus": [{"text": name, "lineno": 1, "line": name}]}, PRODUCTS, PCI)
    assert [g["gfx"] for g in got] == ([gfx] if gfx else [])


def test_no_report_no_statement() -> None:
    empty = parse_stated_env("")
    assert empty == {"gpus": [], "rocm": None, "os": None, "kernel": None, "wsl": None, "torch": None, "form": False}
    # amd-smi's `GPU: 0` rows are not a product
    assert parse_stated_env("GPU: 0\n    BDF: 0000:05:00.0\n")["gpus"] == []


def test_a_stated_gpu_opens_the_runbooks_and_is_judged(tmp_path: Path) -> None:
    files = {"files/ticket/report.md": sample("rocm-form-4447-navi21-lspci-name.md")}
    _, gpus = triage_bundle_step(tmp_path / "a", files, "gpu-not-visible", "gpus")
    assert gpus.check.state == State.PASS and gpus.check.outputs["count"] == 1
    assert "the GPU(s) the ticket states" in gpus.check.message
    _, support = triage_bundle_step(tmp_path / "b", files, "gpu-not-visible", "gpu_support")
    assert support.check.state == State.PASS and "gfx1030" in support.check.message
    assert any("### ROCm Version: 6.3.1" in e for e in support.check.evidence)


def test_a_tool_outranks_the_statement(tmp_path: Path) -> None:
    """ROCm/ROCm#2847's form says MI300X because the dropdown did not list the reporter's RX 580: whatever a
    tool pasted beside it (here a real RX 580's `lspci -nnk`, tests/fixtures/outputs/lspci) decides."""
    lspci = (SAMPLES.parent / "lspci" / "lspci-nnk-rx580.txt").read_text()
    files = {"files/ticket/report.md": sample("rocm-form-2847-mi300x-chosen-for-rx580.md"),
             "commands/lspci -n -D/stdout": lspci}
    _, support = triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support")
    assert support.check.state == State.WARN and support.check.message.startswith("gfx803 (")
    gpu_lines = [e for e in support.check.evidence if "gfx803" in e and "PCI device id" in e]
    assert gpu_lines and not any("MI300X" in e for e in support.check.evidence)


def test_stated_os_and_kernel_are_held_to_the_matrix(tmp_path: Path) -> None:
    files = {"files/ticket/report.md": sample("collect-env-vllm-10150-rx7900xtx.txt")}
    _, support = triage_bundle_step(tmp_path, files, "kernel-driver-mismatch", "support")
    assert support.check.state == State.PASS
    assert "Ubuntu 22.04" in support.check.message and "5.15" in support.check.message
    assert any(e.startswith("the ticket states: Python platform:") for e in support.check.evidence)


def test_wsl_as_the_ticket_states_it(tmp_path: Path) -> None:
    files = {"files/ticket/report.md": sample("rocm-form-4864-collect-env-wsl2-no-gpu.md")}
    _, platform = triage_bundle_step(tmp_path, files, "gpu-not-visible", "platform")
    assert platform.check.state == State.WARN and "as the ticket states" in platform.check.message


def test_a_cpu_build_of_pytorch_is_framework_without_rocm(tmp_path: Path) -> None:
    files = {"files/ticket/env.txt": sample("collect-env-vllm-ascend-604-cpu-build.txt")}
    rb, step = triage_bundle_step(tmp_path, files, "gpu-not-visible", "torchbuild", vars={"report": "/ticket/env.txt"})
    assert step.check.state == State.FAIL and "2.5.1+cpu" in step.check.message
    assert [d.diagnosis_id for d in rb.diagnoses][:1] == ["framework-without-rocm"]
    assert any("2.5.1+cpu" in e for e in rb.diagnoses[0].evidence)
    assert any("/ticket/env.txt:2: PyTorch version: 2.5.1+cpu" in e for e in step.check.evidence)


def test_without_a_report_the_job_log_is_read_for_it(tmp_path: Path) -> None:
    """A ticket that pasted collect_env into its job log (no separate report): the same statement is read."""
    files = {"files/ticket/job.log": sample("collect-env-vllm-10150-rx7900xtx.txt")}
    _, support = triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support", vars={"log": "/ticket/job.log"})
    assert support.check.state == State.PASS and "gfx1100" in support.check.message
    assert any("ROCM used to build PyTorch: 6.1.40091-a8dbc0c19" in e for e in support.check.evidence)


def test_a_versioned_install_path_names_the_release() -> None:
    """AMD's packages install a release under /opt/rocm-X.Y.Z: a backtrace through it names the release the
    process loaded (darktable#10707); two releases' paths name none (which one failed is unknown)."""
    rocm = parse_stated_env(sample("darktable-10707-bt-opt-rocm-452.log"))["rocm"]
    assert rocm["version"] == "4.5.2" and rocm["field"] == "install_path"
    assert rocm["line"].endswith("at /opt/rocm-4.5.2/opencl/lib/libamdocl64.so")
    assert parse_stated_env("/opt/rocm-6.1.0/lib/libamdhip64.so\n/opt/rocm-6.2.0/lib/libamdhip64.so\n")["rocm"] is None
    # a stated release outranks a path
    assert parse_stated_env("ROCm: 6.3.1\n/opt/rocm-6.1.0/lib/libamdhip64.so\n")["rocm"]["version"] == "6.3.1"


def test_the_log_names_the_release_the_report_does_not(tmp_path: Path) -> None:
    """darktable#10707: the report states the GPU (a GFX8 Polaris 22), only the backtrace names ROCm 4.5.2."""
    files = {"files/ticket/report.md": sample("darktable-10707-report-vega-m.md"),
             "files/ticket/bt.log": sample("darktable-10707-bt-opt-rocm-452.log")}
    rb, support = triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support",
                                     vars={"report": "/ticket/report.md", "log": "/ticket/bt.log"})
    assert support.check.state == State.WARN
    assert support.check.message.startswith("gfx803 (") and "ROCm 4.5.2" in support.check.message
    assert any("/opt/rocm-4.5.2/opencl/lib/libamdocl64.so" in e for e in support.check.evidence)
    assert "unsupported-gpu" in [d.diagnosis_id for d in rb.diagnoses]


def test_a_written_out_target_with_a_letter_in_its_number_is_read() -> None:
    """gfx90a (MI210/MI250) and gfx90c (Renoir/Cezanne) have two digits and a letter: they are targets too."""
    from rocmdoctor.catalog.gpu_facts import stated_gpu_targets

    for text, gfx in (("AMD Instinct MI210 (gfx90a)", "gfx90a"), ("gfx90c", "gfx90c"), ("gfx1100", "gfx1100")):
        got = stated_gpu_targets({"gpus": [{"text": text, "lineno": 3, "line": f"GPU: {text}"}]}, {}, {})
        assert [g["gfx"] for g in got] == [gfx]


def test_a_comma_inside_a_products_parentheses_does_not_split_it() -> None:
    """ROCm/gsplat#18's `- GPU: AMD Radeon 8060S (gfx1151, RDNA 3.5), Ryzen AI Max+ 395 (Strix Halo)`: two items,
    the first with its target; the check names the product whole."""
    line = "- GPU: AMD Radeon 8060S (gfx1151, RDNA 3.5), Ryzen AI Max+ 395 (Strix Halo)\n"
    gpus = parse_stated_env(line)["gpus"]
    assert [g["text"] for g in gpus] == ["AMD Radeon 8060S (gfx1151, RDNA 3.5)", "Ryzen AI Max+ 395 (Strix Halo)"]
    assert [g["gfx"] for g in stated_gpu_targets(parse_stated_env(line), {}, {})] == ["gfx1151"]


def test_a_line_that_is_only_a_target_names_the_gpu_and_a_wheel_url_the_build() -> None:
    """ROCm/pytorch#1186's versions list: `gfx1100(navi3)` under `- device`, the wheel's URL with `+` escaped."""
    text = ("### Versions\n\n- device\ngfx1100(navi3)\n- torch\n"
            "https://download.pytorch.org/whl/rocm5.2/torch-1.13.1%2Brocm5.2-cp38-cp38-linux_x86_64.whl\n")
    got = parse_stated_env(text)
    assert [(g["text"], g["field"], g["lineno"]) for g in got["gpus"]] == [("gfx1100", "gpu_target_line", 4)]
    assert got["torch"]["version"] == "1.13.1+rocm5.2" and got["torch"]["flavor"] == "rocm"
    # the wheel carries its ROCm libraries: without a stated release, its tag names the job's
    assert (got["rocm"]["version"], got["rocm"]["field"]) == ("5.2", "torch_wheel")
    assert parse_stated_env("ROCm: 6.3.1\ntorch==2.5.1+rocm6.2\n")["rocm"]["version"] == "6.3.1"
    # rocm_agent_enumerator's output: the CPU's gfx000 is no GPU, one target repeated is one GPU
    assert [g["text"] for g in parse_stated_env("gfx000\ngfx90a\ngfx90a\n")["gpus"]] == ["gfx90a"]
    # a list of several targets is a build's, not the machine's
    assert parse_stated_env("gfx906\ngfx908\ngfx90a\n")["gpus"] == []


def test_a_gpu_named_in_a_sentence_is_read_when_nothing_else_names_one() -> None:
    """NixOS/nixpkgs#308206 ("I have an RX 580 if that helps") and huggingface/sentence-transformers#1809 ("my
    6700XT falls under gfx1031"): the only place these tickets name their GPU is a sentence."""
    got = parse_stated_env("### Additional context\nI have an RX 580 if that helps\nI can confirm that Rocm and "
                           "openCL works on my system\n")
    assert [(g["text"], g["field"], g["lineno"]) for g in got["gpus"]] == [("RX 580", "gpu_prose", 2)]
    got = parse_stated_env("Unfortunately, my 6700XT falls under gfx1031.\n")
    assert [(g["text"], g["field"]) for g in got["gpus"]] == [("6700XT", "gpu_prose")]
    # the same product twice is one GPU; two different products are a comparison, not the node's GPU
    assert [g["text"] for g in parse_stated_env("RX 580 here.\nThe RX580 is a Polaris card.\n")["gpus"]] == ["RX 580"]
    assert parse_stated_env("It works on my RX 7900 XTX but not on the RX 6600.\n")["gpus"] == []
    # a form's own GPU field wins over a sentence
    got = parse_stated_env("### GPU\n\nAMD Radeon VII\n\n### Notes\nmy friend's RX 580 works\n")
    assert [g["field"] for g in got["gpus"]] == ["gpu"]
    # numbers that merely look like models are not read: a hex value, a version
    assert parse_stated_env("exit code 0x580, version 7900.1\n")["gpus"] == []


def test_an_install_names_the_release_through_amds_package_versions() -> None:
    """nktice/AMD-AI#1's dpkg.log: `install rocm-dkms:amd64 <none> 5.7.1.50701-98~22.04` (AMD's versions carry the
    release as MMmmpp); apt's and dnf's own lines name it the same way."""
    log = ("2023-12-09 22:45:20 install amdgpu-dkms:all 1:6.2.4.50700-1652687.22.04 1:6.2.4.50700-1652687.22.04\n"
           "2023-12-17 11:21:25 install rocm-dkms:amd64 <none> 5.7.1.50701-98~22.04\n")
    got = parse_stated_env(log)["rocm"]
    # a rocm-* package names the release (amdgpu-dkms 6.2.4.50700 is the driver of ROCm 5.7.0)
    assert (got["version"], got["field"], got["text"], got["lineno"]) == ("5.7.1", "installed_package", "rocm-dkms", 2)
    assert parse_stated_env("Setting up rocm-core (6.0.0.60000-91~22.04) ...\n")["rocm"]["version"] == "6.0.0"
    assert parse_stated_env(" rocm-hip-runtime   x86_64   6.0.0.60000-91.el9   rocm   12 k\n")["rocm"]["version"] == "6.0.0"
    # two releases side by side name none; a distribution's own build (no MMmmpp) names none
    assert parse_stated_env("Setting up rocm-core (6.0.0.60000-91~22.04) ...\n"
                            "Setting up rocm-hip-libraries (5.7.1.50701-98~22.04) ...\n")["rocm"] is None
    assert parse_stated_env("Setting up rocminfo (5.7.1-3build1) ...\n")["rocm"] is None
    # the driver's own package names the release it shipped with, not the user space a node runs beside it
    assert parse_stated_env("Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ...\n")["rocm"] is None


def test_the_one_ubuntu_release_a_sentence_names_is_the_os() -> None:
    """nktice/AMD-AI#1's title, "Any word on Ubuntu 23.10?" (the body's "your guide for 23.04" names no OS)."""
    got = parse_stated_env("# Any word on Ubuntu 23.10?\n\nI followed your guide for 23.04 on the hope that it would work.\n")
    assert (got["os"]["id"], got["os"]["version_id"], got["os"]["field"]) == ("ubuntu", "23.10", "os_prose")
    assert parse_stated_env("Works on Ubuntu 22.04, fails on Ubuntu 24.04.\n")["os"] is None


def test_the_one_kernel_a_sentence_names_is_the_kernel(tmp_path: Path) -> None:
    """ROCm/ROCm#5110's form: "AMDGPU/ROCm DKMS fails on kernel 6.16" ... "Compile Kernel 6.16.0" (one kernel, 6.16),
    ROCm 6.4.2 and Ubuntu 24.04.2 in its fields: a kernel ROCm 6.4 does not support there."""
    case = Path(__file__).resolve().parent / "incidents" / "kernel-driver-mismatch" / "aq5-5110-amdgpu-dkms-6.4.2-on-self-built-6.16"
    text = (case / "bundle" / "files" / "ticket" / "report.md").read_text()
    got = parse_stated_env(text)["kernel"]
    assert (got["release"], got["field"], got["line"]) == ("6.16", "kernel_prose", "AMDGPU/ROCm DKMS fails on kernel 6.16")
    _, support = triage_bundle_step(tmp_path, {"files/ticket/report.md": text}, "kernel-driver-mismatch", "support")
    assert support.check.state == State.WARN
    assert support.check.message.startswith("kernel 6.16 is not supported by ROCm 6.4.2 on Ubuntu 24.04.2")
    # an old and a new kernel side by side name none; a sentence's full stop is not part of the release
    assert parse_stated_env("Worked on kernel 6.8, fails on kernel 6.11.\n")["kernel"] is None
    assert parse_stated_env("Running kernel version 6.8.0-45-generic.\n")["kernel"]["release"] == "6.8.0-45-generic"
    # a GPU kernel's timing in a job log is not a Linux kernel
    assert parse_stated_env("gemm kernel 3.25 ms, softmax kernel 2.1x faster\n")["kernel"] is None


def test_a_release_only_another_attachment_names_is_read(tmp_path: Path) -> None:
    """ROCm/ROCm#1973 (in the corpus): the job log names an RX 7900 XT, only the gdb backtrace pasted beside it names
    the release (/opt/rocm-5.4.2/lib/libamdhip64.so); ROCm 5.4.2's list has no gfx1100. Two attachments naming two
    releases name none."""
    case = Path(__file__).parent / "incidents" / "gpu-not-visible" / "pt-rx7900xt-rocm542-segfault" / "bundle" / "files"
    files = {f"files/ticket/{p.name}": p.read_text() for p in (case / "ticket").iterdir()}
    _, support = triage_bundle_step(tmp_path / "a", files, "gpu-not-visible", "gpu_support", vars={"log": "/ticket/job.log"})
    assert support.check.state == State.WARN and "ROCm 5.4.2's list" in support.check.message
    assert any(e.startswith("the ticket's gdb-backtrace.log names it: ") and "/opt/rocm-5.4.2/" in e
               for e in support.check.evidence)
    files["files/ticket/other-run.log"] = "#0  0x00007fffadcdb335 in ?? () from /opt/rocm-5.7.1/lib/libamdhip64.so\n"
    _, support = triage_bundle_step(tmp_path / "b", files, "gpu-not-visible", "gpu_support", vars={"log": "/ticket/job.log"})
    assert support.check.state == State.UNKNOWN and "release is not in the evidence" in support.check.message
