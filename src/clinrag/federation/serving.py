"""Running an ASGI app (a node, later the web app) with uvicorn on a loopback port in a background thread — for
tests, benchmarks and embedding a node in another process.

Example:
    >>> with serve_in_thread(create_node_app(node)) as server:  # doctest: +SKIP
    ...     httpx.get(f"{server.url}/v1/health").json()
    {'status': 'ok', 'node': 'A'}
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any, Self

import uvicorn

from clinrag.errors import ClinragError


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on right now.

    Example:
        >>> 1024 <= free_port() <= 65535
        True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class ThreadServer:
    """A uvicorn server in a daemon thread; `stop` (or leaving ``with``) shuts it down."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=f"uvicorn-{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """``http://HOST:PORT``."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> Self:
        """Start serving; returns once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ClinragError(f"server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Ask the server to finish its requests and stop; wait for the thread."""
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> ThreadServer:
    """A `ThreadServer` for ``app`` on ``host:port`` (0: a free port); use it with ``with``."""
    return ThreadServer(app, host, port)
