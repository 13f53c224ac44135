"""``python -m bench [NAME...]``: run every bench module (or only the named ones), print
one table and write docs/benchmarks.md. With names, the other benchmarks' rows already in
the file are kept as they were (each row's figure and reference come from one run)."""

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


def run_all(names: list[str], failed: list[str] | None = None) -> list[dict[str, object]]:
    """Every bench's rows; a bench that raises gets a row saying so, and its name is added
    to ``failed`` (the command then exits 1: a broken bench is not a result)."""
    rows: list[dict[str, object]] = []
    failed = failed if failed is not None else []
    for name in names:
        try:
            module = importlib.import_module(f"bench.{name}")
        except Exception as exc:  # noqa: BLE001 — one broken bench must not hide the rest
            rows.append(skipped(name, f"import failed: {type(exc).__name__}: {exc}"))
            failed.append(name)
            continue
        run = getattr(module, "run", None)
        if not callable(run):
            continue
        try:
            produced = run()
        except Exception as exc:  # noqa: BLE001
            rows.append(skipped(name, f"failed: {type(exc).__name__}: {exc}"))
            failed.append(name)
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


def kept_lines(text: str, replaced: set[str]) -> dict[str, list[str]]:
    """The table lines of an existing benchmarks.md, by benchmark, minus ``replaced``."""
    kept: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| benchmark |"):
            continue
        name = line[2:].split(" |", 1)[0].strip()
        if name not in replaced:
            kept.setdefault(name, []).append(line)
    return kept


def merge_markdown(fresh: str, old: str, selected: list[str], order: list[str]) -> str:
    """``fresh`` (the selected benchmarks' rows) with the other benchmarks' rows from
    ``old`` put back in module order, and a note saying which rows were carried over."""
    kept = kept_lines(old, set(selected))
    if not kept:
        return fresh
    new_rows = kept_lines(fresh, set())
    head = [line for line in fresh.splitlines() if not line.startswith("| ") or line.startswith("| benchmark |")]
    when = next((line for line in old.splitlines() if line.startswith("Measured ")), "")
    stamp = when.split(" by ", 1)[0].removeprefix("Measured ").strip()
    carried = ", ".join(sorted(kept))
    table_at = next(i for i, line in enumerate(head) if line.startswith("| benchmark |"))
    note = f"Rows of {carried} are carried over from the run of {stamp}; the others were re-measured."
    lines = head[:table_at - 1] + [note, ""] + head[table_at:table_at + 2]
    names = order + sorted((set(kept) | set(new_rows)) - set(order))
    for name in names:
        lines += new_rows.get(name, []) if name in selected else kept.get(name, [])
    return "\n".join(lines) + "\n"


def notes_markdown(names: list[str]) -> str:
    """The ``NOTES`` (markdown: how to read the figures, what a missed goal needs) that
    bench modules may define, one section each."""
    parts = []
    for name in names:
        try:
            text = getattr(importlib.import_module(f"bench.{name}"), "NOTES", "")
        except Exception:  # noqa: BLE001 — its row already says the import failed
            continue
        if text:
            parts.append(f"### {name}\n\n{text.strip()}\n")
    return ("\n## Notes\n\n" + "\n".join(parts)) if parts else ""


def main(argv: list[str] | None = None) -> int:
    names = discover()
    wanted = list(sys.argv[1:] if argv is None else argv)
    unknown = [n for n in wanted if n not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)} (known: {', '.join(names)})", file=sys.stderr)
        return 2
    selected = [n for n in names if n in wanted] if wanted else names
    failed: list[str] = []
    rows = run_all(selected, failed)
    Console().print(render_table(rows))
    DOCS.parent.mkdir(parents=True, exist_ok=True)
    text = render_markdown(rows, datetime.now(timezone.utc))
    if wanted and DOCS.exists():
        text = merge_markdown(text, DOCS.read_text(encoding="utf-8"), selected, names)
    DOCS.write_text(text + notes_markdown(names), encoding="utf-8")
    print(f"wrote {DOCS}", file=sys.stderr)
    if failed:
        print(f"benchmark(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
