"""--log for every runbook: a job log is read once (in the same probe), matched against the
whole catalogue, and a match routes to its runbook whichever runbooks were asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Real lines (threads in tests/signatures/real_messages.yaml).
DOCKER = ('docker: Error response from daemon: error gathering device information while adding custom device '
          '"/dev/kfd": no such file or directory.')
DKMS = "Error! Bad return status for module build on kernel: 5.13.0-19-generic (x86_64)"
TORCH = "RuntimeError: No HIP GPUs are available"


def _bundle(tmp_path: Path, logs: dict[str, str]) -> Path:
    b = tmp_path / "bundle"
    (b / "commands").mkdir(parents=True)
    (b / "commands" / ".keep").write_text("")
    for name, text in logs.items():
        f = b / "files" / "ticket" / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return b


def _triage(*args: str) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "triage", *args, "--format", "json"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ROCMDOCTOR_INCIDENTS_DIR": os.devnull + "/no-journal"})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _runbook(report: dict, rid: str) -> dict:
    return next(r for r in report["runbooks"] if r["runbook_id"] == rid)


def test_a_match_routes_to_its_runbook_whichever_was_asked_for(tmp_path: Path) -> None:
    b = _bundle(tmp_path, {"job.err": f"starting\n{DOCKER}\n"})
    code, report = _triage("--from", str(b), "--runbook", "gpu-oom", "--log", "/ticket/job.err")
    ids = [r["runbook_id"] for r in report["runbooks"]]
    assert ids == ["gpu-oom", "container-mount-failure"]
    cmf = _runbook(report, "container-mount-failure")
    (d,) = cmf["diagnoses"]
    assert d["diagnosis_id"] == "host-driver-missing" and d["confidence"] == "high"
    assert d["evidence"][0] == f"/ticket/job.err:2: {DOCKER}"
    step = cmf["steps"][0]
    assert step["step_id"] == "log" and step["state"] == "fail"
    assert code == 2  # CRITICAL
    # the runbook asked for says the log holds nothing of its own
    oom = _runbook(report, "gpu-oom")
    assert oom["steps"][0]["skipped_because"] == "no gpu-oom error signature in /ticket/job.err"


# rocminfo on a host whose amdgpu is loaded, as ROCm/ROCm#5442 pasted it (ROCm 7.0)
ROCK_LOADED = "ROCk module version 6.14.14 is loaded\n=====================    \n"


def _with_rocminfo(b: Path, text: str = ROCK_LOADED) -> Path:
    """The bundle with the host's rocminfo output (its first lines) as the node's word."""
    (b / "commands" / "rocminfo").mkdir(exist_ok=True)
    (b / "commands" / "rocminfo" / "stdout").write_text(text)
    return b


def test_a_node_that_refutes_the_line_turns_it_to_its_contradicted_reading(tmp_path: Path) -> None:
    """The docker daemon says the host has no /dev/kfd, the host's rocminfo says amdgpu is loaded: the
    line's usual reading (host driver missing) is refuted by the confirming check, so the diagnosis is
    the signature's `contradicted` one, quoting the line and what the node said."""
    b = _with_rocminfo(_bundle(tmp_path, {"job.err": f"{DOCKER}\n"}))
    code, report = _triage("--from", str(b), "--runbook", "container-mount-failure", "--log", "/ticket/job.err")
    cmf = _runbook(report, "container-mount-failure")
    (d,) = cmf["diagnoses"]
    assert d["diagnosis_id"] == "docker-daemon-not-on-host" and d["confidence"] == "medium"
    assert d["evidence"][:2] == [f"/ticket/job.err:1: {DOCKER}", "host_driver: amdgpu is loaded (rocminfo: ROCk module is loaded)"]
    assert "The daemon found no /dev/kfd, yet this host's amdgpu is loaded" in d["cause"]
    assert "Confirm on the node: `docker context ls   # the current context is starred`" in d["follow_up"]
    assert code == 2
    # without the node's word the line keeps its usual reading
    (b / "commands" / "rocminfo" / "stdout").unlink()
    _, plain = _triage("--from", str(b), "--runbook", "container-mount-failure", "--log", "/ticket/job.err")
    assert [x["diagnosis_id"] for x in _runbook(plain, "container-mount-failure")["diagnoses"]] == ["host-driver-missing"]


