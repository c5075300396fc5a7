"""The package layout is the flow: a module imports only its own folder or a
layer below it, and no module imports itself back through a chain of others.

Reads every import statement (module level and inside functions) with `ast`,
so a lazy import that goes upwards fails here just like a top-level one;
imports under `if TYPE_CHECKING:` are left out, as they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rocmdoctor"

# Lowest first. Folders of one rank may not import each other.
RANKS: dict[str, int] = {
    "": 0,  # errors, status, paths, fileio, results: value objects every layer shares
    "parsers": 1,
    "evidence": 1,
    "transports": 2,
    "catalog": 2,
    "simnode": 3,
    "engine": 4,
    "incident": 5,
    "fleet": 5,
    "tui": 6,
    "cli": 7,
    "testing": 8,  # test doubles: may use anything, nothing uses them
    "__main__": 9,
}
MAX_TOP_LEVEL_FILES = 8


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return ""
    if len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").is_file():
        return "__main__" if parts[1] == "__main__" else ""
    return parts[1]


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    for block in ast.walk(tree):  # `if TYPE_CHECKING:` imports never run
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test):
            block.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("rocmdoctor"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("rocmdoctor"):
            for alias in node.names:  # `from rocmdoctor.simnode import sysfs` imports a module
                sub = f"{node.module}.{alias.name}"
                found.add(sub if _is_module(sub) else node.module)
    return found


def _is_module(dotted: str) -> bool:
    rel = Path(*dotted.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").is_file() or (PACKAGE.parent / rel / "__init__.py").is_file()


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_every_folder_has_a_rank() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders - set(RANKS) == set(), "give the new folder a rank in RANKS"


def test_no_import_goes_up_a_layer() -> None:
    bad = []
    for module, deps in graph().items():
        mine = layer_of(module)
        for dep in deps:
            theirs = layer_of(dep)
            if theirs != mine and RANKS[theirs] >= RANKS[mine]:
                bad.append(f"{module} ({mine or 'shared'}) imports {dep} ({theirs or 'shared'})")
    assert bad == []


def test_no_import_cycle() -> None:
    g = graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(g.get(node, ())):
            if dep not in g or dep == node:
                continue
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[node] = 2

    for module in g:
        if module not in state:
            visit(module, [])
    assert cycles == []


def test_the_graph_is_read() -> None:
    """Guards the tests above against passing on an empty graph."""
    g = graph()
    assert len(g) > 60
    assert "rocmdoctor.engine.triage" in g["rocmdoctor.engine.core"]
    assert layer_of("rocmdoctor.engine.core") == "engine" and layer_of("rocmdoctor.errors") == ""


def test_few_files_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_FILES, top
