"""HSA_OVERRIDE_GFX_VERSION as ollama logs it (parser ollama_env) and the gpu-not-visible reading of a value
the runtime rejects. Lines verbatim from the corpus: ollama/ollama#4358 (a value that kept its quotes),
#6336 (bare), #6673 (the server config map), Crosstalk-Solutions/project-nomad#810."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers.ollama_env import parse_ollama_env
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CORPUS = Path(__file__).parent / "incidents"
QUOTED = (CORPUS / "gpu-not-visible" / "ollama-780m-quoted-gfx-override" / "bundle" / "files" / "ticket"
          / "ollama.log").read_text()
BARE = ('time=2024-08-13T16:46:10.463+08:00 level=INFO source=amd_linux.go:348 msg="skipping rocm gfx compatibility '
        'check" HSA_OVERRIDE_GFX_VERSION=9.0.0')
MAP = ('2024/09/06 11:43:25 routes.go:1125: INFO server config env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: '
       'HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION:10.3.0 OLLAMA_DEBUG:true OLLAMA_FLASH_ATTENTION:false')
RUNNER = 'runner.go:485 WARN msg="user overrode visible devices" HSA_OVERRIDE_GFX_VERSION=11.0.0'
SHELL = 'HSA_OVERRIDE_GFX_VERSION="11.0.2" /usr/local/bin/ollama serve '


@pytest.mark.parametrize("text, value", [
    (QUOTED, '"11.0.3"'),      # slog quoted the value because it holds quote characters
    (BARE, "9.0.0"), (MAP, "10.3.0"), (RUNNER, "11.0.0"),
    (SHELL, None),             # the shell's quotes, not ollama's line
    ("2024/09/06 routes.go:1125: INFO server config env=\"map[HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: OLLAMA_DEBUG:false]\"", None),
])
def test_the_override_as_ollama_logged_it(text: str, value: str | None) -> None:
    assert parse_ollama_env(text)["override"] == value


def test_a_logged_value_with_its_quotes_hides_the_gpus(tmp_path: Path) -> None:
    rb, step = triage_bundle_step(tmp_path, {"files/ticket/ollama.log": QUOTED}, "gpu-not-visible", "logoverride",
                                  {"log": "/ticket/ollama.log"})
    assert step.state == State.FAIL
    assert 'HSA_OVERRIDE_GFX_VERSION="\\"11.0.3\\""' in step.check.message
    assert "holds quote characters" in step.check.message
    assert step.check.evidence[0].startswith("/ticket/ollama.log:5: time=2024-05-11T12:13:33.929Z")
    assert rb.diagnoses[0].diagnosis_id == "gfx-override-invalid-hides-gpus"


def test_a_well_formed_logged_value_passes(tmp_path: Path) -> None:
    _, step = triage_bundle_step(tmp_path, {"files/ticket/ollama.log": BARE}, "gpu-not-visible", "logoverride",
                                 {"log": "/ticket/ollama.log"})
    assert step.state == State.PASS and "9.0.0" in step.check.message
