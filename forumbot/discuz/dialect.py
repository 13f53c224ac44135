"""What differs between Discuz generations, behind one small interface.

A :class:`Dialect` knows one generation's URLs, forms and markup: where the login form
is and what its submit carries, where a thread page and a findpost redirect live, how a
reply or an edit is prepared (which form to read first, which fields to post) and how the
reply form quotes a post. It does no retrying and keeps no state: the
:class:`~forumbot.discuz.client.DiscuzClient` drives every operation (second chances on
flood control, stale formhash and expired session; login blocking; pid and moderation of
the answer) the same way for every generation, and the answers of both are classified
into the same exception tree by :mod:`forumbot.discuz.responses`.

To add a generation: a module with a ``Dialect`` subclass filling in these methods, its
markers in :mod:`forumbot.discuz.detect`, its message texts in
``forumbot.discuz.responses.MESSAGE_KEYS`` where they differ, and an entry in
:data:`forumbot.discuz.DIALECTS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import ClassVar, Protocol

from forumbot.discuz.detect import Generation
from forumbot.discuz.forms import FormPage
from forumbot.discuz.pm import PmDialect
from parsers.models import Post

__all__ = ["Context", "Credentials", "Dialect", "Submit"]


@dataclass(frozen=True)
class Submit:
    """One form POST: where, what, and the page it comes from (the Referer Discuz's
    ``submitcheck`` compares with the host)."""

    path: str
    fields: dict[str, str] = field(repr=False)
    referer: str | None = None


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)
    question: tuple[int, str] | None = field(default=None, repr=False)


class Context(Protocol):
    """What a dialect may ask of the client while preparing a request."""

    base_url: str
    tz: tzinfo

    def form(self, path: str) -> FormPage:
        """GET a form page (retried like any GET); a refusal page raises its ForumRefused."""
        ...

    def fid_for(self, tid: int) -> int | None:
        """The forum id of ``tid`` if a page of it was read (no request)."""
        ...

    def formhash_for(self, tid: int) -> str:
        """The formhash of the current session, read from ``tid``'s first page if unknown."""
        ...

    def find_post(self, tid: int, pid: int) -> Post:
        """Post ``pid`` of ``tid``, read from the page its findpost redirect leads to."""
        ...


class Dialect(ABC):
    generation: ClassVar[Generation]
    has_mobile_api: ClassVar[bool] = False
    # The page read right after logging in for the new uid and formhash (the formhash
    # changes at login); None: the login answer itself shows the uid, and forms are read
    # before every post anyway.
    after_login_path: ClassVar[str | None]
    # Private messages: this generation's PM requests (forumbot.discuz.pm_x3 / pm_d72).
    pm: ClassVar[type[PmDialect]]

    # -------------------------------------------------------------- login

    @abstractmethod
    def login_form_path(self) -> str: ...

    @abstractmethod
    def has_captcha(self, text: str) -> bool:
        """Whether a form page asks for a captcha (seccode) or a security Q&A (secqaa)."""

    @abstractmethod
    def login_submit(self, form: FormPage, who: Credentials) -> Submit: ...

    # -------------------------------------------------------------- reading

    @abstractmethod
    def thread_path(self, tid: int, page: int, *, api: bool = False) -> str: ...

    @abstractmethod
    def findpost_path(self, tid: int, pid: int) -> str: ...

    @abstractmethod
    def board_path(self, fid: int, page: int, *, api: bool = False) -> str:
        """A board's thread listing (forumdisplay), newest last post first."""

    @abstractmethod
    def reply_form_path(self, tid: int, fid: int | None) -> str:
        """The full reply form of ``tid`` (read, never posted, by ``forumbot check``: it shows
        a captcha, or refuses the bot, before anything is sent)."""

    # -------------------------------------------------------------- writing

    @abstractmethod
    def prepare_reply(
        self, ctx: Context, tid: int, fid: int | None, message: str, quote_pid: int | None
    ) -> Submit:
        """The POST that replies ``message`` (quoting ``quote_pid``) in thread ``tid``."""

    @abstractmethod
    def prepare_edit(self, ctx: Context, tid: int, pid: int, fid: int | None, message: str) -> Submit:
        """The POST that replaces the text of post ``pid`` with ``message``."""

    @abstractmethod
    def prepare_new_thread(self, ctx: Context, fid: int, subject: str, message: str) -> Submit:
        """The POST that opens a new thread ``subject`` with ``message`` as its first post
        in board ``fid`` (the new-thread form is read first: its formhash, and a captcha
        or a refusal before anything is sent)."""

    # -------------------------------------------------------------- thread moderation

    @abstractmethod
    def moderation_probe_path(self, fid: int) -> str:
        """A moderation request naming no thread: the forum answers a non-moderator
        admin_nopermission and a moderator admin_moderate_invalid (nothing is changed)."""

    @abstractmethod
    def prepare_close(self, ctx: Context, fid: int, tid: int, close: bool) -> Submit:
        """The POST that closes (locks, ``close``) or opens thread ``tid`` of board ``fid``
        — the thread's 关闭/打开 moderation (its form is read first)."""

    @abstractmethod
    def quote_for(self, ctx: Context, tid: int, quote_pid: int) -> str:
        """The quote block this generation's reply form puts before a reply to ``quote_pid``."""

    @abstractmethod
    def build_quote(self, post: Post, *, base_url: str, tz: tzinfo) -> str:
        """The quote block for ``post``, built the way this generation's reply form does."""
