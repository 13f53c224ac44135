"""``python -m bench``: run every bench module, print one table, rewrite docs/benchmarks.md."""

from __future__ import annotations

import importlib
import math
import os
import pkgutil
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console
from rich.table import Table

import bench
from bench import ROW_KEYS, skipped

DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def discover() -> list[str]:
    return sorted(
        info.name for info in pkgutil.iter_modules(bench.__path__)
        if not info.name.startswith("_")
    )


def run_all(names: list[str]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name in names:
        try:
            module = importlib.import_module(f"bench.{name}")
        except Exception as exc:  # noqa: BLE001 — one broken bench must not hide the rest
            rows.append(skipped(name, f"import failed: {type(exc).__name__}: {exc}"))
            continue
        run = getattr(module, "run", None)
        if not callable(run):
            continue
        try:
            produced = run()
        except Exception as exc:  # noqa: BLE001
            rows.append(skipped(name, f"failed: {type(exc).__name__}: {exc}"))
            continue
        for row in produced:
            rows.append({key: row.get(key) for key in ROW_KEYS})
    return rows


def _fmt(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)


def machine() -> str:
    return (f"{os.cpu_count()} CPU cores, Python {platform.python_version()} "
            f"({platform.python_implementation()}), {platform.system()} {platform.machine()}")


def render_table(rows: list[dict[str, object]]) -> Table:
    table = Table(title="forumbot benchmarks", caption=machine())
    for key in ROW_KEYS:
        table.add_column(key, justify="right" if key in ("value", "ratio") else "left")
    for row in rows:
        table.add_row(*(_fmt(row[key]) for key in ROW_KEYS))
    return table


def render_markdown(rows: list[dict[str, object]], when: datetime) -> str:
    lines = [
        "# Benchmarks",
        "",
        f"Measured {when:%Y-%m-%d %H:%M} UTC by `make bench` (`python -m bench`) on "
        f"{machine()}.",
        "Each figure and its reference were measured in the same run.",
        "",
        "| " + " | ".join(ROW_KEYS) + " |",
        "|" + "---|" * len(ROW_KEYS),
    ]
    for row in rows:
        cells = (_fmt(row[key]).replace("|", "\\|") for key in ROW_KEYS)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    rows = run_all(discover())
    Console().print(render_table(rows))
    DOCS.parent.mkdir(parents=True, exist_ok=True)
    DOCS.write_text(render_markdown(rows, datetime.now(timezone.utc)), encoding="utf-8")
    print(f"wrote {DOCS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