def test_a_node_that_confirms_the_line_keeps_its_usual_reading(tmp_path: Path) -> None:
    """rocminfo on the host says ROCk is NOT loaded (the line of ROCm/legacy-rocm-build#4098's title): the
    confirming check does not pass, so the docker line means what it usually means."""
    b = _with_rocminfo(_bundle(tmp_path, {"job.err": f"{DOCKER}\n"}), "ROCk module is NOT loaded, possibly no GPU devices\n")
    _, report = _triage("--from", str(b), "--runbook", "container-mount-failure", "--log", "/ticket/job.err")
    ids = [x["diagnosis_id"] for x in _runbook(report, "container-mount-failure")["diagnoses"]]
    assert "docker-daemon-not-on-host" not in ids and "host-driver-missing" in ids


def test_log_is_repeatable_and_each_line_is_quoted_with_its_file(tmp_path: Path) -> None:
    b = _bundle(tmp_path, {"build.log": DKMS + "\n", "job.out": "x\ny\n" + TORCH + "\n"})
    _, report = _triage("--from", str(b), "--runbook", "thermal-throttling",
                        "--log", "/ticket/build.log", "--log", "/ticket/job.out")
    kdm = _runbook(report, "kernel-driver-mismatch")
    assert kdm["diagnoses"][0]["diagnosis_id"] == "dkms-build-failed"
    assert f"/ticket/build.log:1: {DKMS}" in kdm["diagnoses"][0]["evidence"]
    gnv = _runbook(report, "gpu-not-visible")
    # "No HIP GPUs are available" shows the failure, not its cause: quoted with its file, causes left open
    assert gnv["diagnoses"] == [] and gnv["state"] == "fail"
    log = next(s for s in gnv["steps"] if s["step_id"] == "log")
    assert log["check"]["evidence"] == [f"/ticket/job.out:3: {TORCH}"]
    assert gnv["open_causes"][0]["diagnosis_id"] == "user-not-in-render-group"


def test_an_error_pasted_in_the_report_is_read_as_it_is_in_a_job_log(tmp_path: Path) -> None:
    """An issue form that quotes the error, and no job log: --report alone brings the line to its diagnosis,
    quoted with the report's name, as `explain` reads the same text."""
    b = _bundle(tmp_path, {"report.md": "### What happened\n" + DKMS + "\n### OS\nUbuntu 22.04\n"})
    _, report = _triage("--from", str(b), "--runbook", "kernel-driver-mismatch", "--report", "/ticket/report.md")
    kdm = _runbook(report, "kernel-driver-mismatch")
    assert kdm["diagnoses"][0]["diagnosis_id"] == "dkms-build-failed"
    assert f"/ticket/report.md:2: {DKMS}" in kdm["diagnoses"][0]["evidence"]
    _, both = _triage("--from", str(b), "--runbook", "kernel-driver-mismatch", "--report", "/ticket/report.md",
                      "--log", "/ticket/report.md")
    log = next(s for s in _runbook(both, "kernel-driver-mismatch")["steps"] if s["step_id"] == "log")
    assert log["check"]["evidence"].count(f"/ticket/report.md:2: {DKMS}") == 1  # one file, read once


def test_an_unreadable_log_is_unknown_with_its_reason_and_the_triage_goes_on(tmp_path: Path) -> None:
    b = _bundle(tmp_path, {"job.err": DOCKER + "\n"})
    # the only log given is missing: the runbook's log step says so, and the triage goes on
    code, report = _triage("--from", str(b), "--runbook", "gpu-oom", "--log", "/ticket/missing.log",
                           "--log", "/ticket/missing.log")
    (oom,) = report["runbooks"]
    step = oom["steps"][0]
    assert step["step_id"] == "log" and step["state"] == "unknown"
    assert "/ticket/missing.log" in step["check"]["message"]
    assert code == 3
    # with one --log the bundle's other attachment is read too; the missing one is still named, not dropped
    _, report = _triage("--from", str(b), "--runbook", "gpu-oom", "--log", "/ticket/missing.log")
    step = _runbook(report, "gpu-oom")["steps"][0]
    assert step["state"] == "unknown" and step["check"]["message"].startswith("/ticket/missing.log: ")
    assert "read, no gpu-oom error signature: /ticket/job.err" in step["check"]["message"]
    assert _runbook(report, "container-mount-failure")["diagnoses"]


