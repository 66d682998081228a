"""Running an ASGI app (a node, later the web app) with uvicorn on a loopback port in a background thread — for
tests, benchmarks and embedding a node in another process; and the limits an exposed app puts on its clients:
per-key request rates (`RateLimiter`, token buckets) and a request body read only up to a cap (`read_capped`).

Example:
    >>> with serve_in_thread(create_node_app(node)) as server:  # doctest: +SKIP
    ...     httpx.get(f"{server.url}/v1/health").json()
    {'status': 'ok', 'node': 'A'}
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Self

import uvicorn
from starlette.requests import Request

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


# --- limits ---------------------------------------------------------------------------------------------------------


class BodyTooLargeError(Exception):
    """A request body over the cap: refused with 413, the rest never read."""


def declared_length(headers: Mapping[str, str]) -> int | None:
    """The request's ``Content-Length``, or None when it sends none (chunked) or an unreadable one.

    Example:
        >>> declared_length({"content-length": "5000000"}), declared_length({})
        (5000000, None)
    """
    value = headers.get("content-length")
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


async def read_capped(request: Request, limit: int) -> bytes:
    """The request's body as it arrives, chunk by chunk; `BodyTooLargeError` as soon as more than ``limit`` bytes came
    (what is left is never read), and at once when its ``Content-Length`` says it will be larger."""
    declared = declared_length(request.headers)
    if declared is not None and declared > limit:
        raise BodyTooLargeError(f"request body of {declared} bytes; at most {limit} accepted")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError(f"request body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer …`` header, None for any other or none.

    Example:
        >>> bearer_token({"authorization": "Bearer abc"}), bearer_token({"authorization": "Basic abc"})
        ('abc', None)
    """
    scheme, _, token = headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, at least 1.

    Example:
        >>> retry_after(0.2), retry_after(2.5)
        ('1', '3')
    """
    return str(max(1, math.ceil(seconds)))


class RateLimiter:
    """Token buckets, one per key (a verified user, or a client address): each holds up to ``burst`` requests and
    refills at ``rate`` per second. Safe to share between threads; keeps at most ``max_keys`` buckets (full ones
    are forgotten first, since a forgotten key starts full again).

    Example:
        >>> now = [0.0]
        >>> limiter = RateLimiter(rate=1.0, burst=2, clock=lambda: now[0])
        >>> [limiter.take("A.phys") for _ in range(3)]
        [0.0, 0.0, 1.0]
        >>> now[0] = 1.0
        >>> limiter.take("A.phys"), limiter.take("B.nurse")
        (0.0, 0.0)
    """

    def __init__(
        self, rate: float, burst: int, max_keys: int = 65_536, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one request from ``key``'s bucket: 0.0 when there was one, else the seconds until there will be
        (nothing is taken then)."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return (1.0 - tokens) / self.rate
            if key not in self._buckets and len(self._buckets) >= self.max_keys:
                self._forget(now)
            self._buckets[key] = (tokens - 1.0, now)
            return 0.0

    def _forget(self, now: float) -> None:
        full = now - self.burst / self.rate
        self._buckets = {key: value for key, value in self._buckets.items() if value[1] > full}
        if len(self._buckets) >= self.max_keys:
            self._buckets.clear()
