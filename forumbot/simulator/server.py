"""HTTP plumbing: a threaded stdlib server on 127.0.0.1 in front of the forum logic.

``ServerCore`` is what any generation's forum gets from the server: injected faults, CC
protection, the request log and the harness's ``on_bot_post`` / ``on_bot_pm`` hooks. ``FORUM_SERVERS``
pairs it with each generation's routes (``x3/``, ``d72/``). The handler decodes the
request (query in the site charset; the form in the charset the generation says, e.g.
UTF-8 for X3's mobile API and phones, as Discuz converts mobile input), and writes the
response — or deliberately does not (dropped connections, truncated bodies).
"""

from __future__ import annotations

import socket
from email.utils import formatdate
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Callable

from forumbot.simulator.app import ForumBase, Visit
from forumbot.simulator.d72.routes import D72Routes
from forumbot.simulator.faults import Fault, FaultPlan, PlannedFault
from forumbot.simulator.model import StoredPost
from forumbot.simulator.pm import PmMessage
from forumbot.simulator.wire import (
    Request,
    RequestRecord,
    Response,
    parse_cookies,
    parse_pairs,
    split_target,
)
from forumbot.simulator.x3 import render as x3_render
from forumbot.simulator.x3.api import MobileApi

if TYPE_CHECKING:
    from forumbot.simulator.core import Simulator


class ServerCore(ForumBase):
    """A generation's forum + faults + request log + the harness's bot-post hook.

    ``on_bot_post`` is called in the server thread right after the forum stored a post by
    ``bot_name`` and BEFORE the response is written: the crash harness kills the agent
    there, inside the window between "the forum has the post" and "the agent recorded it".
    ``on_bot_pm`` is the same for a PM the bot sent (the forum stored it, no answer yet).
    """

    def __init__(self, *args: object, faults: FaultPlan, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.faults = faults
        self.requests: list[RequestRecord] = []
        self._log_lock = threading.Lock()
        self.bot_name: str | None = None
        self.on_bot_post: Callable[[StoredPost], None] | None = None
        self.on_bot_pm: Callable[[PmMessage], None] | None = None

    def dispatch(self, req: Request, fault: PlannedFault | None) -> Response:
        first, first_pm = self.data._next_pid, self.data.pms._next_pmid
        response = self._dispatch(req, fault)
        self._bot_pms(req, first_pm)
        hook = self.on_bot_post
        if hook is not None and req.method == "POST" and self.bot_name:
            for pid in range(first, self.data._next_pid):
                post = self.data.posts.get(pid)
                if post is not None and post.author == self.bot_name:
                    hook(post)
        if fault is not None and fault.after > 0:
            time.sleep(fault.after)  # slow AFTER handling: stored, but the answer is late
        return response

    def _bot_pms(self, req: Request, first: int) -> None:
        hook = self.on_bot_pm
        if hook is None or req.method != "POST" or not self.bot_name:
            return
        bot = self.data.user_by_name(self.bot_name)
        for pmid in range(first, self.data.pms._next_pmid):
            message = self.data.pms.message(pmid)
            if message is not None and bot is not None and message.fromuid == bot.uid:
                hook(message)

    def _dispatch(self, req: Request, fault: PlannedFault | None) -> Response:
        if fault is not None and fault.kind is Fault.SESSION_EXPIRE:
            self.expire_sessions()
        visit = self.visit(req)
        if fault is not None and fault.kind is Fault.SERVER_ERROR:
            response = Response(fault.status, x3_render.system_error(
                "127.0.0.1", self.now(), "Internal Server Error").encode(),
                "text/html; charset=utf-8")
        elif self.cc_blocked(req, visit):
            response = Response(200, self.encode(x3_render.cc_page(
                self.charset, self.site_url + req.raw_target.lstrip("/"))),
                f"text/html; charset={self.charset}")
        elif fault is not None and fault.kind is Fault.SITE_CLOSED:
            saved = self.data.settings.site_closed
            self.data.settings.site_closed = fault.reason
            try:
                response = self.route_any(req, visit)
            finally:
                self.data.settings.site_closed = saved
        else:
            response = self.route_any(req, visit)
        response.cookies = visit.set_cookies + response.cookies
        with self._log_lock:
            self.requests.append(RequestRecord(
                req.method, req.path, dict(req.query),
                visit.viewer.name if visit.viewer else None, response.status, self.now()))
        return response


class X3Server(ServerCore, MobileApi):
    """Discuz! X3.5: ``forum.php``/``member.php`` pages and the mobile API."""

    def route_any(self, req: Request, visit: Visit) -> Response:
        if req.path.startswith("/api/mobile/"):
            return self.api(req, visit)
        if req.path in ("/", ""):
            req.path = "/forum.php"
        return self.route(req, visit)

    def cc_blocked(self, req: Request, visit: Visit) -> bool:
        """``attackevasive`` bit 1: a request < 1 s after the last one gets the reload page."""
        if not self.data.settings.cc_protection:
            return False
        now = self.now().timestamp()
        last = req.cookies.get(self.cookiepre + "lastrequest")
        visit.set_cookies.append(self.cookie("lastrequest", f"{now:.3f}", httponly=True))
        try:
            return last is not None and now - float(last) < 1.0
        except ValueError:
            return False


class D72Server(ServerCore, D72Routes):
    """Discuz! 7.2: ``index.php``, ``viewthread.php``, ``logging.php``, ``post.php`` …"""


FORUM_SERVERS: dict[str, type[ServerCore]] = {"x3": X3Server, "7.2": D72Server}


def make_handler(sim: "Simulator") -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes: with Nagle on, the body waits for
        # the client's delayed ACK (~40 ms a response on Linux loopback).
        disable_nagle_algorithm = True
        server_version = "Apache"
        sys_version = ""

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return  # the simulator keeps its own request log

        def date_time_string(self, timestamp: float | None = None) -> str:
            # The Date header is the forum's clock, as a real server's is its own: clients
            # resolve relative times ("11 秒前") against it.
            return formatdate(sim.clock.now().timestamp() if timestamp is None else timestamp,
                              usegmt=True)

        def do_GET(self) -> None:
            self.serve("GET")

        def do_POST(self) -> None:
            self.serve("POST")

        def serve(self, method: str) -> None:
            forum = sim.server
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path, query = split_target(self.path, forum.charset)
            req = Request(method, path, query, {},
                          parse_cookies(self.headers.get("Cookie", "")),
                          {k.lower(): v for k, v in self.headers.items()},
                          self.client_address[0], self.path, body)
            if method == "POST":
                req.form = parse_pairs(body.decode("latin-1"), forum.form_charset(req))
            fault = forum.faults.take(self.path)
            if fault is not None and fault.kind is Fault.DROP_BEFORE_STORE:
                self.drop()
                return
            if fault is not None and fault.kind is Fault.SLOW:
                time.sleep(fault.delay)
            response = forum.dispatch(req, fault)
            if fault is not None and fault.kind is Fault.DROP_AFTER_STORE:
                self.drop()
                return
            self.write(response, truncate=fault is not None and fault.kind is Fault.TRUNCATE)

        def drop(self) -> None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def write(self, response: Response, truncate: bool) -> None:
            try:
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                for name, value in response.headers:
                    self.send_header(name, value)
                for cookie in response.cookies:
                    self.send_header("Set-Cookie", cookie)
                body = response.body
                if truncate:
                    # No Content-Length: the body ends where the connection closes.
                    body = body[: len(body) // 2]
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        return  # clients that hang up (timeouts, drops) are normal here
