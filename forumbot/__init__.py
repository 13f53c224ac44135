"""forumbot: the director's assistant for 版杀 games on Discuz! forums."""

import logging

__version__ = "0.1.0"

# A library's log records go where the program sends them: ``forumbot run`` and
# ``forumbot serve`` configure the journal's handlers; a one-shot command (check, login,
# approve…) says what happened itself, and a record must not leak onto its terminal as a
# stray line through logging's last-resort handler (issue 18).
logging.getLogger("forumbot").addHandler(logging.NullHandler())
