"""Starts the demo's servers as child processes on 127.0.0.1 (one identity provider and one node per hospital),
waits until each answers, and stops them all on Ctrl-C or when the caller leaves the ``with`` block.

Example:
    >>> with Supervisor() as servers:  # doctest: +SKIP
    ...     servers.start("idp-A", ["idp", "serve", "--org", "A", "--port", "9401"], "http://127.0.0.1:9401/")
    ...     servers.wait_ready()
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from clinrag.errors import ClinragError

CLI = ("-c", "from clinrag.app.cli import main; main()")


@dataclass
class Child:
    """A started server: its name, process, the URL that answers when it is ready, and its log file."""

    name: str
    process: subprocess.Popen[bytes]
    ready_url: str
    log: Path


class Supervisor:
    """Child servers of one demo run; logs go to ``logs/NAME.log``."""

    def __init__(self, logs: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.logs = logs or Path("data/demo/logs")
        self.env = {**os.environ, **(env or {})}
        self.children: list[Child] = []

    def start(self, name: str, args: list[str], ready_url: str) -> Child:
        """Start ``clinrag ARGS`` as a child process named ``name``."""
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"{name}.log"
        with log.open("wb") as handle:
            process = subprocess.Popen(
                [sys.executable, *CLI, *args], stdout=handle, stderr=subprocess.STDOUT, env=self.env
            )
        child = Child(name, process, ready_url, log)
        self.children.append(child)
        return child

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until every child answers its ready URL.

        Raises:
            ClinragError: a child exited or did not answer in time; names it and its log file.
        """
        deadline = time.monotonic() + timeout
        pending = list(self.children)
        with httpx.Client(timeout=1.0, trust_env=False) as client:
            while pending:
                for child in list(pending):
                    if child.process.poll() is not None:
                        raise ClinragError(f"{child.name} exited with code {child.process.returncode}; see {child.log}")
                    try:
                        if client.get(child.ready_url).status_code < 500:
                            pending.remove(child)
                    except httpx.TransportError:
                        pass
                if pending and time.monotonic() > deadline:
                    names = ", ".join(f"{c.name} (log {c.log})" for c in pending)
                    raise ClinragError(f"not ready after {timeout:g} s: {names}")
                if pending:
                    time.sleep(0.2)

    def stop(self, grace: float = 5.0) -> None:
        """Ask every child to stop (SIGTERM), then kill what is still running after ``grace`` seconds."""
        for child in self.children:
            if child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for child in self.children:
            try:
                child.process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
        self.children.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
