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
# cached parses kept per data file: one per checkout in use, not one per edit
DATA_CACHE_SIZE = 4


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
    path = DATA_DIR / f"{name}.yaml"
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataFileError(f"no data file '{name}' (known: {', '.join(data_names()) or 'none'})") from None
    except OSError as exc:
        raise DataFileError(f"data file {path}: {exc}") from None
    # parsed once per file version and kept in the cache dir beside the compiled catalog: even libyaml
    # takes ~0.1 s for the tables a triage reads (benchmarks/cli_bench.py), a pickle a few ms
    cached = _cache_path(name, st.st_mtime_ns, st.st_size)
    doc = _read_cached(cached)
    if doc is None:
        doc = _parse(path)
        _write_cached(cached, doc)
    if not isinstance(doc, dict) or not doc.get("sources"):
        raise DataFileError(f"data file {path}: must be a mapping with a non-empty `sources:` list")
    return doc


def _parse(path: Path) -> Any:
    import yaml

    # libyaml's loader where PyYAML has it: the pure-Python loader takes ~0.25 s for the status-code tables.
    # PyYAML keeps the last of two equal keys without a word: a release transcribed twice (a second "7.1:" block
    # further down a table) would silently replace the first, so a repeated key is an error naming both lines.
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _Loader(base):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if isinstance(key, (str, int, float)) and key in seen:
                    raise DataFileError(f"data file {path}:{line}: duplicate key '{key}' (first at line {seen[key]}): "
                                        "each key may appear once per mapping; merge the two entries")
                seen[key] = line
            return super().construct_mapping(node, deep)

    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - a safe loader
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DataFileError(f"data file {path}: {exc}") from None


def _cache_path(name: str, mtime_ns: int, size: int) -> Path | None:
    from rocmdoctor.paths import cache_dir

    try:
        return cache_dir() / "data" / f"{name}-{mtime_ns}-{size}.pickle"
    except OSError:
        return None


def _read_cached(cached: Path | None) -> dict[str, Any] | None:
    import pickle

    if cached is None:
        return None
    try:
        doc = pickle.loads(cached.read_bytes())
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _write_cached(cached: Path | None, doc: Any) -> None:
    import pickle

    from rocmdoctor.fileio import keep_newest, write_atomic

    if cached is None:
        return
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cached, pickle.dumps(doc))
        keep_newest(cached.parent, DATA_CACHE_SIZE, f"{cached.name.split('-', 1)[0]}-*.pickle")
    except OSError:
        pass
