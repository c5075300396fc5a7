"""`--format json`: one document that validates against the schema in docs/sweep-schema.json."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from rocmdoctor.fleet.outputs.json_doc import render_json

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "sweep-schema.json"


def test_json_document_matches_documented_schema(sweep) -> None:
    doc = json.loads(render_json(sweep))
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert doc["schema"] == "rocmdoctor.sweep/1"
    assert [h["host"] for h in doc["hosts"]][:2] == ["node002", "node003"]  # worst first
    assert doc["counts"] == {"pass": 1, "warn": 1, "fail": 1, "unknown": 3}
    assert doc["unreachable"] == {"host-key-changed": 1, "timeout": 1}
    node004 = next(h for h in doc["hosts"] if h["host"] == "node004")
    assert (node004["reachable"], node004["reason"], node004["exit_status"]) == (False, "host-key-changed", 3)
    assert doc["exit_status"] == 2 and doc["ssh_retries"] == 3


def test_schema_rejects_a_wrong_document(sweep) -> None:
    doc = json.loads(render_json(sweep))
    doc["hosts"][0]["state"] = "broken"
    try:
        jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    except jsonschema.ValidationError as exc:
        assert "broken" in str(exc.message)
    else:
        raise AssertionError("schema accepted an unknown state")
