"""The house's shape (issue 19, docs/architecture.md), beside import-linter's contracts in
pyproject.toml: those check packages; these check what they cannot — circles between
files, the loose modules at forumbot/'s top, and that each room says what it holds."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_CIRCLE = 3


@pytest.fixture(scope="module")
def graph():
    built = grimp.build_graph("forumbot", "engine", "parsers", cache_dir=None)
    # the project's own forumbot, not tests/forumbot (a test package of that name)
    assert "forumbot.agent.loop" in built.modules
    return built


def _circles(graph) -> list[set[str]]:
    """Strongly connected sets of modules (Tarjan), each a circle of imports."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(m: str) -> None:
        index[m] = low[m] = counter[0]
        counter[0] += 1
        stack.append(m)
        on.add(m)
        for n in graph.find_modules_directly_imported_by(m):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            comp = set()
            while True:
                n = stack.pop()
                on.discard(n)
                comp.add(n)
                if n == m:
                    break
            if len(comp) > 1:
                out.append(comp)

    for m in modules:
        if m not in index:
            visit(m)
    return out


def test_no_file_circle_over_three_files(graph):
    # A package's __init__ re-exporting its modules is not a circle of files that know
    # each other; leave the faces out and count the modules that really import each other.
    big = []
    for comp in _circles(graph):
        files = {m for m in comp if not _is_package(m)}
        if len(files) > MAX_FILE_CIRCLE:
            big.append(sorted(files))
    assert not big, f"import circles of more than {MAX_FILE_CIRCLE} files: {big}"


def _is_package(module: str) -> bool:
    path = ROOT / module.replace(".", "/")
    return (path / "__init__.py").exists()


def test_at_most_one_loose_module_in_forumbot():
    loose = sorted(p.name for p in (ROOT / "forumbot").glob("*.py")
                   if p.name not in {"__init__.py", "__main__.py", "cli.py"})
    assert len(loose) <= 1, f"modules loose at forumbot/'s top: {loose}"


def test_every_package_says_what_it_holds():
    missing = []
    for info in pkgutil.walk_packages([str(ROOT / "forumbot")], prefix="forumbot."):
        if not info.ispkg:
            continue
        init = ROOT / info.name.replace(".", "/") / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if not doc or "TODO" in doc:
            missing.append(info.name)
    assert not missing, f"packages without a docstring: {missing}"


def test_import_contracts_hold():
    """The same contracts `make test` runs, so plain pytest (and CI) fails on an upward
    import too; lint-imports's report names the importing line."""
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        pytest.fail("lint-imports is missing: install the test extras (pip install -e '.[test]')")
    run = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
