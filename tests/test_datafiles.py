"""The `data:` key of checks: packaged reference files, validated at load, read-only in rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.datafiles import DataFileError, data_names, load_data
from rocmdoctor.errors import DefinitionError
from rocmdoctor.engine.evaluate import evaluate_check
from rocmdoctor.results import Evidence
from rocmdoctor.catalog.schema_checks import parse_checks
from rocmdoctor.status import State
from rocmdoctor.catalog.yaml_lines import load_yaml

CHECK = """\
- id: t.kernel
  title: t
  data: {name}
  gather:
    rel: {{file: /proc/sys/kernel/osrelease, parse: text}}
  outputs:
    series: "rel | regex_search('^([0-9]+[.][0-9]+)')"
  rules:
    - when: "series in data.releases['6.2'].os['ubuntu 22.04'].kernels"
      state: pass
      message: "{{{{ series }}}} listed"
    - state: warn
      message: "{{{{ series }}}} not listed"
"""


def _checks(text: str):
    return parse_checks(load_yaml(text, "t.yaml"), "t.yaml")


def _ev(value: str) -> dict[str, Evidence]:
    key = "file:/proc/sys/kernel/osrelease"
    return {key: Evidence(key, "file", "cat /proc/sys/kernel/osrelease", "ok", value)}


def test_packaged_data_names_its_sources() -> None:
    assert "rocm_supported_kernels" in data_names()
    doc = load_data("rocm_supported_kernels")
    assert all(s.get("url") for s in doc["sources"])
    assert doc["releases"]["6.2"]["os"]["ubuntu 22.04"]["excluded_kernels"] == {"MI300X": ["6.5", "6.8"]}
    assert doc["drivers"]["6.8.5"] == "6.2"


def test_rules_see_data() -> None:
    (check,) = _checks(CHECK.format(name="rocm_supported_kernels"))
    assert evaluate_check(check, _ev("5.15.0-119-generic\n"), {}).state == State.PASS
    r = evaluate_check(check, _ev("6.2.0-39-generic\n"), {})
    assert r.state == State.WARN and r.message == "6.2 not listed"


def test_unknown_data_name_is_a_located_error() -> None:
    with pytest.raises(DefinitionError) as exc:
        _checks(CHECK.format(name="rocm_supported_kernel"))
    assert exc.value.line == 3 and "unknown data file 'rocm_supported_kernel'" in str(exc.value)
    assert "rocm_supported_kernels" in str(exc.value)  # did-you-mean hint


def test_data_is_a_reserved_gather_name() -> None:
    text = CHECK.format(name="rocm_supported_kernels").replace("    rel: {", "    data: {").replace("rel |", "data |")
    with pytest.raises(DefinitionError, match="reserved"):
        _checks(text)


def test_file_without_sources_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rocmdoctor.catalog.datafiles as df

    (tmp_path / "nosrc.yaml").write_text("releases: {}\n")
    monkeypatch.setattr(df, "DATA_DIR", tmp_path)
    df.load_data.cache_clear()
    try:
        with pytest.raises(DataFileError, match="sources"):
            df.load_data("nosrc")
    finally:
        df.load_data.cache_clear()


def test_a_key_written_twice_is_refused_with_both_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML would keep the second "7.1:" silently; a data table transcribed twice must say so instead."""
    import rocmdoctor.catalog.datafiles as df

    (tmp_path / "twice.yaml").write_text('sources: [{id: a}]\nreleases:\n  "7.1": {os: {}}\n  "7.0": {}\n  "7.1": {}\n')
    monkeypatch.setattr(df, "DATA_DIR", tmp_path)
    monkeypatch.setattr(df, "_read_cached", lambda cached: None)
    df.load_data.cache_clear()
    try:
        with pytest.raises(DataFileError, match=r"twice\.yaml:5: duplicate key '7\.1' \(first at line 3\)"):
            df.load_data("twice")
    finally:
        df.load_data.cache_clear()


def test_every_packaged_data_file_loads_without_a_repeated_key() -> None:
    import rocmdoctor.catalog.datafiles as df

    for name in data_names():
        assert df._parse(df.DATA_DIR / f"{name}.yaml").get("sources"), name


def test_gfx_products_name_each_product_under_one_target_only() -> None:
    """Two targets for one reduced name would make product_target guess: the table must not hold one."""
    from rocmdoctor.catalog.filters import product_key

    targets = load_data("gfx_products")["targets"]
    seen: dict[str, str] = {}
    for gfx, names in targets.items():
        assert gfx.startswith("gfx") and names, gfx
        for name in names:
            key = product_key(name)
            assert key and seen.setdefault(key, gfx) == gfx, (name, gfx, seen.get(key))


