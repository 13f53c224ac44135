"""engine/night is pure: no I/O, no clock, chance only from a passed-in generator."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine.night

PACKAGE = Path(engine.night.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))
FORBIDDEN_IMPORTS = {"os", "sys", "io", "time", "socket", "sqlite3", "logging", "secrets", "subprocess",
                     "httpx", "forumbot", "pathlib", "shutil", "tempfile", "uuid"}
FORBIDDEN_CALLS = {"now", "today", "utcnow", "urandom", "token_hex", "SystemRandom", "open", "print"}


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_night_purity__(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
        else:
            names = []
        assert not set(names) & FORBIDDEN_IMPORTS, f"{path.name}:{node.lineno} imports {names}"
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}()"
            # random only as the passed-in generator: no module-level random.* calls
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                assert func.value.id != "random", f"{path.name}:{node.lineno} calls random.{func.attr}()"