def test_explain_reads_a_file_and_stdin(tmp_path: Path) -> None:
    f = tmp_path / "slurm-1234.err"
    f.write_text("loading model\n" + TORCH + "\n")
    by_file = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", str(f), "--host", "node042"],
                             capture_output=True, text=True, timeout=60)
    assert by_file.returncode == 0
    assert "shows a failure, not its cause" in by_file.stdout
    assert "1. gpu-not-visible / user-not-in-render-group:" in by_file.stdout
    assert f"line 2: {TORCH}" in by_file.stdout
    assert "rocmdoctor triage node042 --runbook gpu-not-visible" in by_file.stdout
    piped = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-", "-f", "json"], input=DKMS,
                           capture_output=True, text=True, timeout=60)
    doc = json.loads(piped.stdout)
    assert doc["causes"][0]["diagnosis"] == "dkms-build-failed" and doc["source"] == "<stdin>"


def test_explain_unknown_text_says_so_and_exits_0() -> None:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "the weather is fine today"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.startswith("No known error signature")
    assert "rocmdoctor capture HOST" in proc.stdout
    doc = json.loads(subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-f", "json", "nothing here"],
                                    capture_output=True, text=True, timeout=60).stdout)
    assert doc["matched"] is False and doc["causes"] == []
    assert "is not a readable file" not in proc.stderr  # a sentence is a message, not a mistyped path


def test_explain_says_when_a_log_name_is_not_a_file(tmp_path: Path) -> None:
    """A mistyped log name is matched as text (it may be the message); stderr says so, stdout and its JSON are unchanged."""
    missing = tmp_path / "slurm-1234.err"
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-f", "json", str(missing)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stderr.strip() == f"rocmdoctor: note: {missing} is not a readable file; read as the message itself"
    assert json.loads(proc.stdout)["source"] == "<text>"


def test_explain_bad_format_is_exit_2() -> None:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-f", "xml", "x"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown --format" in proc.stderr


def test_explain_names_the_reading_a_node_could_turn_the_line_to() -> None:
    """`explain` has no node: it gives the usual reading and says which check would change it."""
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", DOCKER], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "root cause: host-driver-missing   confirming check: amdgpu.module_loaded" in proc.stdout
    assert "but if amdgpu.module_loaded passes on the node: docker-daemon-not-on-host  [medium]" in proc.stdout


def test_the_same_line_in_two_logs_is_quoted_from_both_when_the_node_refutes_it(tmp_path: Path) -> None:
    """Reading matches against the node keeps one entry per match: two logs, two quoted lines."""
    b = _with_rocminfo(_bundle(tmp_path, {"a.err": f"{DOCKER}\n", "b.err": f"x\n{DOCKER}\n"}))
    _, report = _triage("--from", str(b), "--runbook", "container-mount-failure",
                        "--log", "/ticket/a.err", "--log", "/ticket/b.err")
    cmf = _runbook(report, "container-mount-failure")
    assert cmf["steps"][0]["check"]["evidence"] == [f"/ticket/a.err:1: {DOCKER}", f"/ticket/b.err:2: {DOCKER}"]
    assert [d["diagnosis_id"] for d in cmf["diagnoses"]] == ["docker-daemon-not-on-host"]


# facefusion/facefusion-docker#31: compose's device reservation `driver: rocm` on an RX 7900 XTX host
GPU_REQUEST = 'Error response from daemon: could not select device driver "rocm" with capabilities: [[gpu video]]'


