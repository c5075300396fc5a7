"""Packaged reference data (rocmdoctor/catalog/data/<name>.yaml) that checks read through `data:`.

A check may only see the node through its gathers; facts about the world
(which kernels a ROCm release supports) live in versioned data files shipped
with the package, each naming its public sources. A check names one with
`data: <name>` and its rules see it as `data`. Files are parsed once per
process and handed out read-only (the expression sandbox is immutable).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"


class DataFileError(ValueError):
    """A data file is missing, unreadable or lacks its `sources:`."""


def data_names() -> tuple[str, ...]:
    """Names usable in a check's `data:` key (file stems under rocmdoctor/catalog/data/)."""
    if not DATA_DIR.is_dir():
        return ()
    return tuple(sorted(p.stem for p in DATA_DIR.glob("*.yaml")))


@lru_cache(maxsize=32)
def load_data(name: str) -> dict[str, Any]:
    """The parsed data file `name`; it must be a mapping with a non-empty `sources` list,
    so every fact a verdict rests on can be traced to where it came from."""
    import yaml

    path = DATA_DIR / f"{name}.yaml"
    try:
        # libyaml's loader where PyYAML has it: the status-code tables are read on every triage
        # that matches text, and the pure-Python loader takes ~0.25 s for them (benchmarks/signatures_bench.py)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    except FileNotFoundError:
        raise DataFileError(f"no data file '{name}' (known: {', '.join(data_names()) or 'none'})") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DataFileError(f"data file {path}: {exc}") from None
    if not isinstance(doc, dict) or not doc.get("sources"):
        raise DataFileError(f"data file {path}: must be a mapping with a non-empty `sources:` list")
    return doc
