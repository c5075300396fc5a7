"""`cause_of`: a line that names why a runbook's symptom happened goes ahead of that symptom. AMD's device
plugin that panics on a nil inotify watcher (ROCm/k8s-device-plugin, the log a corpus case copied verbatim)
is the reason the node advertises no amd.com/gpu; the runbook's own `k8s-gpus-not-allocatable` still follows
it, so nothing is hidden."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.schema_signatures import parse_signatures
from rocmdoctor.catalog.yaml_lines import load_yaml
from rocmdoctor.errors import DefinitionError

CASE = Path(__file__).parents[1] / "incidents" / "container-mount-failure" / "k8s-device-plugin-fsnotify-nil-watcher-panic"


def test_the_plugins_panic_comes_before_the_symptom_it_causes() -> None:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "triage", "--from", str(CASE / "bundle"),
                           "--runbook", "container-mount-failure", "--log", "/ticket/device-plugin.log",
                           "--format", "json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ROCMDOCTOR_INCIDENTS_DIR": os.devnull + "/no-journal"})
    assert "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    cmf = next(r for r in report["runbooks"] if r["runbook_id"] == "container-mount-failure")
    first, second = cmf["diagnoses"][:2]
    assert (first["diagnosis_id"], second["diagnosis_id"]) == ("device-plugin-fs-watcher-failed",
                                                               "k8s-gpus-not-allocatable")
    assert any("fsnotify.(*Watcher).Close(0x0" in ev for ev in first["evidence"])
    assert "fs.inotify.max_user_instances" in first["cause"]


def _parse(tmp_path: Path, extra: dict) -> None:
    sig = {"id": "s", "family": "f", "pattern": "plugin panicked here", "means": "m", "runbook": "gpu-oom",
           "diagnosis": "d", "source": "https://github.com/a/b/issues/1", "example": "plugin panicked here", **extra}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"signatures": [sig]}))
    parse_signatures(load_yaml(path.read_text(), str(path)), str(path), {"gpu-oom": None})


@pytest.mark.parametrize("extra, error", [
    ({"cause_of": ["d"]}, "must list other diagnosis ids"),
    ({"cause_of": ["Not An Id"]}, "must list other diagnosis ids"),
    ({"cause_of": ["x"], "fallback": True}, "is a fallback"),
])
def test_a_cause_of_that_names_itself_or_sits_on_a_fallback_is_refused(tmp_path: Path, extra: dict, error: str) -> None:
    with pytest.raises(DefinitionError, match=error) as exc:
        _parse(tmp_path, extra)
    assert "s.yaml" in str(exc.value)
