"""Find and load checks and runbooks: the built-in ones shipped in the
package, plus directories given by the user (`--path DIR` or ROCMDOCTOR_PATH,
each holding `checks/` and/or `runbooks/` or YAML files directly).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from rocmdoctor.catalog.definitions import CheckDef, RunbookDef
from rocmdoctor.errors import DefinitionError


@dataclass(frozen=True)
class Catalog:
    checks: dict[str, CheckDef]
    runbooks: dict[str, RunbookDef]

    def select(self, ids: Iterable[str]) -> list[RunbookDef]:
        ids = list(ids)
        if not ids:
            return list(self.runbooks.values())
        missing = [i for i in ids if i not in self.runbooks]
        if missing:
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError(f"unknown runbook '{missing[0]}'",
                                  f"known runbooks: {', '.join(self.runbooks)}")
        return [self.runbooks[i] for i in ids]


def builtin_dir(kind: str) -> Path:
    """Where the built-in checks/ or runbooks/ are: inside the installed package
    (mapped there by pyproject), or at the top of a source checkout."""
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / kind
    if checkout.is_dir() and (package.parent / "pyproject.toml").is_file():
        return checkout
    return package / kind


def _yaml_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def search_dirs(extra: Iterable[str | Path] = ()) -> tuple[list[Path], list[Path]]:
    """(check dirs, runbook dirs) in precedence order: built-in first, user dirs after."""
    check_dirs, runbook_dirs = [builtin_dir("checks")], [builtin_dir("runbooks")]
    env = os.environ.get("ROCMDOCTOR_PATH", "")
    for d in [*(p for p in env.split(os.pathsep) if p), *extra]:
        d = Path(d)
        if not d.is_dir():
            raise DefinitionError(str(d), None, "not a directory", "pass a directory holding checks/ or runbooks/")
        if (d / "checks").is_dir() or (d / "runbooks").is_dir():
            if (d / "checks").is_dir():
                check_dirs.append(d / "checks")
            if (d / "runbooks").is_dir():
                runbook_dirs.append(d / "runbooks")
        else:
            runbook_dirs.append(d)
    return check_dirs, runbook_dirs


def _read(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(str(path), None, f"cannot read: {exc}") from None
    from rocmdoctor.catalog.yaml_lines import load_yaml

    return load_yaml(text, str(path))


def _is_checks_doc(data: object) -> bool:
    return isinstance(data, list) or (isinstance(data, dict) and "checks" in data and "steps" not in data)


_memo: dict[str, Catalog] = {}


def _fingerprint(dirs: list[Path]) -> str:
    import hashlib

    from rocmdoctor import __version__

    h = hashlib.sha256(__version__.encode())
    h.update(str(Path(__file__).stat().st_mtime_ns).encode())
    for d in dirs:
        for path in _yaml_files(d):
            st = path.stat()
            h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return h.hexdigest()[:32]


def catalog_fingerprint(extra: Iterable[str | Path] = ()) -> str:
    """Changes whenever any definition file (path, mtime, size) or rocmdoctor changes."""
    check_dirs, runbook_dirs = search_dirs(extra)
    return _fingerprint(check_dirs + runbook_dirs)


def load_catalog(extra: Iterable[str | Path] = ()) -> Catalog:
    """Load and validate every check and runbook.

    Validation parses ~600 Jinja2 expressions (~0.5 s), so a validated catalog is
    kept per set of files (path, mtime, size) in memory and in the cache dir;
    any change to a file, or to rocmdoctor, validates again."""
    import pickle

    from rocmdoctor.paths import cache_dir

    check_dirs, runbook_dirs = search_dirs(extra)
    key = _fingerprint(check_dirs + runbook_dirs)
    if key in _memo:
        return _memo[key]
    cached = cache_dir() / "catalog" / f"{key}.pickle"
    try:
        catalog = pickle.loads(cached.read_bytes())
        if isinstance(catalog, Catalog):
            _memo[key] = catalog
            return catalog
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    catalog = _load(check_dirs, runbook_dirs)
    _memo[key] = catalog
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(catalog))
        tmp.replace(cached)
    except OSError:
        pass
    return catalog


def _load(check_dirs: list[Path], runbook_dirs: list[Path]) -> Catalog:
    # The schema, YAML and Jinja2 parsing are needed only when the cache misses.
    from rocmdoctor.catalog.schema_runbooks import parse_runbook
    from rocmdoctor.catalog.yaml_lines import line_of

    checks: dict[str, CheckDef] = {}
    runbook_docs: list[tuple[Path, object]] = []
    for d in check_dirs:
        for path in _yaml_files(d):
            _add_checks(checks, path, _read(path))
    for d in runbook_dirs:
        for path in _yaml_files(d):
            data = _read(path)
            if _is_checks_doc(data):  # a user dir may mix checks and runbooks
                _add_checks(checks, path, data)
            else:
                runbook_docs.append((path, data))
    runbooks: dict[str, RunbookDef] = {}
    for path, data in runbook_docs:
        rb = parse_runbook(data, str(path), checks)
        if rb.id in runbooks and runbooks[rb.id].path != str(path):
            if Path(runbooks[rb.id].path).parent == builtin_dir("runbooks"):
                runbooks[rb.id] = rb  # a user runbook overrides the built-in one of the same id
                continue
            raise DefinitionError(str(path), line_of(data, "id"), f"runbook '{rb.id}' is also defined in {runbooks[rb.id].path}")
        runbooks[rb.id] = rb
    return Catalog(checks=checks, runbooks=runbooks)


def _add_checks(checks: dict[str, CheckDef], path: Path, data: object) -> None:
    from rocmdoctor.catalog.schema_checks import parse_checks

    for c in parse_checks(data, str(path)):
        if c.id in checks and Path(checks[c.id].path).parent != builtin_dir("checks"):
            raise DefinitionError(str(path), c.line, f"check '{c.id}' is also defined in {checks[c.id].path}:{checks[c.id].line}",
                                  "check ids must be unique")
        checks[c.id] = c


def validate_paths(paths: Iterable[str | Path]) -> list[DefinitionError]:
    """Validate given files or directories against the built-in checks; one error per bad file."""
    errors: list[DefinitionError] = []
    try:
        base = load_catalog()
    except DefinitionError as exc:
        return [exc]
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for sub in ("checks", "runbooks", "."):
                if (p / sub).is_dir():
                    files += _yaml_files(p / sub)
        elif p.exists():
            files.append(p)
        else:
            errors.append(DefinitionError(str(p), None, "no such file or directory"))
    from rocmdoctor.catalog.schema_checks import parse_checks
    from rocmdoctor.catalog.schema_runbooks import parse_runbook

    checks = dict(base.checks)
    docs: list[tuple[Path, object]] = []
    for f in dict.fromkeys(files):
        try:
            data = _read(f)
            if _is_checks_doc(data):
                for c in parse_checks(data, str(f)):
                    checks[c.id] = c
            else:
                docs.append((f, data))
        except DefinitionError as exc:
            errors.append(exc)
    for f, data in docs:
        try:
            parse_runbook(data, str(f), checks)
        except DefinitionError as exc:
            errors.append(exc)
    return errors
