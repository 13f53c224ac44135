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
    errors.py     the one exception tree for everything the forum can refuse
    responses.py  the answer classifier: which refusal a Discuz page is
    session.py    the cookie store (a private file) and login state
    retry.py      retry with backoff for what is worth retrying
    throttle.py   the polite minimum interval between requests

The dialects take what they need from ``transport``, ``dialect`` and ``pm`` below them,
never from the ``client`` facade that chooses them. Imports ``parsers`` and
``forumbot.wording`` only.
"""

from forumbot.discuz.client import DIALECTS, DiscuzClient, NewThreadResult, ReplyResult, ThreadCursor
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
    "NewThreadResult",
    "ReplyResult",
    "ThreadCursor",
    "detect_generation",
    "parse_generation",
    "user_agent_problem",
]
