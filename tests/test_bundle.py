"""Capture a node into a bundle, triage the bundle, compare with the live triage;
hand-written and hostile bundles."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rocmdoctor.evidence import bundle as bundle_mod
from rocmdoctor.evidence.bundle import BundleError, read_bundle
from rocmdoctor.engine.capture import capture_target
from rocmdoctor.cli.main import full_app
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

app = full_app()

ENGINE = Path(__file__).parent / "data" / "engine"


def _verdicts(report) -> list[tuple[str, str, str]]:
    return [(s.step_id, s.state.value, s.check.message if s.check else s.skipped_because)
            for rb in report.runbooks for s in rb.steps]


@pytest.fixture
def engine_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ROCMDOCTOR_AUDIT_LOG", str(tmp_path / "audit.log"))
    root = tmp_path / "node"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "modules").write_text("video 65536 0 - Live 0x0\n")
    (root / "etc").mkdir()
    (root / "etc" / "eng.conf").write_text("mode=strict\napi_token=s3cr3t\n")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "engtool").write_text('#!/bin/sh\necho \'[{"gpu": 0}]\'\n')
    (bin_dir / "engtool").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return root


def test_capture_then_replay_gives_the_live_verdicts(engine_node: Path, tmp_path: Path) -> None:
    request = TriageRequest(target="local", runbooks=("engine-test",), rootfs=str(engine_node), paths=(str(ENGINE),))
    live = triage_target(request)
    out, bundle = capture_target(request, tmp_path / "b.tar.gz")
    replayed = triage_target(TriageRequest(target="", runbooks=("engine-test",), paths=(str(ENGINE),), bundle=str(out)))
    assert _verdicts(replayed) == _verdicts(live)
    assert replayed.state == live.state == State.FAIL  # module missing; engps (not installed) is UNKNOWN in both
    assert [d.diagnosis_id for rb in replayed.runbooks for d in rb.diagnoses] == ["module-missing"]
    manifest = bundle.manifest
    assert manifest["format"] == "rocmdoctor-bundle" and manifest["host"] == "local"
    statuses = {i["key"]: i["status"] for i in manifest["items"]}
    assert statuses["command:engps"] == "missing" and statuses["file:/proc/modules"] == "ok"
    assert "command:dmesg" in statuses and "file:/etc/os-release" in statuses  # context for support


def test_secrets_are_masked_unless_no_redact(engine_node: Path, tmp_path: Path) -> None:
    request = TriageRequest(target="local", runbooks=("engine-test",), rootfs=str(engine_node), paths=(str(ENGINE),))
    _, b = capture_target(request, tmp_path / "r.tar.gz")
    assert b.text("files/etc/eng.conf") == "mode=strict\napi_token=********\n"
    assert b.manifest["masked_values"] >= 1 and b.manifest["redacted"] is True
    _, b = capture_target(request, tmp_path / "nr.tar.gz", redact=False)
    assert "api_token=s3cr3t" in b.text("files/etc/eng.conf")


def test_hand_written_bundle_directory(tmp_path: Path) -> None:
    """The docs' recipe: only what you have; the rest is UNKNOWN 'not in bundle'."""
    d = tmp_path / "hand"
    (d / "files" / "proc").mkdir(parents=True)
    (d / "files" / "proc" / "modules").write_text("amdgpu 15458304 3 - Live 0x0\n")
    (d / "commands" / "engtool --json").mkdir(parents=True)
    (d / "commands" / "engtool --json" / "stdout").write_text("[]\n")
    report = triage_target(TriageRequest(target="", runbooks=("engine-test",), paths=(str(ENGINE),), bundle=str(d)))
    got = {s.step_id: (s.state, s.check.message if s.check else "") for s in report.runbooks[0].steps}
    assert got["module"] == (State.PASS, "amdgpu loaded, refcount 3")
    assert got["tool"] == (State.WARN, "engtool lists nothing")
    assert got["optional"] == (State.UNKNOWN, "`cat /etc/eng.conf`: not in bundle")
    assert got["procs"] == (State.UNKNOWN, "`engps`: not in bundle")


def _tar(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info in members:
            payload = (data or {}).get(info.name, b"")
            if info.isfile():
                info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload) if info.isfile() else None)
    return path


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


