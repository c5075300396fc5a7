"""The CLI as a user drives it: help with examples, exit statuses, JSON, errors in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from rocmdoctor.cli.main import full_app

app = full_app()

runner = CliRunner()


@pytest.mark.parametrize("argv", [
    ["triage"], ["capture"], ["sweep"], ["tui"], ["postmortem"], ["incidents", "list"], ["incidents", "show"],
    ["runbooks", "list"], ["runbooks", "show"], ["runbooks", "validate"], ["runbooks", "compile"],
    ["checks", "list"], ["checks", "show"], ["checks", "parsers"], ["demo", "list"],
])
def test_every_command_has_help_with_an_example(argv: list[str]) -> None:
    result = runner.invoke(app, [*argv, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output or "example" in result.output


def test_healthy_demo_is_ok_in_json() -> None:
    result = runner.invoke(app, ["triage", "demo:healthy-mi300x", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["state"] == "pass" and doc["exit_status"] == 0 and doc["round_trips"] == 1
    assert sorted(rb["runbook_id"] for rb in doc["runbooks"]) == [
        "container-mount-failure", "gpu-hardware-fault", "gpu-not-visible", "gpu-oom", "gpu-slow", "kernel-driver-mismatch",
        "thermal-throttling", "wrong-results"]
    assert all(s["state"] in ("pass", "skipped") for rb in doc["runbooks"] for s in rb["steps"])


def test_faulty_demo_is_critical_with_diagnosis_and_command() -> None:
    result = runner.invoke(app, ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible", "-f", "json"])
    assert result.exit_code == 2
    (rb,) = json.loads(result.stdout)["runbooks"]
    (diag,) = rb["diagnoses"]
    assert diag["diagnosis_id"] == "amdgpu-not-loaded"
    assert "cat /proc/modules: no line starting with 'amdgpu '" in diag["evidence"]
    assert diag["remediations"][0]["command"] == "modprobe amdgpu"


def test_table_output_names_evidence_and_fix() -> None:
    result = runner.invoke(app, ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible"], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    out = result.stdout
    assert "✖ CRITICAL" in out and "amdgpu is not loaded" in out
    assert "$ modprobe amdgpu" in out and "Run again with --fix" in out


def test_fix_with_yes_repairs_the_demo_node_and_exits_ok() -> None:
    result = runner.invoke(app, ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible", "--fix", "--yes"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "✔ fixed Load the amdgpu kernel module" in result.stdout
    assert "After remediation (triaged again): ✔ OK" in result.stdout


def test_fix_without_an_answer_runs_nothing() -> None:
    result = runner.invoke(app, ["triage", "demo:amdgpu-not-loaded", "-r", "gpu-not-visible", "--fix"], input="")
    assert result.exit_code == 2
    assert "no answer (no input)" in result.stdout


@pytest.mark.parametrize("argv,code,message", [
    (["triage", "demo:no-such-node"], 3, "rocmdoctor: error: unknown demo node 'no-such-node'"),
    (["triage", "local", "--format", "xml"], 2, "rocmdoctor: error: unknown --format 'xml'"),
    (["triage", "local", "--var", "oops"], 2, "rocmdoctor: error: --var 'oops' is not NAME=VALUE"),
    (["triage", "local", "-r", "gpu-oomm"], 2, "rocmdoctor: error: unknown runbook 'gpu-oomm'"),
    (["triage"], 2, "rocmdoctor: error: give a TARGET or --from BUNDLE"),
    (["triage", "local", "--rootfs", "/no/such/dir"], 3, "rocmdoctor: error: --rootfs /no/such/dir: not a directory"),
    (["checks", "show", "no.such"], 2, "rocmdoctor: error: unknown check 'no.such'"),
])
def test_bad_input_is_one_clear_line(argv: list[str], code: int, message: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == code, result.output
    assert result.output.startswith(message), result.output
    assert "Traceback" not in result.output


def test_compile_batches_every_gather_into_one_probe() -> None:
    result = runner.invoke(app, ["runbooks", "compile", "--format", "json"])
    doc = json.loads(result.stdout)
    assert doc["round_trips"] == 1 and len(doc["runbooks"]) == 8
    keys = [g["key"] for g in doc["gathers"]]
    assert len(keys) == len(set(keys)) and "file:/proc/modules" in keys
    probe = runner.invoke(app, ["runbooks", "compile", "--show-probe"]).stdout
    assert probe.count("\nc ") + probe.count("\nf ") + probe.count("\ng ") + probe.count("\ns ") + \
        probe.count("\nv ") + probe.count("\nt ") == len(keys)


def test_help_starts_without_heavy_imports() -> None:
    code = ("import sys, rocmdoctor.cli.main as c; c.run(['--help']); "
            "print(sorted(m for m in ('textual', 'fabric', 'paramiko', 'jinja2', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert out.strip().splitlines()[-1] in ("[]", "['rich']")


def test_a_node_without_amd_gpu_says_so_instead_of_counting_skips() -> None:
    """Issue 8: `1 pass, 9 skipped` told on-call nothing; the gating check's verdict does."""
    result = runner.invoke(app, ["triage", "demo:healthy-no-gpu"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stdout
    lines = [line for line in result.stdout.splitlines() if "PASS" in line]
    assert len(lines) == 8
    assert all("no AMD GPU on the PCI bus: not a GPU node" in line for line in lines)
    assert not any("skipped" in line for line in lines)
    assert result.stdout.count("--var expect_gpus=N") == 1  # the hint once, not per runbook


def test_triage_keeps_pydantic_and_unused_front_ends_off_the_command_path(tmp_path) -> None:
    """Issue 8: typer >= 0.29 validates every option through pydantic (0.1-0.45 s per call);
    a warm triage imports neither pydantic nor the TUI, SSH or sweep modules, nor every parser
    (a cold one validates the catalog, which looks up every parser)."""
    code = ("import sys, rocmdoctor.cli.main as c; c.run(['triage', 'demo:healthy-no-gpu', '-r', 'gpu-not-visible']); "
            "print(sorted(m for m in ('pydantic', 'textual', 'fabric', 'paramiko', 'rocmdoctor.cli.sweep', "
            "'rocmdoctor.cli.incident', 'rocmdoctor.parsers.app_log', 'rocmdoctor.parsers.kubectl') if m in sys.modules))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d"),
           "XDG_STATE_HOME": str(tmp_path / "s")}
    subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, env=env)  # fills the caches
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_a_diagnosis_on_a_step_without_evidence_is_still_printed(tmp_path) -> None:
    """A ticket's install log decides a diagnosis whose step (`dkms status`) is not in the bundle:
    the table must show the diagnosis and its fix, not fold it into "not in the bundle"."""
    log = tmp_path / "files" / "ticket" / "install.log"
    log.parent.mkdir(parents=True)
    log.write_text("Error! Could not locate dkms.conf file.\n"
                   "File: /var/lib/dkms/amdgpu/5.18.13-1577590.22.04/source/dkms.conf does not exist.\n"
                   "WARNING: amdgpu dkms failed for running kernel\n")
    result = runner.invoke(app, ["triage", "--from", str(tmp_path), "--runbook", "kernel-driver-mismatch",
                                 "--var", "log=/ticket/install.log"], env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    assert "⇒ diagnosis (high confidence): /var/lib/dkms/amdgpu/5.18.13-1577590.22.04 has no dkms.conf" in result.output
    assert "mv -T -- /var/lib/dkms/amdgpu/5.18.13-1577590.22.04" in result.output


def test_pci_addresses_are_printed_as_they_are() -> None:
    """`0000:cd:00.0` is a BDF, not the `:cd:` emoji code (ROCm/legacy-rocm-build#4454's GPUs)."""
    bundle = "tests/incidents/gpu-not-visible/mi300x-xe9680-gpu-boot-failed-replaced/bundle"
    result = runner.invoke(app, ["triage", "--from", bundle, "-r", "gpu-not-visible"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "0000:cd:00.0" in result.stdout and "\U0001f4bf" not in result.stdout
