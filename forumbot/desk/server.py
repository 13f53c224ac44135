"""Serving the desk: in the foreground (``forumbot desk``) or beside the agent in a
background thread (``forumbot run --desk``), on werkzeug's threaded server."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from forumbot.clock import Clock
from forumbot.desk.app import DEFAULT_HOST, DEFAULT_PORT, create_app

log = logging.getLogger("forumbot.desk")


@dataclass
class DeskServer:
    """A desk served from a background thread; ``stop()`` shuts it down cleanly."""

    app: Flask
    server: BaseWSGIServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        host = self.server.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.server.port}/"

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.server.server_close()
        self.app.extensions["forumbot_runtime"].close()


def _server(app: Flask, host: str, port: int) -> BaseWSGIServer:
    # One line per request (the page polls every few seconds) would drown the agent's log.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    return make_server(host, port, app, threaded=True)


def start_desk(config_path: str | Path, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
               clock: Clock | None = None, token: str | None = None, poll_seconds: float = 10.0) -> DeskServer:
    """Start the desk in a daemon thread and return at once (port 0: any free port).

    For ``forumbot run --desk``: the agent keeps the main thread; the desk opens its own
    runtime (its own database connection) on the same config."""
    app = create_app(config_path, host=host, clock=clock, token=token, poll_seconds=poll_seconds)
    server = _server(app, host, port)
    thread = threading.Thread(target=server.serve_forever, name="forumbot-desk", daemon=True)
    thread.start()
    desk = DeskServer(app, server, thread)
    log.info("director's desk at %s", desk.url)
    return desk


def serve(config_path: str | Path, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          clock: Clock | None = None, token: str | None = None, ready=None) -> None:
    """Serve the desk in the foreground until interrupted (Ctrl-C)."""
    app = create_app(config_path, host=host, clock=clock, token=token)
    server = _server(app, host, port)
    if ready is not None:
        ready(f"http://{server.host}:{server.port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.extensions["forumbot_runtime"].close()
