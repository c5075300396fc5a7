"""Find and load checks, runbooks and error signatures: the built-in ones shipped
in the package, plus directories given by the user (`--path DIR` or ROCMDOCTOR_PATH,
each holding `checks/`, `runbooks/` and/or `signatures/`, or YAML files directly).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from rocmdoctor.catalog.definitions import CheckDef, RunbookDef, SignatureDef
from rocmdoctor.errors import DefinitionError


@dataclass(frozen=True)
class Catalog:
    checks: dict[str, CheckDef]
    runbooks: dict[str, RunbookDef]
    signatures: tuple[SignatureDef, ...] = ()

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


def search_dirs(extra: Iterable[str | Path] = ()) -> tuple[list[Path], list[Path], list[Path]]:
    """(check dirs, runbook dirs, signature dirs) in precedence order: built-in first,
    user dirs after. A user dir without those subfolders is read as runbook files
    (which may also hold checks or signatures)."""
    check_dirs, runbook_dirs = [builtin_dir("checks")], [builtin_dir("runbooks")]
    signature_dirs = [builtin_dir("signatures")]
    env = os.environ.get("ROCMDOCTOR_PATH", "")
    for d in [*(p for p in env.split(os.pathsep) if p), *extra]:
        d = Path(d)
        if not d.is_dir():
            raise DefinitionError(str(d), None, "not a directory",
                                  "pass a directory holding checks/, runbooks/ or signatures/")
        subs = [(d / "checks", check_dirs), (d / "runbooks", runbook_dirs), (d / "signatures", signature_dirs)]
        if any(sub.is_dir() for sub, _ in subs):
            for sub, into in subs:
                if sub.is_dir():
                    into.append(sub)
        else:
            runbook_dirs.append(d)
    return check_dirs, runbook_dirs, signature_dirs


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
# validated catalogs kept on disk (~2 MB each): a few checkouts or user dirs in turn, not every edit ever made
CATALOG_CACHE_SIZE = 8


def _fingerprint(dirs: list[Path]) -> str:
    import hashlib

    from rocmdoctor import __version__

    h = hashlib.sha256(__version__.encode())
    # the code that builds catalogs and plans: an edit to it must not reuse a cached one (signatures.py
    # decides which signature families a plan without a job log keeps)
    package = Path(__file__).resolve().parents[1]
    for code in (*sorted(Path(__file__).parent.glob("*.py")), package / "engine" / "compiler.py",
                 package / "engine" / "signatures.py"):
        try:
            h.update(f"{code.name}\0{code.stat().st_mtime_ns}\n".encode())
        except OSError:
            pass
    for d in dirs:
        for path in _yaml_files(d):
            st = path.stat()
            h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return h.hexdigest()[:32]


def catalog_fingerprint(extra: Iterable[str | Path] = ()) -> str:
    """Changes whenever any definition file (path, mtime, size) or rocmdoctor changes."""
    check_dirs, runbook_dirs, signature_dirs = search_dirs(extra)
    return _fingerprint(check_dirs + runbook_dirs + signature_dirs)


def load_catalog(extra: Iterable[str | Path] = ()) -> Catalog:
    """Load and validate every check and runbook.

    Validation parses ~600 Jinja2 expressions (~0.5 s), so a validated catalog is
    kept per set of files (path, mtime, size) in memory and in the cache dir;
    any change to a file, or to rocmdoctor, validates again."""
    import pickle

    from rocmdoctor.paths import cache_dir

    check_dirs, runbook_dirs, signature_dirs = search_dirs(extra)
    key = _fingerprint(check_dirs + runbook_dirs + signature_dirs)
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
    catalog = _load(check_dirs, runbook_dirs, signature_dirs)
    _memo[key] = catalog
    try:
        from rocmdoctor.fileio import keep_newest, write_atomic

        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cached, pickle.dumps(catalog))
        keep_newest(cached.parent, CATALOG_CACHE_SIZE)
    except OSError:
        pass
    return catalog


def _load(check_dirs: list[Path], runbook_dirs: list[Path], signature_dirs: list[Path]) -> Catalog:
    # The schema, YAML and Jinja2 parsing are needed only when the cache misses.
    from rocmdoctor.catalog.schema_runbooks import parse_runbook
    from rocmdoctor.catalog.schema_signatures import is_signatures_doc
    from rocmdoctor.catalog.yaml_lines import line_of

    checks: dict[str, CheckDef] = {}
    runbook_docs: list[tuple[Path, object]] = []
    signature_docs: list[tuple[Path, object]] = [(p, _read(p)) for d in signature_dirs for p in _yaml_files(d)]
    for d in check_dirs:
        for path in _yaml_files(d):
            _add_checks(checks, path, _read(path))
    for d in runbook_dirs:
        for path in _yaml_files(d):
            data = _read(path)
            if _is_checks_doc(data):  # a user dir may mix checks, runbooks and signatures
                _add_checks(checks, path, data)
            elif is_signatures_doc(data):
                signature_docs.append((path, data))
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
    return Catalog(checks=checks, runbooks=runbooks, signatures=_signatures(signature_docs, runbooks, checks))


def _signatures(docs: list[tuple[Path, object]], runbooks: dict[str, RunbookDef],
                checks: dict[str, CheckDef]) -> tuple[SignatureDef, ...]:
    """All signatures; a user's signature replaces a built-in one of the same id."""
    from rocmdoctor.catalog.schema_signatures import parse_signatures

    out: dict[str, SignatureDef] = {}
    for path, data in docs:
        for sig in parse_signatures(data, str(path), runbooks, checks):
            prev = out.get(sig.id)
            if prev is not None and prev.path != str(path) and Path(prev.path).parent != builtin_dir("signatures"):
                raise DefinitionError(str(path), sig.line, f"signature '{sig.id}' is also defined in {prev.path}:{prev.line}",
                                      "signature ids must be unique")
            out[sig.id] = sig
    return tuple(out.values())


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
            found = [f for sub in ("checks", "runbooks", "signatures", ".") if (p / sub).is_dir() for f in _yaml_files(p / sub)]
            if not found:
                # a mistyped directory must not pass as "ok": there was nothing to validate
                errors.append(DefinitionError(str(p), None, "no *.yaml file here or in its checks/, runbooks/ or signatures/",
                                              "point at the directory that holds the YAML files"))
            files += found
        elif p.exists():
            files.append(p)
        else:
            errors.append(DefinitionError(str(p), None, "no such file or directory"))
    from rocmdoctor.catalog.schema_checks import parse_checks
    from rocmdoctor.catalog.schema_runbooks import parse_runbook
    from rocmdoctor.catalog.schema_signatures import is_signatures_doc, parse_signatures

    checks = dict(base.checks)
    runbooks: dict[str, object] = dict(base.runbooks)
    docs: list[tuple[Path, object]] = []
    signature_docs: list[tuple[Path, object]] = []
    for f in dict.fromkeys(files):
        try:
            data = _read(f)
            if _is_checks_doc(data):
                for c in parse_checks(data, str(f)):
                    checks[c.id] = c
            elif is_signatures_doc(data):
                signature_docs.append((f, data))
            else:
                docs.append((f, data))
        except DefinitionError as exc:
            errors.append(exc)
    for f, data in docs:
        try:
            rb = parse_runbook(data, str(f), checks)
            runbooks[rb.id] = rb
        except DefinitionError as exc:
            errors.append(exc)
    for f, data in signature_docs:
        try:
            parse_signatures(data, str(f), runbooks, checks)
        except DefinitionError as exc:
            errors.append(exc)
    return errors
