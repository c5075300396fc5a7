"""Python tracebacks on a tool's stderr: amd-smi importing a mismatched `amdsmi` package
(ROCm/amdsmi#186, the corpus case's ticket file), TheRock's amd-smi wrapper with 3.11 caret
lines (ROCm/TheRock#2440), a ticket quoting only the last line (ROCm/ROCm#5966) and the warning
an amd-smi that started prints (ROCm/amdsmi#130); all verbatim."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.python_traceback import parse_python_traceback

AMDSMI_186 = (Path(__file__).parents[1] / "incidents/gpu-not-visible/amd-smi-stale-python-package-undefined-symbol"
              / "bundle/files/ticket/amd-smi.txt").read_text()

THEROCK_2440 = """$ pip install --index-url=https://rocm.nightlies.amd.com/v2-staging/gfx1151 rocm
$ amd-smi
Traceback (most recent call last):
  File "venv/bin/amd-smi", line 10, in <module>
    sys.exit(amd_smi())
             ^^^^^^^^^
  File "venv/lib/python3.12/site-packages/rocm_sdk_core/_cli.py", line 51, in amd_smi
    _exec("bin/amd-smi")
  File "venv/lib/python3.12/site-packages/rocm_sdk_core/_cli.py", line 23, in _exec
    os.execv(full_path, [str(full_path)] + sys.argv[1:])
FileNotFoundError: [Errno 2] No such file or directory
"""


def test_the_frames_and_the_exception_of_a_failed_import() -> None:
    tb = parse_python_traceback(AMDSMI_186)
    assert tb["exception"] == "AttributeError"
    assert tb["message"] == "/opt/rocm-7.0.1/lib/libamd_smi.so: undefined symbol: amdsmi_get_gpu_partition_metrics_info"
    assert tb["line"].startswith("AttributeError: /opt/rocm-7.0.1/lib/libamd_smi.so")
    files = [f["file"] for f in tb["frames"]]
    assert files[:3] == ["/usr/bin/amd-smi", "/opt/rocm-7.1.1/libexec/amdsmi_cli/amdsmi_init.py",
                         "/usr/local/lib/python3.9/site-packages/amdsmi/__init__.py"]
    assert len(files) == 7 and tb["frames"][1] == {"file": "/opt/rocm-7.1.1/libexec/amdsmi_cli/amdsmi_init.py",
                                                     "line": 38, "func": "<module>"}
    assert tb["chained"] == 1


def test_caret_lines_of_python_311_are_skipped() -> None:
    tb = parse_python_traceback(THEROCK_2440)
    assert tb["exception"] == "FileNotFoundError"
    assert tb["message"] == "[Errno 2] No such file or directory"
    assert [f["func"] for f in tb["frames"]] == ["<module>", "amd_smi", "_exec"]


def test_a_ticket_quoting_only_the_exception_line() -> None:
    line = "AttributeError: module 'amdsmi.amdsmi_interface' has no attribute 'amdsmi_get_node_handle'"
    tb = parse_python_traceback(line + "\n")
    assert (tb["exception"], tb["frames"], tb["chained"]) == ("AttributeError", [], 0)
    assert tb["message"] == "module 'amdsmi.amdsmi_interface' has no attribute 'amdsmi_get_node_handle'"


def test_a_tool_that_started_has_no_exception() -> None:
    for text in ("", "WARNING: User is missing the following required groups: render, video. Please add user to these groups.\n"):
        assert parse_python_traceback(text) == {"exception": None, "message": None, "line": None, "frames": [], "chained": 0}