@pytest.mark.parametrize("member,needle", [
    (_info("../escape"), "unsafe member path '../escape'"),
    (_info("b/../../escape"), "unsafe member path"),
    (_info("/etc/passwd"), "unsafe member path '/etc/passwd'"),
    (_info("b/files/proc/modules", tarfile.SYMTYPE, "/etc/shadow"), "refusing link member"),
    (_info("b/files/x", tarfile.LNKTYPE, "b/manifest.json"), "refusing link member"),
    (_info("b/dev/kfd", tarfile.CHRTYPE), "refusing special file member"),
])
def test_hostile_archives_are_refused_and_write_nothing(tmp_path: Path, member: tarfile.TarInfo, needle: str) -> None:
    archive = _tar(tmp_path / "evil.tar.gz", [_info("b/manifest.json"), member], {"b/manifest.json": b"{}"})
    before = set(tmp_path.parent.rglob("*"))
    with pytest.raises(BundleError, match=needle.replace("(", r"\(")):
        read_bundle(archive)
    assert set(tmp_path.parent.rglob("*")) == before


def test_huge_member_and_garbage_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundle_mod, "MAX_MEMBER_BYTES", 1000)
    archive = _tar(tmp_path / "big.tar.gz", [_info("b/files/big")], {"b/files/big": b"x" * 5000})
    with pytest.raises(BundleError, match="is 5000 bytes"):
        read_bundle(archive)
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b\x08garbage")
    with pytest.raises(BundleError, match="not a readable bundle"):
        read_bundle(junk)


def test_cli_reports_a_bad_bundle_in_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_text("hello")
    result = CliRunner().invoke(app, ["triage", "--from", str(junk)])
    assert result.exit_code == 2
    assert f"rocmdoctor: error: {junk}: not a readable bundle (neither a plain nor a gzip, bzip2 or xz tar archive)" in result.output
    # tarfile's own message lists each compression it tried on a line of its own; ours is one line and a hint
    assert [ln.split(":")[0] for ln in result.output.splitlines()] == ["rocmdoctor", "  hint"]
    assert "Traceback" not in result.output


