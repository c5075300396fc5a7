"""A condition on a signature's captured values (`when`), for what a regular expression cannot say without
back-references: apt's "<pkg> : Depends: <dep> (= A) but B is to be installed" is two builds of ONE upstream
release (the updates pocket missing) only when A and B share their upstream part; AMD's package against the
distribution's differ there and keep their own reading. Lines verbatim from ROCm/rocm-install-on-linux#323 and
ROCm/legacy-rocm-build#6367."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.schema_signatures import parse_signatures
from rocmdoctor.catalog.yaml_lines import load_yaml
from rocmdoctor.engine.signatures import explain_text
from rocmdoctor.errors import DefinitionError

SAME_RELEASE = " libzstd-dev : Depends: libzstd1 (= 1.5.5+dfsg2-2build1) but 1.5.5+dfsg2-2build1.1 is to be installed"
AMD_VS_DISTRO = "                        Depends: rocm-cmake (= 0.14.0.70204-93~24.04) but 6.0.0-1 is to be installed"


def _diagnoses(text: str) -> dict[str, str]:
    return {m.signature_id: m.diagnosis for m in explain_text(text)}


def test_two_builds_of_one_release_read_as_the_updates_pocket_missing() -> None:
    [m] = [m for m in explain_text(SAME_RELEASE) if m.signature_id == "apt-dev-package-from-release-pocket"]
    assert m.diagnosis == "distro-updates-repo-missing"
    assert m.groups["want"] == "1.5.5+dfsg2-2build1" and m.groups["have"] == "1.5.5+dfsg2-2build1.1"
    assert "libzstd1 1.5.5+dfsg2-2build1.1 is installed" in m.means


def test_amds_package_against_the_distributions_keeps_its_own_reading() -> None:
    found = _diagnoses(AMD_VS_DISTRO)
    assert "apt-dev-package-from-release-pocket" not in found      # the pattern matches; its condition does not hold
    assert found["apt-distro-rocm-package-outranks-amd"] == "distro-rocm-package-version-conflict"


def _parse(tmp_path: Path, sig: dict) -> None:
    base = {"id": "s", "family": "f", "pattern": r"want (?P<a>\w+) have (?P<b>\w+)", "means": "m",
            "runbook": "gpu-oom", "diagnosis": "d", "source": "https://github.com/a/b/issues/1",
            "example": "want x have x"}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"signatures": [{**base, **sig}]}))
    parse_signatures(load_yaml(path.read_text(), str(path)), str(path), {"gpu-oom": None})


@pytest.mark.parametrize("when, error", [
    ("a != b", "matches its pattern but not its 'when'"),   # the example must satisfy it
    ("a ==", "when"),                                       # not an expression
])
def test_a_condition_that_its_example_fails_or_that_does_not_parse_is_refused(
        tmp_path: Path, when: str, error: str) -> None:
    with pytest.raises(DefinitionError, match=error) as exc:
        _parse(tmp_path, {"when": when})
    assert "s.yaml" in str(exc.value)


def test_a_condition_its_example_satisfies_loads(tmp_path: Path) -> None:
    _parse(tmp_path, {"when": "a == b"})
