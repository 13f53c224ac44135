"""Serving the desk: in the foreground (``forumbot desk``) or beside the agent in a
background thread (``forumbot run --desk``), on werkzeug's threaded server.

Bound to every address (``0.0.0.0`` or ``::``) the desk is reached through one of the
machine's own addresses: those are what it prints, never ``http://0.0.0.0:…``.
"""

from __future__ import annotations

import errno
import fcntl
import ipaddress
import logging
import socket
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from forumbot.game.clock import Clock
from forumbot.desk.app import DEFAULT_HOST, DEFAULT_PORT, create_app
from forumbot.wording import os_error_zh

log = logging.getLogger("forumbot.desk")

_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def is_unspecified(host: str) -> bool:
    """0.0.0.0, :: (every address of the machine)."""
    host = host.strip("[]")
    if host in ("", "*"):
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def machine_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback: per network interface on Linux,
    else what the host name resolves to. Nothing is sent anywhere."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    for name in names:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
        except OSError:
            continue  # no IPv4 address on it, or not Linux
        address = socket.inet_ntoa(packed[20:24])
        if not ipaddress.ip_address(address).is_loopback and address not in found:
            found.append(address)
    if not found:
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        except OSError:
            infos = []
        for info in infos:
            address = str(info[4][0])
            if not ipaddress.ip_address(address).is_loopback and address not in found:
                found.append(address)
    return found


def _url(host: str, port: int) -> str:
    host = host.strip("[]")
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def desk_urls(host: str, port: int) -> list[str]:
    """Addresses a browser can open, the first on this machine itself."""
    if not is_unspecified(host):
        return [_url(host, port)]
    local = "::1" if ":" in host else "127.0.0.1"
    return [_url(local, port)] + [_url(a, port) for a in machine_addresses()]


def address_line(host: str, port: int) -> str:
    """What the desk prints when it starts (Chinese, one line)."""
    urls = desk_urls(host, port)
    if not is_unspecified(host):
        return f"导演台：{urls[0]}"
    others = "、".join(urls[1:])
    if others:
        return f"导演台：本机 {urls[0]}；同一网络的手机或电脑：{others}（需用令牌登录）"
    return (f"导演台：本机 {urls[0]}；其他设备请用这台机器的局域网地址（ip addr 可查），"
            f"端口 {port}（需用令牌登录）")


def listen_error(host: str, port: int, exc: OSError, *, port_option: str | None = "--port") -> str:
    """Why the desk cannot listen, and what to do (Chinese, one line); ``port_option``
    is the option that picks another port (None: there is none)."""
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        other = f"请换一个端口，例如 {port_option} {port + 1}，或先停掉占用它的程序" if port_option \
            else "请先停掉占用它的程序"
        return f"导演台无法使用 {where}：端口 {port} 已被占用（另一个导演台或别的程序在用）。{other}"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"导演台无法使用 {where}：这台机器没有地址 {host}。请用 127.0.0.1，或这台机器自己的地址"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"导演台无法使用 {where}：没有权限使用端口 {port}（1024 以下要管理员权限）。请换一个 1024 以上的端口"
    return f"导演台无法使用 {where}：{os_error_zh(exc)}"


class ServedDesk:
    """A desk's HTTP server on a background thread: where to open it, and its shutdown
    (one game's desk here, the service's in ``forumbot.desk.service``)."""

    server: BaseWSGIServer
    thread: threading.Thread

    @property
    def urls(self) -> list[str]:
        return desk_urls(self.server.host, self.server.port)

    @property
    def url(self) -> str:
        """An address that works from this machine (never http://0.0.0.0:…)."""
        return self.urls[0]

    @property
    def address_line(self) -> str:
        return address_line(self.server.host, self.server.port)

    def _shut_down(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.server.server_close()


@dataclass
class DeskServer(ServedDesk):
    """A game's desk served from a background thread; ``stop()`` shuts it down cleanly."""

    app: Flask
    server: BaseWSGIServer
    thread: threading.Thread

    def stop(self) -> None:
        self._shut_down()
        self.app.extensions["forumbot_runtime"].close()


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here: werkzeug, asked to bind, answers a taken port by
    printing English and calling ``sys.exit`` — which would end the agent of ``run --desk``."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and is_unspecified(host):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # :: takes IPv4 too
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


def _server(app: Flask, host: str, port: int) -> BaseWSGIServer:
    """Raises ``OSError`` when it cannot listen (``listen_error`` says it for a person)."""
    # One line per request (the page polls every few seconds) would drown the agent's log.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    with _listen(host, port) as sock:  # werkzeug serves a duplicate of it
        return make_server(host, port, app, threaded=True, fd=sock.fileno())


def start_desk(config_path: str | Path, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
               clock: Clock | None = None, token: str | None = None, poll_seconds: float = 10.0) -> DeskServer:
    """Start the desk in a daemon thread and return at once (port 0: any free port).
    Raises ``OSError`` when it cannot listen (``listen_error`` says it for a person).

    For ``forumbot run --desk``: the agent keeps the main thread; the desk opens its own
    runtime (its own database connection) on the same config."""
    app = create_app(config_path, host=host, clock=clock, token=token, poll_seconds=poll_seconds)
    server = _server(app, host, port)
    thread = threading.Thread(target=server.serve_forever, name="forumbot-desk", daemon=True)
    thread.start()
    desk = DeskServer(app, server, thread)
    log.info("导演台：%s", " ".join(desk.urls))
    return desk


def serve(config_path: str | Path, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          clock: Clock | None = None, token: str | None = None, ready=None) -> None:
    """Serve the desk in the foreground until interrupted (Ctrl-C). ``ready`` gets the
    line to print (the addresses to open)."""
    app = create_app(config_path, host=host, clock=clock, token=token)
    server = _server(app, host, port)
    if ready is not None:
        ready(address_line(server.host, server.port))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.extensions["forumbot_runtime"].close()