def test_cli_capture_writes_a_bundle(engine_node: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.tar.gz"
    result = CliRunner().invoke(app, ["capture", "local", "--rootfs", str(engine_node), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    manifest = json.loads(read_bundle(out).members["manifest.json"])
    assert manifest["facts"]["kernel"] is None  # the fake root has no /proc/sys/kernel/osrelease


def test_hand_written_bundle_with_kernel_log_and_amd_smi_only(tmp_path: Path) -> None:
    """Issue 3's recipe with the real runbooks: a pasted dmesg and an `amd-smi metric --json`."""
    from rocmdoctor.simnode.formats.amd_smi import render_metric_json
    from rocmdoctor.simnode.formats.kernel import render_dmesg
    from rocmdoctor.simnode.formats.kernel_lines import messages
    from rocmdoctor.simnode.gpu import mi300x_gpus

    lines = messages("firmware_missing", bdf="0000:05:00.0")
    gpus = mi300x_gpus(8)
    gpus[3].gfx_activity, gpus[3].thermal_violation_pct = 100, 35.0
    d = tmp_path / "ticket"
    (d / "commands" / "dmesg").mkdir(parents=True)
    (d / "commands" / "dmesg" / "stdout").write_text(render_dmesg([(12.5 + i, m) for i, m in enumerate(lines)]))
    (d / "commands" / "amd-smi metric --json").mkdir(parents=True)
    (d / "commands" / "amd-smi metric --json" / "stdout").write_text(render_metric_json(gpus))

    report = triage_target(TriageRequest(target="", bundle=str(d)))
    steps = {(rb.runbook_id, s.step_id): s for rb in report.runbooks for s in rb.steps}
    judged = {k: s for k, s in steps.items() if s.check and s.state != State.UNKNOWN}
    unknown = [s for s in steps.values() if s.state == State.UNKNOWN]
    # the pasted evidence is judged ...
    firmware = [s for s in judged.values() if s.check.check_id == "kernel.amdgpu_firmware"]
    assert firmware and firmware[0].state == State.FAIL
    assert any("polaris12_mc.bin" in e for e in firmware[0].check.evidence)
    # ... and what the bundle does not hold is UNKNOWN "not in bundle", never a pass
    assert unknown and all("not in bundle" in s.check.message for s in unknown)
    assert not any(s.state == State.PASS and "not in bundle" in s.check.message for s in steps.values())
    assert report.exit_status in (2, 3)


def _ticket_with_ls_listing(tmp_path: Path) -> Path:
    """A hand-written bundle holding ROCm/legacy-rocm-build#5379's `ls -la /dev/kfd /dev/dri*` paste."""
    d = tmp_path / "ticket"
    (d / "listings").mkdir(parents=True)
    (d / "listings" / "ls-la").write_text(
        (Path(__file__).parent / "fixtures" / "outputs" / "ls" / "ls-la-dev-kfd-dri-lxc.txt").read_text())
    return d


def test_pasted_ls_listing_answers_stat_gathers(tmp_path: Path) -> None:
    """A ticket's `ls -la /dev/kfd /dev/dri*` (ROCm/legacy-rocm-build#5379) under listings/: the device
    steps read it, a directory the listing shows is complete, one it does not show stays unknown."""
    from rocmdoctor.evidence.probe import GatherSpec
    from rocmdoctor.transports.replay import open_bundle

    d = _ticket_with_ls_listing(tmp_path)
    (d / "files" / "etc").mkdir(parents=True)
    (d / "files" / "etc" / "group").write_text("root:x:0:\nvideo:x:44:\nrender:x:993:\n")
    t = open_bundle(str(d))
    kfd = t.evidence_for(GatherSpec("stat", "/dev/kfd"))
    assert kfd.status == "ok" and kfd.value == {"/dev/kfd": {
        "type": "character special file", "mode": "666", "uid": 0, "gid": 993, "group": "render", "major": 511, "minor": 0}}
    render = t.evidence_for(GatherSpec("stat", "/dev/dri/renderD*"))
    assert sorted(render.value) == ["/dev/dri/renderD128", "/dev/dri/renderD129"] and render.value["/dev/dri/renderD128"]["gid"] == 44
    assert t.evidence_for(GatherSpec("stat", "/dev/dri/card*")).value == {}            # /dev/dri is listed: none
    assert t.evidence_for(GatherSpec("stat", "/sys/class/kfd/kfd")).status == "unavailable"


def test_probe_stat_reports_device_major_and_minor(tmp_path: Path) -> None:
    """`stat -c %t %T` on a real character device (/dev/null is 1:3 on Linux)."""
    from rocmdoctor.evidence.probe import GatherSpec
    from rocmdoctor.transports.local import LocalTransport

    ev = LocalTransport().collect([GatherSpec("stat", "/dev/null")])["stat:/dev/null"]
    assert ev.status == "ok"
    node = ev.value["/dev/null"]
    assert node["type"] == "character special file" and (node["major"], node["minor"]) == (1, 3)


def test_pasted_groups_and_listing_judge_access_by_group_names(tmp_path: Path) -> None:
    """A ticket with `groups` and `ls -la` but no `id`: access is judged by group names. The listing is
    ROCm/legacy-rocm-build#5379's (/dev/kfd 0666, renderD* group video 0660); the groups line is
    ROCm/ROCm-docker#116's rocm-user (sudo, video), put together here: video opens the render nodes."""
    d = _ticket_with_ls_listing(tmp_path)
    (d / "commands" / "groups").mkdir(parents=True)
    (d / "commands" / "groups" / "stdout").write_text("rocm-user sudo video\n")
    report = triage_target(TriageRequest(target="", runbooks=("gpu-not-visible",), bundle=str(d)))
    step = next(s for rb in report.runbooks for s in rb.steps if s.check and s.check.check_id == "devices.access")
    assert step.state == State.PASS
    assert step.check.message.endswith("can open /dev/kfd and 2 render node(s) (groups rocm-user, sudo, video)")
    assert step.check.evidence == ("groups: rocm-user sudo video", "/dev/kfd: mode 666 group render",
                                   "/dev/dri/renderD128: mode 660 group video", "/dev/dri/renderD129: mode 660 group video")


def test_every_member_name_of_a_captured_bundle_fits_a_file_system(tmp_path: Path) -> None:
    # the checks' own shell snippets are hundreds of bytes; `tar x` of a bundle must not fail with
    # "File name too long", so they are stored under their `rocmdoctor-NAME`
    out = tmp_path / "b.tar.gz"
    capture_target(TriageRequest(target="demo:hw-pcie-trained-down"), out)
    with tarfile.open(out) as tar:
        names = tar.getnames()
    assert max(len(part.encode()) for n in names for part in n.split("/")) <= 255
    top = names[0].split("/")[0]
    assert f"{top}/commands/rocmdoctor-pci-path/stdout" in names
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    # the extracted directory replays like the archive
    report = triage_target(TriageRequest(target="x", bundle=str(tmp_path / "x" / top), runbooks=("gpu-hardware-fault",)))
    pcie = {s.step_id: s for s in report.runbooks[0].steps}["pcie"]
    assert pcie.state == State.WARN and "its package's port 0000:0b:00.0" in pcie.check.message


def test_long_command_names_keep_a_prefix_and_a_hash() -> None:
    argv = ["amd-smi", "metric", "--json", *[f"--gpu={i}" for i in range(60)]]
    d = bundle_mod.command_dir(argv)
    assert d.startswith("commands/amd-smi metric --json --gpu=0") and len(d.split("/", 1)[1].encode()) <= 200
    assert d != bundle_mod.command_dir(argv[:-1])
    assert bundle_mod.command_dir(["sh", "-c", "id", "rocmdoctor-id", "alice"]) == "commands/rocmdoctor-id alice"
