"""HTTP plumbing: a threaded stdlib server on 127.0.0.1 in front of the forum logic.

It decodes the request (query and form in the site charset; mobile API forms in UTF-8, as
Discuz converts mobile input), applies CC protection and injected faults, records every
request, and writes the response — or deliberately does not (dropped connections,
truncated bodies).
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from forumbot.simulator import render
from forumbot.simulator.api import MobileApi
from forumbot.simulator.app import Visit
from forumbot.simulator.faults import Fault, FaultPlan, PlannedFault
from forumbot.simulator.wire import (
    Request,
    RequestRecord,
    Response,
    parse_cookies,
    parse_pairs,
    split_target,
)

if TYPE_CHECKING:
    from forumbot.simulator.core import Simulator


class ForumServer(MobileApi):
    """The whole forum: routes + API + CC protection + faults + request log."""

    def __init__(self, *args: object, faults: FaultPlan, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.faults = faults
        self.requests: list[RequestRecord] = []
        self._log_lock = threading.Lock()

    def dispatch(self, req: Request, fault: PlannedFault | None) -> Response:
        if fault is not None and fault.kind is Fault.SESSION_EXPIRE:
            self.expire_sessions()
        visit = self.visit(req)
        if fault is not None and fault.kind is Fault.SERVER_ERROR:
            response = Response(fault.status, render.system_error(
                "127.0.0.1", self.now(), "Internal Server Error").encode(),
                "text/html; charset=utf-8")
        elif self.cc_blocked(req, visit):
            response = self.html(render.cc_page(self.charset, self.site_url + req.raw_target.lstrip("/")))
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

        def do_GET(self) -> None:
            self.serve("GET")

        def do_POST(self) -> None:
            self.serve("POST")

        def serve(self, method: str) -> None:
            forum = sim.server
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path, query = split_target(self.path, forum.charset)
            form_charset = "utf-8" if path.startswith("/api/mobile/") else forum.charset
            form = parse_pairs(body.decode("latin-1"), form_charset) if method == "POST" else {}
            req = Request(method, path, query, form,
                          parse_cookies(self.headers.get("Cookie", "")),
                          {k.lower(): v for k, v in self.headers.items()},
                          self.client_address[0], self.path, body)
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
