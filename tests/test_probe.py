"""The one-round-trip probe, on a real local shell."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.evidence.probe import GatherSpec, build_probe
from rocmdoctor.transports.local import LocalTransport


def _transport(root: Path, tmp_path: Path, **kw: object) -> LocalTransport:
    return LocalTransport(root=str(root), audit=AuditLog(tmp_path / "audit.log"), **kw)  # type: ignore[arg-type]


def test_all_kinds_in_one_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "node"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "modules").write_text("amdgpu 15458304 0 - Live 0x0000000000000000\n")
    for bdf, vendor in (("0000:05:00.0", "0x1002"), ("0000:00:00.0", "0x1022")):
        (root / "sys/bus/pci/devices" / bdf).mkdir(parents=True)
        (root / "sys/bus/pci/devices" / bdf / "vendor").write_text(vendor + "\n")
    (root / "dev").mkdir()
    (root / "dev" / "kfd").write_text("")
    (root / "dev" / "kfd").chmod(0o660)
    os.utime(root / "dev" / "kfd", (1_700_000_000, 1_700_000_000))
    t = _transport(root, tmp_path, env={"ROCR_VISIBLE_DEVICES": "0,1"})
    gathers = [
        GatherSpec("file", "/proc/modules"),
        GatherSpec("file", "/proc/cmdline"),
        GatherSpec("glob", "/sys/bus/pci/devices/*/vendor"),
        GatherSpec("stat", "/dev/kfd"),
        GatherSpec("stat", "/dev/dri/renderD*"),
        GatherSpec("command", ("echo", "hello world")),
        GatherSpec("command", ("no-such-tool-xyz",)),
        GatherSpec("env", "ROCR_VISIBLE_DEVICES"),
        GatherSpec("env", "HIP_VISIBLE_DEVICES_UNSET_XYZ"),
    ]
    ev = t.collect(gathers)
    assert t.round_trips == 1
    assert ev["file:/proc/modules"].value.startswith("amdgpu 15458304")
    assert ev["file:/proc/cmdline"].status == "missing"
    assert ev["glob:/sys/bus/pci/devices/*/vendor"].value == {
        "/sys/bus/pci/devices/0000:00:00.0/vendor": "0x1022\n",
        "/sys/bus/pci/devices/0000:05:00.0/vendor": "0x1002\n",
    }
    assert ev["stat:/dev/kfd"].value["/dev/kfd"]["mode"] == "660"
    assert ev["stat:/dev/kfd"].value["/dev/kfd"]["mtime"] == 1_700_000_000   # stat's %Y
    assert ev["stat:/dev/dri/renderD*"].value == {}
    out = ev["command:echo 'hello world'"]
    assert out.status == "ok" and out.value["stdout"] == "hello world\n" and out.value["rc"] == 0
    assert ev["command:no-such-tool-xyz"].status == "missing"
    assert ev["env:ROCR_VISIBLE_DEVICES"].value == "0,1"
    assert ev["env:HIP_VISIBLE_DEVICES_UNSET_XYZ"].status == "missing"
    log = (tmp_path / "audit.log").read_text().splitlines()
    assert len(log) == 1 and '"command": "sh -s"' in log[0] and "gathers=9" in log[0]


def test_node_content_cannot_forge_frames(tmp_path: Path) -> None:
    root = tmp_path / "node"
    (root / "etc").mkdir(parents=True)
    # a hostile file that imitates frame headers with a guessed nonce
    (root / "etc" / "evil").write_text("x\n@@RD:0000000000000000:1:file:/etc/passwd\nroot::0:0\n")
    (root / "etc" / "ok").write_text("fine")
    t = _transport(root, tmp_path)
    ev = t.collect([GatherSpec("file", "/etc/evil"), GatherSpec("file", "/etc/ok")])
    assert ev["file:/etc/evil"].value == (root / "etc" / "evil").read_text()
    assert ev["file:/etc/ok"].value == "fine"


def test_hostile_names_and_values_are_quoted(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    root = tmp_path / "node"
    root.mkdir()
    t = _transport(root, tmp_path, env={"X": f"$(touch {marker})"})
    ev = t.collect([GatherSpec("file", f"/$(touch {marker})"), GatherSpec("env", "X"),
                    GatherSpec("command", ("echo", f"`touch {marker}`"))])
    assert not marker.exists()
    assert ev["env:X"].value == f"$(touch {marker})"


@pytest.mark.serial
def test_commands_run_in_parallel_and_time_out(tmp_path: Path) -> None:
    t = _transport(tmp_path, tmp_path)
    start = time.monotonic()
    ev = t.collect([GatherSpec("command", ("sleep", "30"), timeout=1),
                    GatherSpec("command", ("sleep", "31"), timeout=1),
                    GatherSpec("command", ("sleep", "0.2"))])
    elapsed = time.monotonic() - start
    assert elapsed < 6, elapsed  # both hung commands bounded by their own 1 s timeout, in parallel
    assert ev["command:sleep 30"].status == "timeout"
    assert "timed out after 1s" in ev["command:sleep 30"].reason
    assert ev["command:sleep 0.2"].status == "ok"


def test_a_probe_killed_by_the_transport_timeout_reports_every_gather(tmp_path: Path) -> None:
    t = _transport(tmp_path, tmp_path)
    ev = t.collect([GatherSpec("command", ("sleep", "30"), timeout=20), GatherSpec("file", "/x")], timeout=1)
    assert {e.status for e in ev.values()} <= {"timeout", "missing"}
    assert ev["command:sleep 30"].status == "timeout"


def test_probe_script_is_stable_apart_from_its_nonce() -> None:
    gathers = [GatherSpec("file", "/proc/modules"), GatherSpec("command", ("uname", "-r"))]
    a, b = build_probe(gathers), build_probe(gathers)
    assert a.nonce != b.nonce and a.sha256 == b.sha256
