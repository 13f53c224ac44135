"""Run the agent against a scripted game under trouble: killed (a subprocess, SIGKILLed
and restarted), faults injected by the simulator, and check what must hold.

``run_with_kills`` (``runner``) is the crash test's and the soak's machinery;
``play_in_process`` (``game``) the uninterrupted reference; ``checks`` the comparisons.
"""

from forumbot.demo.harness.checks import (
    PostAudit,
    audit_posts,
    bot_posts,
    compare_tallies,
    lost_votes,
    normalise_body,
    published_kinds,
    tally_digest,
)
from forumbot.demo.harness.game import PlanGame, Played, RecordingDriver, play_in_process, setup_plan
from forumbot.demo.harness.runner import Kill, KillOptions, KillRun, kill_schedule, read_hwm_kb, run_with_kills
from forumbot.demo.harness.simulator import DEFAULT_MIX, HarnessSimulator, RandomFaults

__all__ = [
    "DEFAULT_MIX", "HarnessSimulator", "Kill", "KillOptions", "KillRun", "PlanGame", "Played", "PostAudit",
    "RandomFaults", "RecordingDriver", "audit_posts", "bot_posts", "compare_tallies", "kill_schedule",
    "lost_votes", "normalise_body", "play_in_process", "published_kinds", "read_hwm_kb", "run_with_kills",
    "setup_plan", "tally_digest",
]
