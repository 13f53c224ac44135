"""The director away from the desk, by forum private messages (issue 13).

The bot tells the director by PM what needs them (a draft waiting, a post failed, a
night or a successor awaited, the forum down and back), and carries out what the
director answers (``批准 K7M3``, ``驳回 K7M3 理由：…``, ``查看 K7M3``, ``状态``, a night, a
sheriff). One module each:

* :mod:`~forumbot.notify.tell` — what to tell and when (the texts);
* :mod:`~parsers.commands` — the director's text read as commands (pure);
* :mod:`~forumbot.notify.handle` — the commands carried out (``forumbot.game.director``'s
  operations with the actor ``director(pm)``) and the answers;
* :mod:`~forumbot.notify.codes` — the short single-use codes;
* :mod:`~forumbot.notify.pmbox` — the PMs sent exactly once (claim, marker, settle);
* :mod:`~forumbot.notify.notifier` — one pass, called by the agent.
"""

from parsers.commands import Command, Verb, parse
from forumbot.notify.notifier import ACTOR, Notifier, PassResult
from forumbot.notify.pmbox import PM_MAX_BYTES, PmBox, PmRow
from forumbot.notify.tell import Matter, current_matters

__all__ = ["ACTOR", "PM_MAX_BYTES", "Command", "Matter", "Notifier", "PassResult", "PmBox", "PmRow", "Verb",
           "current_matters", "parse"]
