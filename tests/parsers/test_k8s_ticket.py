"""k8s_ticket over the real forms tickets paste (each file is a corpus case's verbatim evidence)."""

from rocmdoctor.parsers import get_parser
from rocmdoctor.parsers.k8s_ticket import parse_k8s_ticket
from rocmdoctor.testing.corpus import ROOT

CASES = ROOT / "container-mount-failure"


def _ticket(case: str, name: str) -> str:
    return (CASES / case / "bundle" / "files" / "ticket" / name).read_text()


def test_registered() -> None:
    assert get_parser("k8s_ticket") is parse_k8s_ticket


def test_describe_blocks_with_profile_label_and_partitions() -> None:
    """ROCm/gpu-operator#382: configured cpx-nps4, still advertised as spx_nps1."""
    r = parse_k8s_ticket(_ticket("gpu-operator-cpx-partitions-listed-as-spx-stale-device-plugin",
                                 "kubectl-describe-node.log"))
    assert r["found"] and r["profile"] == "cpx-nps4"
    assert r["capacity"] == {"amd.com/gpu": 0, "amd.com/spx_nps1": 63} == r["allocatable"]
    assert r["gpu_allocatable"] == 0 and r["partitions"] == {"amd.com/spx_nps1": 63}


def test_jsonpath_lines() -> None:
    r = parse_k8s_ticket(_ticket("k8s-strixhalo-ghost-device-plugin-label-missing", "k8s-node.log"))
    assert r["found"] and r["gpu_capacity"] == 0 and r["gpu_allocatable"] == 0 and r["partitions"] == {}


def test_kubelet_checkpoint() -> None:
    r = parse_k8s_ticket(_ticket("mi300x-cpx-device-plugin-registers-zero-gpus", "kubelet-checkpoint.log"))
    assert r["found"] and r["registered"] == {"amd.com/gpu": 0} and r["capacity"] == {}


def test_a_job_log_is_not_found() -> None:
    r = parse_k8s_ticket("Traceback (most recent call last):\nRuntimeError: HIP error: invalid argument\n")
    assert r["found"] is False and r["registered"] is None and r["profile"] is None


def test_device_plugin_log_that_never_starts_its_gpu_plugin() -> None:
    """ROCm/k8s-device-plugin#40 (EKS g4ad): banner, discovery, and no "gpu: Starting plugin server"."""
    r = parse_k8s_ticket(_ticket("eks-g4ad-device-plugin-silent-amdgpu-not-loaded", "device-plugin.log"))
    assert r["found"] and r["plugin_log"] == {"banner": True, "discovery": True, "started": [], "panic": None}
    assert r["capacity"] == {} and r["registered"] is None


def test_device_plugin_log_that_starts_it() -> None:
    text = _ticket("eks-g4ad-device-plugin-silent-amdgpu-not-loaded", "device-plugin.log") + _ticket(
        "k3s-amd-device-plugin-registration-deadline-exceeded", "device-plugin.log")
    assert parse_k8s_ticket(text)["plugin_log"]["started"] == ["gpu"]
    # without the banner a log excerpt is not read as the plugin's whole start-up
    r = parse_k8s_ticket(_ticket("k3s-amd-device-plugin-registration-deadline-exceeded", "device-plugin.log"))
    assert r["plugin_log"] is None and r["found"] is False


def test_device_plugin_log_that_panics_before_discovery() -> None:
    # ROCm/k8s-device-plugin#48: a nil inotify watcher closed right after "Registering for notifications ..."
    text = (CASES / "k8s-device-plugin-fsnotify-nil-watcher-panic" / "bundle" / "files" / "ticket"
            / "device-plugin.log").read_text()
    log = parse_k8s_ticket(text)["plugin_log"]
    assert log["panic"] == "panic: runtime error: invalid memory address or nil pointer dereference"
    assert log["discovery"] is False and log["started"] == []