@pytest.mark.parametrize(("name", "target"), [
    ("AMD Radeon(TM) 8060S Graphics", "gfx1151"),   # rocminfo's Marketing Name (debpalash/VoiceStudio#1274)
    ("Radeon 8060S Graphics", "gfx1151"),           # clinfo's Board name (ROCm/legacy-rocm-build#5696)
    ("AMD Radeon AI PRO R9700", "gfx1201"),
    ("AMD Instinct MI210", "gfx90a"),
    ("AMD Instinct MI300X", "gfx942"),
    ("Radeon RX 9050 (4GB)", "gfx1200"),
    ("AMD Radeon Graphics", None),                   # the generic name of many APUs is no product
    ("", None),
])
def test_product_target_reads_the_names_tools_print(name: str, target: str | None) -> None:
    from rocmdoctor.catalog.expressions import FILTERS

    assert FILTERS["product_target"](name, load_data("gfx_products")["targets"]) == target


def test_product_target_refuses_a_name_listed_under_two_targets() -> None:
    from rocmdoctor.catalog.expressions import FILTERS

    assert FILTERS["product_target"]("AMD Radeon VII", {"gfx906": ["Radeon VII"], "gfx1030": ["Radeon VII"]}) is None


def test_supported_gpu_lists_name_their_source_and_quote_it() -> None:
    """Every release's GPU list in rocm_supported_gpus traces to a listed source and quotes it; targets are
    LLVM names (a typo would silently fail every GPU of that release)."""
    import re

    from rocmdoctor.catalog.datafiles import load_data

    doc = load_data("rocm_supported_gpus")
    ids = {s["id"] for s in doc["sources"]}
    assert len(doc["releases"]) >= 40
    for key, rel in doc["releases"].items():
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?", key), key
        assert rel["source"] in ids and rel.get("quote"), key
        for gfx in (*rel.get("gfx", []), *(rel.get("deprecated") or []), *(rel.get("unsupported") or [])):
            assert re.fullmatch(r"gfx[0-9a-f]{3,4}", gfx), (key, gfx)


def test_a_data_file_is_parsed_once_per_version_and_reread_when_it_changes(tmp_path, monkeypatch) -> None:
    import os

    from rocmdoctor.catalog import datafiles

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(datafiles, "DATA_DIR", tmp_path / "data")
    (tmp_path / "data").mkdir()
    f = tmp_path / "data" / "t.yaml"
    f.write_text("sources: [{url: https://example.invalid/a}]\nvalue: 1\n")
    datafiles.load_data.cache_clear()
    try:
        assert datafiles.load_data("t")["value"] == 1
        assert len(list((tmp_path / "cache" / "rocmdoctor" / "data").glob("t-*.pickle"))) == 1
        f.write_text("sources: [{url: https://example.invalid/a}]\nvalue: 22\n")
        os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 1_000_000_000))
        datafiles.load_data.cache_clear()
        assert datafiles.load_data("t")["value"] == 22       # a new version of the file is parsed again
        f.write_text("value: 3\n")                            # and still held to its `sources:`
        datafiles.load_data.cache_clear()
        with pytest.raises(datafiles.DataFileError, match="sources"):
            datafiles.load_data("t")
    finally:
        datafiles.load_data.cache_clear()


def test_cached_parses_stay_bounded_however_often_a_data_file_changes(tmp_path, monkeypatch) -> None:
    import os

    from rocmdoctor.catalog import datafiles

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(datafiles, "DATA_DIR", tmp_path / "data")
    (tmp_path / "data").mkdir()
    f = tmp_path / "data" / "t.yaml"
    cache = tmp_path / "cache" / "rocmdoctor" / "data"
    try:
        for value in range(datafiles.DATA_CACHE_SIZE + 3):
            f.write_text(f"sources: [{{url: https://example.invalid/a}}]\nvalue: {value}\n")
            os.utime(f, ns=(f.stat().st_atime_ns, 1_000_000_000 * (value + 1)))
            datafiles.load_data.cache_clear()
            assert datafiles.load_data("t")["value"] == value
        kept = sorted(cache.glob("t-*.pickle"))
        assert len(kept) == datafiles.DATA_CACHE_SIZE
        newest = f"t-{1_000_000_000 * (datafiles.DATA_CACHE_SIZE + 3)}-"
        assert any(p.name.startswith(newest) for p in kept)   # the version in use survives the pruning
    finally:
        datafiles.load_data.cache_clear()


def test_the_validated_catalog_cache_keeps_only_the_newest_few(tmp_path, monkeypatch) -> None:
    from rocmdoctor.catalog import loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "CATALOG_CACHE_SIZE", 2)
    cache = tmp_path / "cache" / "rocmdoctor" / "catalog"
    for n in range(4):  # four different user dirs: four catalogs, each validated and written once
        extra = tmp_path / f"user{n}"
        extra.mkdir()
        (extra / "c.yaml").write_text(f"- id: user-check-{n}\n  title: a user's own check\n"
                                      "  gather:\n    rel: {file: /proc/sys/kernel/osrelease, parse: text}\n"
                                      "  rules:\n    - state: pass\n      message: read\n")
        assert f"user-check-{n}" in loader.load_catalog([extra]).checks
    assert len(list(cache.glob("*.pickle"))) == 2
