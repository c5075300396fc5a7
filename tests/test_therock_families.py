"""A ROCm installed from TheRock's build for one family of GPU targets on a GPU outside it: the family read from the
artifact the ticket names (tarball, pip index, rocm-sdk package, device- extra, TARGET_VARIANT), its targets from
TheRock's cmake/therock_amdgpu_targets.cmake (data therock_families, tools/gen_therock_families.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rocmdoctor.catalog.datafiles import load_data
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.therock_artifacts import parse_therock_artifacts
from rocmdoctor.status import State

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "tests" / "incidents"


def _step(bundle: Path, **vars: str):
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-not-visible",), vars=vars))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == "therocktargets")


def _families(text: str) -> list[tuple[str, str]]:
    return [(a["family"], a["form"]) for a in parse_therock_artifacts(text)["artifacts"]]


def test_the_parser_reads_each_artifact_form() -> None:
    # ROCm/TheRock#1850's issue form; ROCm/TheRock#8163's install; ROCm/rocSPARSE#452's steps; TheRock RELEASES.md
    assert _families("Nightly Tarball: `therock-dist-linux-gfx110X-dgpu-7.10.0a20251018.tar.gz`") == [("gfx110X-dgpu", "tarball")]
    assert _families('uv pip install --index https://repo.amd.com/rocm/whl/gfx1151/ --index-strategy unsafe-best-match \\') == [("gfx1151", "pip index")]
    assert _families('export TARGET_VARIANT="gfx120X-all"') == [("gfx120X-all", "build family")]
    assert _families('pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ \\\n    "rocm[libraries,device-gfx942,device-gfx950]"') == [
        ("gfx942", "wheel extra"), ("gfx950", "wheel extra")]
    assert _families("# rocm-sdk-device-gfx1100==7.15.0a20260630") == [("gfx1100", "package")]
    # an offload target or a multi-arch index names no family
    assert _families("hipcc --offload-arch=gfx942 x.hip\npip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ rocm") == []


def test_the_table_is_what_the_generator_reads_from_therock() -> None:
    # verbatim from ROCm/TheRock cmake/therock_amdgpu_targets.cmake at 89553ce3 (the commit the data file names)
    excerpt = '''# gfx110X family
therock_add_amdgpu_target(gfx1100 "AMD RX 7900 XTX" FAMILY dgpu-all gfx110X-all gfx110X-dgpu
  EXCLUDE_TARGET_PROJECTS
    rocprofiler-compute # https://github.com/ROCm/TheRock/issues/2892
)
therock_add_amdgpu_target(gfx1103 "AMD Radeon 780M Laptop iGPU" FAMILY igpu-all gfx110X-all gfx110X-igpu
  EXCLUDE_TARGET_PROJECTS
    rccl # https://github.com/ROCm/TheRock/issues/150
)
'''
    spec = importlib.util.spec_from_file_location("gen_therock_families", ROOT / "tools" / "gen_therock_families.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)  # type: ignore[union-attr]
    fams, names, excluded = gen.families(excerpt)
    assert fams["gfx110X-all"] == ["gfx1100", "gfx1103"] and fams["gfx110X-dgpu"] == ["gfx1100"]
    assert names["gfx1103"] == "AMD Radeon 780M Laptop iGPU" and excluded == {"gfx1100": ["rocprofiler-compute"], "gfx1103": ["rccl"]}
    table = load_data("therock_families")
    assert table["families"]["gfx110X-dgpu"] == ["gfx1100", "gfx1101", "gfx1102"]
    assert "gfx1103" in table["families"]["gfx110X-all"] and table["families"]["gfx94X-dcgpu"] == ["gfx942"]
    assert all(t in table["families"][t] for t in table["products"])  # each target is a family of its own


def test_a_780m_with_the_gfx110x_dgpu_tarball_has_no_code_object() -> None:
    case = INCIDENTS / "gpu-not-visible" / "av1-therock1850-gfx1103-on-gfx110x-dgpu-tarball-test-hip-api-segfault"
    rb, step = _step(case / "bundle", log="/ticket/test_hip_api.log", report="/ticket/report.md")
    assert step.state == State.FAIL
    msg = step.check.message
    assert "gfx110X-dgpu build (tarball)" in msg and "gfx1100, gfx1101, gfx1102 only" in msg and "gfx1103" in msg
    assert "gfx110X-all" in msg  # the way out: a family that lists the target
    assert step.check.evidence[0] == "/ticket/report.md:15: Nightly Tarball: `therock-dist-linux-gfx110X-dgpu-7.10.0a20251018.tar.gz`"
    assert step.check.evidence[1].startswith("/ticket/report.md:11:") and "gfx1103" in step.check.evidence[1]
    assert rb.diagnoses[0].diagnosis_id == "no-code-object-for-gpu"


def _ticket(tmp_path: Path, report: str) -> Path:
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "report.md").write_text(report)
    return tmp_path


def test_a_gpu_in_the_family_passes_and_an_unknown_family_says_nothing(tmp_path: Path) -> None:
    # the same issue form with the card the family is built for
    ok = _ticket(tmp_path / "a", "### GPU\n\nAMD Radeon RX 7900 XTX\n\n### ROCm Version\n\n"
                 "Nightly Tarball: `therock-dist-linux-gfx110X-dgpu-7.10.0a20251018.tar.gz`\n")
    _, step = _step(ok, report="/ticket/report.md")
    assert step.state == State.PASS and "gfx110X-dgpu" in step.check.message and "gfx1100" in step.check.message
    unknown = _ticket(tmp_path / "b", "### GPU\n\nAMD Radeon RX 7900 XTX\n\nexport TARGET_VARIANT=\"gfx99X-all\"\n")
    _, step = _step(unknown, report="/ticket/report.md")
    assert step.state == State.SKIPPED


def test_a_node_whose_therock_install_lacks_its_gpu_fails(tmp_path: Path) -> None:
    # TheRock's base/aux-overlay/CMakeLists.txt writes share/therock/dist_info.json as
    # string(JSON ... SET "{}" "dist_amdgpu_targets" "\"${GPU_TARGETS}\""): the targets, ;-separated
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios import gpu_not_visible as gnv
    from rocmdoctor.testing.triage_helpers import steps, triage_node

    plan = compile_plan(load_catalog(), ["gpu-not-visible"], {})
    node = gnv.healthy().file("/opt/rocm/share/therock/dist_info.json", '{"dist_amdgpu_targets":"gfx1100;gfx1101;gfx1102"}')
    _, report = triage_node(node, tmp_path / "a", plan)
    step = steps(report)["therocktargets"]
    assert step.state == State.FAIL and "gfx1100, gfx1101, gfx1102 only" in step.check.message and "gfx942" in step.check.message
    assert "/opt/rocm/share/therock/dist_info.json: dist_amdgpu_targets gfx1100;gfx1101;gfx1102" in step.check.evidence
    assert any(d.diagnosis_id == "no-code-object-for-gpu" for d in report.runbooks[0].diagnoses)
    node = gnv.healthy().file("/opt/rocm/share/therock/dist_info.json", '{"dist_amdgpu_targets":"gfx942"}')
    _, report = triage_node(node, tmp_path / "b", plan)
    assert steps(report)["therocktargets"].state == State.PASS
