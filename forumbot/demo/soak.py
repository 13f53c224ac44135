"""``python -m forumbot.demo.soak``: a seven-day scripted game with the forum failing and the
agent killed, compared with a run where nothing goes wrong.

1. The reference: the same script played in-process with no faults and no kills.
2. The soak: the agent as a subprocess on an accelerated clock; ``--fail-rate`` of the
   requests fail in the simulator's ways (5xx, slow beyond the client's timeout, dropped
   before or after the store, truncated, session expired, site closed), seeded; the agent
   is SIGKILLed about every ``--kill-every`` game minutes (a quarter of the kills wait for
   the forum to store a bot post and strike before the agent hears back) and restarted.
3. The report: posts made, duplicates (must be 0), votes lost (must be 0), tallies
   compared with the reference (must match), peak RSS of the agent process, and the
   agent log's warning/error lines grouped by kind. Exit status 1 when a must-be-zero
   figure is not zero or the game did not finish.

Example: python -m forumbot.demo.soak --days 7 --kill-every 240 --fail-rate 0.05 --seed 1
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import TextIO

from forumbot.demo.harness import (
    KillOptions,
    audit_posts,
    compare_tallies,
    lost_votes,
    play_in_process,
    published_kinds,
    run_with_kills,
    tally_digest,
)
from forumbot.game.runtime import open_runtime
from forumbot.demo.scenario import PASSWORD, long_plan

AGENT = {"count_request_max_age_minutes": 720, "min_request_interval_seconds": 1,
         "poll_jitter_seconds": 30}

_LINE = re.compile(r"^\S+ \S+ (?P<logger>\S+) (?P<level>WARNING|ERROR|CRITICAL) (?P<message>.*)$")


def error_kind(message: str) -> str:
    """A log message reduced to its kind: numbers, paths and quoted text left out."""
    text = re.sub(r"(GET|POST) \S+", r"\1 …", message)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    text = re.sub(r"#N|pid N|thread N|tid=N", "…", text)
    return text[:90]


def group_errors(log_text: str) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for line in log_text.splitlines():
        m = _LINE.match(line)
        if m:
            kinds[f"{m['level']} {m['logger']}: {error_kind(m['message'])}"] += 1
        elif line.startswith("Traceback"):
            kinds["Traceback"] += 1
    return kinds


def soak(days: int, players: int, kill_every: float, fail_rate: float, seed: int, factor: float,
         workdir: Path, out: TextIO) -> int:
    os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
    # The in-process reference run's agent would log to stderr; the report is the output.
    quiet = logging.getLogger("forumbot")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    plan = long_plan(days, players, seed)
    print(f"soak: {len(plan.days)} days, {len(plan.players)} players, {len(plan.actions)} scripted "
          f"actions; fail rate {fail_rate:.0%}, a kill about every {kill_every:g} game minutes, "
          f"seed {seed}, clock ×{factor:g}", file=out)
    started = time.monotonic()
    (workdir / "reference").mkdir(parents=True, exist_ok=True)
    reference = play_in_process(plan, workdir / "reference", **AGENT)
    day_numbers = [d.number for d in plan.days]
    want = tally_digest(reference.rt.store, day_numbers)
    want_kinds = published_kinds(reference.rt.outbox)
    reference.close()
    print(f"reference run (no faults, no kills): {time.monotonic() - started:.0f} s, "
          f"{sum(want_kinds.values())} posts", file=out, flush=True)

    (workdir / "soak").mkdir(parents=True, exist_ok=True)
    options = KillOptions(factor=factor, kill_every=timedelta(minutes=kill_every), window_kills=10,
                          fault_rate=fail_rate, seed=seed, http_timeout=0.5, slow_delay=0.8,
                          wall_limit=600.0, agent=dict(AGENT))
    run = run_with_kills(plan, workdir / "soak", options)
    try:
        rt = open_runtime(run.game.config)
        audit = audit_posts(run.game.world, rt.outbox)
        lost = lost_votes(run.game.vote_posts(), rt.store)
        diffs = compare_tallies(tally_digest(rt.store, day_numbers), want)
        kinds = published_kinds(rt.outbox)
        rt.close()
    finally:
        run.game.sim.stop()
    duplicates = len(audit.duplicates) + len(audit.orphans)
    log_text = run.log_file.read_text(encoding="utf-8") if run.log_file.exists() else ""
    log_text += run.stderr_file.read_text(encoding="utf-8") if run.stderr_file.exists() else ""

    print("\n══ soak report ══", file=out)
    print(f"game finished:          {'yes' if run.finished else 'NO'} ({run.wall_seconds:.0f} s wall)", file=out)
    print(f"requests to the forum:  {run.requests}; faults injected: {sum(run.faults.values())} "
          f"({', '.join(f'{k.value} {n}' for k, n in sorted(run.faults.items()))})", file=out)
    print(f"agent kills:            {len(run.kills)} ({run.window_kills} between store and record); "
          f"starts {run.starts}; unexpected exits {len(run.unexpected_exits)}", file=out)
    print(f"posts made:             {audit.posts} ({_kinds(kinds)}); reference {sum(want_kinds.values())}",
          file=out)
    print(f"duplicates:             {duplicates}" + (f"  {audit.duplicates + audit.orphans}" if duplicates else ""),
          file=out)
    print(f"unmarked / missing:     {len(audit.unmarked)} / {len(audit.missing)}", file=out)
    print(f"votes lost:             {len(lost)}" + (f"  {lost[:5]}" if lost else ""), file=out)
    print(f"tallies vs reference:   {'match' if not diffs else f'{len(diffs)} DIFFERENCES'}", file=out)
    for line in diffs[:10]:
        print(f"    {line}", file=out)
    print(f"peak RSS (agent):       {run.peak_rss_kb / 1024:.1f} MiB", file=out)
    print("log lines by kind:", file=out)
    for kind, n in group_errors(log_text).most_common(25):
        print(f"  {n:6d}  {kind}", file=out)
    for problem in run.unexpected_exits + run.thread_errors:
        print(f"  ! {problem}", file=out)
    bad = duplicates or lost or diffs or not run.finished or audit.missing or audit.unmarked
    print(f"\nsoak {'FAILED' if bad else 'passed'} in {time.monotonic() - started:.0f} s", file=out)
    return 1 if bad else 0


def _kinds(kinds: Counter) -> str:
    total: Counter[str] = Counter()
    for (kind, _day), n in kinds.items():
        total[kind] += n
    return ", ".join(f"{k} {n}" for k, n in sorted(total.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m forumbot.demo.soak", description=__doc__.splitlines()[0],
                                     epilog="Example: python -m forumbot.demo.soak --days 7 --fail-rate 0.05")
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--players", type=int, default=12, help="8–12")
    parser.add_argument("--kill-every", type=float, default=240.0, metavar="MINUTES",
                        help="game minutes between kills, on average (default 240)")
    parser.add_argument("--fail-rate", type=float, default=0.05, help="fraction of requests that fail")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--factor", type=float, default=4000.0, help="game seconds per wall second")
    parser.add_argument("--keep", type=Path, default=None, help="keep the run's files in this directory")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        return soak(args.days, args.players, args.kill_every, args.fail_rate, args.seed, args.factor,
                    args.keep, sys.stdout)
    with tempfile.TemporaryDirectory(prefix="forumbot-soak-") as tmp:
        return soak(args.days, args.players, args.kill_every, args.fail_rate, args.seed, args.factor,
                    Path(tmp), sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