def test_a_docker_gpu_request_names_the_driver_and_the_flags_that_pass_amd_gpus(tmp_path: Path) -> None:
    """Docker's device requests (`--gpus`, compose reservations) have no AMD driver: the diagnosis quotes
    the line, names the requested driver and capabilities, and says which flags pass the devices; the
    host's amdgpu being loaded (rocminfo) is quoted as the node's word, not a contradiction."""
    b = _with_rocminfo(_bundle(tmp_path, {"compose.txt": f"Attaching to facefusion-rocm-1\n{GPU_REQUEST}\n"}))
    code, report = _triage("--from", str(b), "--runbook", "gpu-not-visible", "--log", "/ticket/compose.txt")
    cmf = _runbook(report, "container-mount-failure")
    (d,) = cmf["diagnoses"]
    assert d["diagnosis_id"] == "gpus-request-without-driver" and d["confidence"] == "high"
    assert d["evidence"][:2] == [f"/ticket/compose.txt:2: {GPU_REQUEST}",
                                 "host_driver: amdgpu is loaded (rocminfo: ROCk module is loaded)"]
    assert 'driver "rocm", capabilities [gpu video]' in d["cause"]
    assert "--device /dev/kfd --device /dev/dri" in d["cause"]
    assert any("docker info | grep -i runtimes" in f for f in d["follow_up"])
    assert cmf["steps"][0]["state"] == "fail" and code == 2


def test_clinfos_own_icd_loader_error_is_read_without_a_job_log(tmp_path: Path) -> None:
    # clinfo in a Nix dev shell without ROCm's ICD registered (NixOS/nixpkgs#356027)
    b = _bundle(tmp_path, {})
    (b / "commands" / "clinfo").mkdir()
    (b / "commands" / "clinfo" / "stdout").write_text("ERROR: clGetPlatformIDs(-1001)\n")
    _, report = _triage("--from", str(b), "--runbook", "gpu-not-visible")
    gnv = _runbook(report, "gpu-not-visible")
    d = gnv["diagnoses"][0]
    assert d["diagnosis_id"] == "opencl-icd-not-registered"
    assert any("clGetPlatformIDs(-1001)" in e for e in d["evidence"])
    assert any("CL_PLATFORM_NOT_FOUND_KHR" in e for e in d["evidence"])   # the code, named from cl_ext.h


def test_rocrs_own_lines_in_clinfos_output_are_read_like_rocminfos(tmp_path: Path) -> None:
    # ROCm's OpenCL runs on ROCr, so ROCr's stderr lines land in clinfo's output: the first line of the clinfo
    # pasted in NixOS/nixpkgs#128078 (ROCm 4.1 user space on a kernel without the gfx906 SRAM ECC report)
    b = _bundle(tmp_path, {})
    (b / "commands" / "clinfo").mkdir()
    line = "HSA Error:  Incompatible kernel and userspace, Device 66af disabled. Upgrade amdgpu."
    (b / "commands" / "clinfo" / "stdout").write_text(f"{line}\nNumber of platforms                               1\n")
    _, report = _triage("--from", str(b))   # every runbook: gpu-not-visible's checks read clinfo
    d = _runbook(report, "kernel-driver-mismatch")["diagnoses"][0]
    assert d["diagnosis_id"] == "userspace-driver-mismatch"
    assert any(line in e for e in d["evidence"])


def test_rocminfos_refusal_to_start_in_its_own_output_reads_as_explain_reads_it(tmp_path: Path) -> None:
    # rocminfo.cc CheckInitialState() prints this and exits before hsa_init when /sys/module/amdgpu/initstate is
    # not "live" (the first line of ROCm/legacy-rocm-build#6373's rocminfo): the probe's own rocminfo output is
    # read with the catalogue as a pasted line would be, where the runbook found no cause itself
    line = "ROCk module is NOT live, possibly no GPU devices"
    b = _bundle(tmp_path, {})
    (b / "commands" / "rocminfo").mkdir()
    (b / "commands" / "rocminfo" / "stdout").write_text(line + "\n")
    _, report = _triage("--from", str(b), "--runbook", "gpu-not-visible")
    d = _runbook(report, "gpu-not-visible")["diagnoses"][0]
    assert d["diagnosis_id"] == "amdgpu-init-not-finished"
    assert d["evidence"][0] == f"rocminfo:1: {line}"
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", line, "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert '"amdgpu-init-not-finished"' in proc.stdout

