"""The director's desk: a small local web page to follow the game and approve posts.

Every change goes through ``forumbot.game.director`` (and the outbox), like the CLI, so it
lands in the same audit log. Served on 127.0.0.1 by default; anywhere else it requires
a login token (``FORUMBOT_DESK_TOKEN``).
"""

from forumbot.desk.app import DEFAULT_HOST, DEFAULT_PORT, create_app
from forumbot.desk.bbcode import bbcode_to_html
from forumbot.desk.security import TOKEN_ENV, DeskSecurityError, is_loopback
from forumbot.desk.server import DeskServer, serve, start_desk

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "TOKEN_ENV", "DeskSecurityError", "DeskServer", "bbcode_to_html",
           "create_app", "is_loopback", "serve", "start_desk"]
