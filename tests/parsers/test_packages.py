"""Installed-package listings and the ROCm release in AMD's package versions (fixtures:
tests/fixtures/outputs/packages/SOURCES.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rocmdoctor.catalog.package_facts import rocm_package_releases, same_release
from rocmdoctor.parsers.packages import parse_packages, rocm_release_of

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "outputs" / "packages"


def test_dpkg_l_rows_carry_the_release_code_of_their_version() -> None:
    rows = parse_packages((FIX / "dpkg-l-rocm51.txt").read_text())
    assert [(r["name"], r["version"], r["release"]) for r in rows] == [
        ("rocm-clang-ocl", "0.5.0.50100-36", "5.1.0"), ("rocm-cmake", "0.7.2.50100-36", "5.1.0"),
        ("rocm-core", "5.1.0.50100-36", "5.1.0"), ("rocm-dbgapi", "0.64.0.50100-36", "5.1.0")]


def test_apt_list_rows_name_the_release_of_older_packages() -> None:
    rows = parse_packages((FIX / "apt-list-rocm-opencl-40.txt").read_text())
    assert [(r["name"], r["release"]) for r in rows] == [("rocm-opencl", "4.0"), ("rocm-opencl-dev", "4.0")]
    assert rows[0]["line"].startswith("rocm-opencl/now 3.6Beta-17-g875c1f8-rocm-rel-4.0-23")


def test_rpm_name_version_release_arch() -> None:
    [row] = parse_packages((FIX / "rpm-nvra-rocm-smi-lib-620.txt").read_text())
    assert (row["name"], row["version"], row["release"]) == ("rocm-smi-lib", "7.3.0.60200-66.el8", "6.2.0")


def test_removed_packages_and_other_text_are_not_installed_packages() -> None:
    # the real row with dpkg's state for a removed package whose configuration stayed (rc)
    row = (FIX / "dpkg-l-rocm51.txt").read_text().splitlines()[2]
    assert parse_packages("rc" + row[2:]) == []
    assert parse_packages("Listing... Done\nWARNING: apt does not have a stable CLI interface.\n") == []


def test_versions_without_a_rocm_release() -> None:
    assert rocm_release_of("5.7.1-3build1") is None        # Ubuntu's own rocminfo (corpus: kde-neon-2404-...)
    assert rocm_release_of("0.17029-1") is None            # a Debian version that only looks like a code
    assert rocm_release_of("1.6.0.143-rocm-rel-3.5-34-e24e8c1") == "3.5"
    assert rocm_release_of("1.0.0.70001-42~24.04") == "7.0.1"


def test_releases_are_grouped_and_the_odd_one_named() -> None:
    rows = (parse_packages((FIX / "dpkg-l-rocm51.txt").read_text())
            + parse_packages((FIX / "apt-list-rocm-opencl-40.txt").read_text()))
    found = rocm_package_releases(rows)
    assert [(g["release"], g["count"]) for g in found["groups"]] == [("5.1.0", 4), ("4.0", 2)]
    assert [g["release"] for g in found["odd"]] == ["4.0"]
    # against the node's own release, every group of another one is odd
    assert [g["release"] for g in rocm_package_releases(rows, "4.0.1")["odd"]] == ["5.1.0"]
    assert rocm_package_releases(rows[:4], "5.1.0")["odd"] == []
    assert same_release("4.0", "4.0.1") and not same_release("4.0", "4.1.0")


def test_driver_and_multi_version_packages_do_not_count() -> None:
    rows = [{"name": "amdgpu-dkms", "release": "6.2.4"}, {"name": "rocm-core6.2.4", "release": "6.2.4"},
            {"name": "rocm-core", "release": "6.3.1"}]
    found = rocm_package_releases(rows)
    assert [(g["release"], g["names"]) for g in found["groups"]] == [("6.3.1", ["rocm-core"])]
    assert found["odd"] == []


def test_a_triage_names_both_releases_with_their_packages(tmp_path: Path) -> None:
    b = tmp_path / "bundle"
    for cmd, fixture in (("dpkg -l", "dpkg-l-rocm51.txt"),):
        (b / "commands" / cmd).mkdir(parents=True)
        (b / "commands" / cmd / "stdout").write_text((FIX / fixture).read_text())
    (b / "files" / "ticket").mkdir(parents=True)
    (b / "files" / "ticket" / "apt.txt").write_text((FIX / "apt-list-rocm-opencl-40.txt").read_text())
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "triage", "--from", str(b), "--runbook", "gpu-not-visible",
                           "--format", "json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ROCMDOCTOR_INCIDENTS_DIR": os.devnull + "/no-journal"})
    assert "Traceback" not in proc.stderr, proc.stderr
    gnv = next(r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == "gpu-not-visible")
    d = next(d for d in gnv["diagnoses"] if d["diagnosis_id"] == "mixed-rocm-libraries")
    assert "5.1.0 (rocm-clang-ocl, rocm-cmake, rocm-core, rocm-dbgapi; 4 packages)" in d["cause"]
    assert "4.0 (rocm-opencl, rocm-opencl-dev; 2 packages)" in d["cause"]
    assert any(e.startswith("rocm-opencl/now 3.6Beta-17-g875c1f8-rocm-rel-4.0-23") for e in d["evidence"])
