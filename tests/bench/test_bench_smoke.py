"""The benchmarks still run against today's code (a bench broken by an API change was
found only when `make bench` printed "failed: TypeError" in a row). Small sizes: these
check that each bench's code path works, not its figures."""

from __future__ import annotations

import pytest

from bench import __main__ as bench_main
from bench import tally


def test_bench_tally__measures_a_small_day():
    seconds, with_json, sort, valid = tally.measure(events=300)
    assert 0 < seconds and 0 < with_json and 0 <= sort and valid > 0


def test_bench_modules__import_and_expose_run():
    for name in bench_main.discover():
        module = __import__(f"bench.{name}", fromlist=["run"])
        assert callable(getattr(module, "run", None)), name


def test_bench_main__a_failing_bench_is_a_failure(monkeypatch):
    failed: list[str] = []

    def boom():
        raise TypeError("GameState.__init__() got an unexpected keyword argument 'sheriff'")

    monkeypatch.setattr(tally, "run", boom)
    rows = bench_main.run_all(["tally"], failed)
    assert failed == ["tally"] and "failed: TypeError" in str(rows[0])


@pytest.mark.parametrize("name", ["poll"])
def test_bench_quick_ones_run(name):
    module = __import__(f"bench.{name}", fromlist=["run"])
    rows = module.run()
    assert rows and all(row.get("value") is not None for row in rows), rows
