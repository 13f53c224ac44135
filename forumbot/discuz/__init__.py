"""The Discuz! client: one facade over one dialect per Discuz generation.

Layout (one module per concern)::

    client.py     DiscuzClient — the facade the agent calls; drives every operation
    transport.py  Transport — httpx exchange, throttle, retry, cookie jar, charset, stop
    dialect.py    Dialect — the small interface a generation fills in
    x3.py         X3Dialect — Discuz! X2.5–X3.5 (forum.php?mod=…, mobile API)
    d72.py        D72Dialect — Discuz! 7.2 (viewthread.php, post.php, logging.php)
    detect.py     Generation, detect_generation — which one a forum runs
    forms.py      FormPage — an HTML form as a browser submits it
    useragent.py  DEFAULT_USER_AGENT and the robot/phone words Discuz reacts to
    pm.py         PmSent, PmDialect — private messages; pm_x3.py / pm_d72.py per generation

Shared with the rest of forumbot: the exception tree (``forumbot.errors``), the answer
classifier (``forumbot.responses``), retry policy, throttle and cookie store.
"""

from forumbot.discuz.client import DIALECTS, DiscuzClient, ReplyResult, ThreadCursor
from forumbot.discuz.detect import Generation, detect_generation, parse_generation
from forumbot.discuz.dialect import Dialect
from forumbot.discuz.pm import PM_SETTLE_SECONDS, PmSent
from forumbot.discuz.useragent import DEFAULT_USER_AGENT, user_agent_problem

__all__ = [
    "DEFAULT_USER_AGENT",
    "DIALECTS",
    "Dialect",
    "DiscuzClient",
    "Generation",
    "PM_SETTLE_SECONDS",
    "PmSent",
    "ReplyResult",
    "ThreadCursor",
    "detect_generation",
    "parse_generation",
    "user_agent_problem",
]
