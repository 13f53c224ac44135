"""The session with one forum: every HTTP exchange goes through here, whatever the dialect.

Layers, outermost first (prawcore's shape):

* :meth:`Transport.call`: :func:`forumbot.discuz.retry.call_with_retry` around one request —
  GETs retry with jittered backoff on :class:`ForumUnavailable`; a POST only when it
  surely never left. Once a request has spent its retries without ever reaching the
  server (``UnavailableReason.CONNECT``: the port closed, the host gone), the forum is
  *unreachable* and every later request fails at once without being sent, until
  :meth:`Transport.forget_unreachable` (the agent calls it after each pass): a pass
  against a dead forum costs one request's retries (:data:`UNREACHABLE_BOUND`), not
  every request's (:func:`unreachable_bound`);
* :meth:`Transport._send`: one request (redirects followed by hand when asked), the
  answer classified (:func:`forumbot.discuz.responses.classify`); no usable answer →
  :class:`ForumUnavailable`;
* :meth:`Transport._exchange`: throttle, browser User-Agent, the form body in the page's
  charset, transport errors → :class:`ForumUnavailable`.

It also holds the cookie jar (loaded from and saved to :class:`CookieStore`), learns the
forum's charset from what it serves, and owns the one place the client waits
(:meth:`pause`): throttle spacing, retry backoff and flood-control waits all go through
it, so a ``stop`` event (SIGTERM, Ctrl-C) ends any wait at once with
:class:`~forumbot.discuz.errors.Interrupted` instead of after up to a minute of backoff.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from pathlib import Path
from typing import Callable
from urllib.parse import urlencode, urljoin, urlsplit

import httpx

from forumbot.discuz.useragent import DEFAULT_USER_AGENT
from forumbot.discuz.errors import ForumUnavailable, Interrupted, UnavailableReason
from forumbot.discuz.responses import ForumReply, ReplyKind, classify
from forumbot.discuz.retry import DEFAULT, RetryPolicy, call_with_retry
from forumbot.discuz.session import CookieStore
from forumbot.discuz.throttle import Throttle
from parsers.charset import codec_for, decode, sniff_charset

__all__ = ["CONNECT_TIMEOUT", "Transport", "unreachable_bound"]

log = logging.getLogger("forumbot.client")

_MAX_REDIRECTS = 3

# How long one attempt may wait for the forum to accept the connection (the client the
# runtime makes), and so the longest a request takes that never reaches the server: every
# attempt timing out and every retry wait at its longest — 5 × 10 + 37.5 = 87.5 s with
# the default policy. After it the forum is unreachable and nothing more is sent
# (``forumbot run --once`` promises this bound in its help).
CONNECT_TIMEOUT = 10.0


def unreachable_bound(policy: RetryPolicy = DEFAULT) -> float:
    return policy.max_attempts * CONNECT_TIMEOUT + policy.longest_waiting()
_NON_ASCII = re.compile(rb"[\x80-\xff]")


class Transport:
    def __init__(
        self,
        http: httpx.Client,
        base_url: str,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        cookie_path: Path | None = None,
        min_interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] | None = None,
        retry_policy: RetryPolicy = DEFAULT,
        charset: str | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/") + "/"
        self.user_agent = user_agent
        self.retry_policy = retry_policy
        self.stop = stop
        # The sleep must return early once ``stop`` is set (stop.wait does; a caller with
        # an accelerated clock passes forumbot.game.clock.wait bound to the same event).
        self._sleep = sleep or (stop.wait if stop is not None else time.sleep)
        self.throttle = Throttle(min_interval, clock, self.pause)
        self.request_count = 0
        # The request that found the forum unreachable (its retries spent, never
        # connected); while set, nothing more is sent (see ``call``).
        self.unreachable: ForumUnavailable | None = None
        self._charset_fixed = charset is not None
        self._charset = charset or "utf-8"
        self.store = CookieStore(cookie_path) if cookie_path is not None else None
        if self.store is not None and self.store.load(self.http.cookies):
            log.info("已从 %s 读入保存的论坛登录", self.store.path)

    # ------------------------------------------------------------------ state

    @property
    def charset(self) -> str:
        return self._charset

    def adopt_charset(self, name: str) -> None:
        """Use the charset the forum names (the mobile API's ``charset``) unless one was set."""
        if not self._charset_fixed:
            self._charset = name.lower()

    @property
    def cookies(self) -> httpx.Cookies:
        return self.http.cookies

    def save_session(self) -> bool:
        """Save the cookie jar; False when there is no file or it cannot be written (logged)."""
        return self.store.save(self.http.cookies) if self.store is not None else False

    def pause(self, seconds: float) -> None:
        """Wait ``seconds``; raise :class:`Interrupted` if asked to stop before or during."""
        self._check_stop()
        if seconds > 0:
            self._sleep(seconds)
        self._check_stop()

    def _check_stop(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise Interrupted("正在停止：已要求结束运行，不再发出请求")

    def text_of(self, response: httpx.Response) -> str:
        return decode(response.content, response.headers.get("content-type"))[0]

    def url_for(self, path: str) -> str:
        return urljoin(self.base_url, path)

    def shown(self, url: str) -> str:
        """The URL as logged: relative to the forum root (query strings never hold secrets)."""
        shown = url[len(self.base_url):] if url.startswith(self.base_url) else urlsplit(url).path
        return shown or "/"  # the front page

    # ------------------------------------------------------------------ requests

    def call(
        self,
        method: str,
        path: str,
        *,
        data: dict[str, str] | None = None,
        referer: str | None = None,
        follow: bool = False,
        idempotent: bool | None = None,
    ) -> tuple[httpx.Response, ForumReply]:
        if self.unreachable is not None:
            # Not sent: an earlier request spent its retries without reaching the
            # server; retrying this one too would make a pass take minutes.
            first = self.unreachable
            raise ForumUnavailable(
                f"{method} {path or '/'}：没有发出，这一轮先前的请求已连不上论坛（{first.message}）",
                reason=UnavailableReason.CONNECT, sent=False, original=first.original)
        try:
            return call_with_retry(
                lambda: self._send(method, path, data=data, referer=referer, follow=follow),
                policy=self.retry_policy,
                describe=f"{method} {path or '/'}",
                idempotent=(method == "GET") if idempotent is None else idempotent,
                sleep=self.pause,
            )
        except ForumUnavailable as exc:
            if exc.reason is UnavailableReason.CONNECT:
                self.unreachable = exc
            raise

    def forget_unreachable(self) -> None:
        """Send again: the next request is tried (with its retries) as if the forum had
        never been unreachable. A slow page or a 5xx never sets this: only a forum that
        could not be connected to at all."""
        self.unreachable = None

    def _send(
        self, method: str, path: str, *, data: dict[str, str] | None, referer: str | None, follow: bool
    ) -> tuple[httpx.Response, ForumReply]:
        url = self.url_for(path)
        for _ in range(_MAX_REDIRECTS + 1):
            response = self._exchange(method, url, data=data, referer=referer)
            self._learn_charset(response)
            reply = classify(response)
            if reply.kind is ReplyKind.UNAVAILABLE:
                reason = (
                    UnavailableReason.CC_PROTECTION if reply.key == "cc_protection"
                    else UnavailableReason.SERVER_ERROR if response.status_code >= 500
                    else UnavailableReason.TRUNCATED
                )
                raise ForumUnavailable(
                    f"{method} {path or '/'}：{reply.key or '没有可用的回应'}（HTTP {response.status_code}）",
                    reason=reason, sent=True, response=response,
                )
            if follow and method == "GET" and reply.kind is ReplyKind.REDIRECT and reply.forward_url:
                url = urljoin(url, reply.forward_url.replace("BASE/", self.base_url)).split("#")[0]
                continue
            return response, reply
        raise ForumUnavailable(f"{method} {path or '/'}：重定向次数太多", reason=UnavailableReason.DROPPED,
                               sent=True)

    def _exchange(self, method: str, url: str, *, data: dict[str, str] | None, referer: str | None) -> httpx.Response:
        self._check_stop()
        headers = {"User-Agent": self.user_agent}
        if referer:
            headers["Referer"] = referer
        content = None
        if data is not None:
            # Desktop forms are not converted server-side: GBK forums need GBK bytes;
            # characters outside the charset go as &#NNNNN; like a browser sends them.
            content = urlencode(list(data.items()), encoding=self.form_codec(), errors="xmlcharrefreplace")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.throttle.wait()
        self.request_count += 1
        shown = self.shown(url)
        try:
            response = self.http.request(method, url, content=content, headers=headers, follow_redirects=False)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as err:
            raise ForumUnavailable(
                f"{method} {shown}：连接不上 {self.base_url}（{type(err).__name__}）",
                reason=UnavailableReason.CONNECT, sent=False, original=err,
            ) from err
        except httpx.TimeoutException as err:
            raise ForumUnavailable(
                f"{method} {shown}：响应超时（{type(err).__name__}）",
                reason=UnavailableReason.TIMEOUT, sent=True, original=err,
            ) from err
        except httpx.HTTPError as err:
            raise ForumUnavailable(
                f"{method} {shown}：连接中断（{type(err).__name__}）",
                reason=UnavailableReason.DROPPED, sent=True, original=err,
            ) from err
        log.debug("%s %s -> %d", method, shown, response.status_code)
        return response

    def form_codec(self) -> str:
        return "gbk" if self._charset == "gbk" else codec_for(self._charset)

    def _learn_charset(self, response: httpx.Response) -> None:
        """The forum's charset, from each HTML/XML answer: declared, checked against the
        bytes (a 7.2 GBK forum declares it only in a meta tag, which ajax answers lack)."""
        if self._charset_fixed:
            return
        content_type = response.headers.get("content-type", "")
        if ("html" in content_type or "xml" in content_type or not content_type) and response.content:
            sniffed = sniff_charset(response.content, content_type)
            # An ASCII-only body reads alike in every charset: it proves nothing.
            if sniffed.clean and _NON_ASCII.search(response.content):
                self._charset = sniffed.charset
