"""Starts the demo's servers as child processes on 127.0.0.1 (one identity provider and one node per hospital),
waits until each answers, and stops them all on Ctrl-C, SIGTERM or SIGHUP, or when the caller leaves the ``with``
block. Each child runs the command-line program the caller names (``clinrag``: the app passes its ``main`` in, as
this layer does not import the app) with the arguments given to ``start``.

Inside ``with Supervisor() as servers:`` (in the main thread) SIGINT, SIGTERM and SIGHUP raise ``SignalReceived``
in the main thread; leaving the block stops every child (SIGTERM, a grace period, then SIGKILL for stragglers) and
restores the previous handlers. SIGINT is handled even when it was inherited as ignored (a job started with ``&``
from a script), because a program that serves until Ctrl-C must stop on Ctrl-C; SIGHUP inherited as ignored
(``nohup``) stays ignored. Children also watch a pipe from the supervisor: when the supervisor dies without
stopping them (SIGKILL, a crash), the pipe closes and each child stops itself, so none is left behind listening.

Example:
    >>> from clinrag.app.cli import main  # doctest: +SKIP
    >>> with Supervisor(main) as servers:  # doctest: +SKIP
    ...     servers.start("idp-A", ["idp", "serve", "--org", "A", "--port", "9401"], "http://127.0.0.1:9401/")
    ...     servers.wait_ready()
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Final, Self

import httpx

from clinrag.errors import ClinragError

CHILD = "from clinrag.demo.supervisor import run_child; run_child({target!r})"
"""The Python code a child runs (``python -c``): ``run_child``, which watches the supervisor before calling the
program named by ``target`` (``module:function``) with the child's arguments."""

STOP_GRACE_S: Final = 15.0
"""How long stopping waits for every server to exit after SIGTERM before killing the rest. A server exits in 1–3 s
on an idle machine; a loaded one (a CI run) has taken more than 5 s, and a kill leaves work half-done."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a supervisor and all its children."""

WATCH_FD = "CLINRAG_SUPERVISOR_FD"
"""Environment variable naming a child's end of the pipe it watches (EOF: the supervisor is gone)."""

ORPHAN_GRACE = 10.0
"""Seconds an orphaned child has to stop after SIGTERM before it kills itself."""

Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class SignalReceived(BaseException):
    """A stop signal (SIGINT, SIGTERM or SIGHUP) reached a serving ``Supervisor``; raised in the main thread.

    A ``BaseException`` like ``KeyboardInterrupt``, so ``except Exception`` does not swallow it.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(f"{self.name} received")


@dataclass
class Child:
    """A started server: its name, process, the URL that answers when it is ready, and its log file."""

    name: str
    process: subprocess.Popen[bytes]
    ready_url: str
    log: Path


class Supervisor:
    """Child servers of one demo run; logs go to ``logs/NAME.log``.

    ``cli``: the command-line program every child runs, a module-level function that reads ``sys.argv``
    (``clinrag.app.cli.main``); see ``import_path``.
    ``handle_signals``: install SIGINT/SIGTERM/SIGHUP handlers on entering the ``with`` block (main thread only).
    After a stop, ``stopped`` names the children that were still running and ``killed`` those that needed SIGKILL.
    """

    def __init__(
        self,
        cli: Callable[[], object],
        logs: Path | None = None,
        env: dict[str, str] | None = None,
        handle_signals: bool = True,
    ) -> None:
        self.command = ("-c", CHILD.format(target=import_path(cli)))
        self.logs = logs or Path("data/demo/logs")
        self.env = {**os.environ, **(env or {})}
        self.handle_signals = handle_signals
        self.children: list[Child] = []
        self.received: int | None = None
        self.stopped: list[str] = []
        self.killed: list[str] = []
        self._previous: dict[int, Handler] = {}
        self._starting = False
        self._deferred = False
        self._stopping = False
        self._hurry = False
        self._watch: tuple[int, int] | None = None

    def start(self, name: str, args: list[str], ready_url: str) -> Child:
        """Start the program (``clinrag``) with ``args`` as a child process named ``name``.

        A stop signal arriving while the child is being started is held until it is recorded, so no child escapes
        ``stop``.
        """
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"{name}.log"
        if self._watch is None:
            self._watch = os.pipe()  # both ends close-on-exec; only the read end is passed on
        watch_read = self._watch[0]
        self._starting = True
        try:
            with log.open("wb") as handle:
                process = subprocess.Popen(
                    [sys.executable, *self.command, *args],
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    env={**self.env, WATCH_FD: str(watch_read)},
                    pass_fds=(watch_read,),
                )
            child = Child(name, process, ready_url, log)
            self.children.append(child)
        finally:
            self._starting = False
        if self._deferred and self.received is not None:
            self._deferred = False
            raise SignalReceived(self.received)
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

    def stop(self, grace: float = STOP_GRACE_S) -> None:
        """Ask every child to stop (SIGTERM), then kill what is still running after ``grace`` seconds.

        Signals arriving meanwhile do not interrupt the stop; a second Ctrl-C (SIGINT) skips the rest of the grace
        period and kills the stragglers at once.
        """
        self._stopping = True
        try:
            running = [child for child in self.children if child.process.poll() is None]
            for child in running:
                child.process.terminate()
            deadline = time.monotonic() + grace
            while not self._hurry and time.monotonic() < deadline:
                if all(child.process.poll() is not None for child in running):
                    break
                time.sleep(0.05)
            for child in running:
                if child.process.poll() is None:
                    child.process.kill()
                    self.killed.append(child.name)
                child.process.wait()
            self.stopped = [child.name for child in running]
            self.children.clear()
        finally:
            self._stopping = False
            self._hurry = False
            if self._watch is not None:
                for end in self._watch:
                    os.close(end)
                self._watch = None

    def install_signal_handlers(self) -> None:
        """Make SIGINT, SIGTERM and SIGHUP raise ``SignalReceived`` (no-op outside the main thread).

        SIGINT is handled even if inherited as ignored; SIGHUP inherited as ignored (``nohup``) stays ignored.
        """
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in STOP_SIGNALS:
            if signum == signal.SIGHUP and signal.getsignal(signum) is signal.SIG_IGN:
                continue
            self._previous[signum] = signal.signal(signum, self._on_signal)

    def restore_signal_handlers(self) -> None:
        """Put back the handlers ``install_signal_handlers`` replaced."""
        for signum, previous in self._previous.items():
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None or self._stopping:
            if signum == signal.SIGINT:
                self._hurry = True  # a second Ctrl-C: stop waiting for stragglers
            return
        self.received = signum
        if self._starting:
            self._deferred = True  # raised by start() once the new child is recorded
            return
        raise SignalReceived(signum)

    def __enter__(self) -> Self:
        if self.handle_signals:
            self.install_signal_handlers()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.stop()
        finally:
            self.restore_signal_handlers()


def import_path(function: Callable[..., object]) -> str:
    """``module:name`` of a module-level function, by which a child process imports it.

    Example:
        >>> import json
        >>> import_path(json.dumps)
        'json:dumps'

    Raises:
        ValueError: ``function`` cannot be imported by that name (a lambda, a nested function, ``__main__``'s).
    """
    module, name = function.__module__, function.__qualname__
    if module == "__main__" or getattr(sys.modules.get(module), name, None) is not function:
        raise ValueError(f"a child process cannot import {module}.{name}: pass a module-level function")
    return f"{module}:{name}"


def run_child(target: str) -> None:
    """Run the program ``target`` (``module:function``, ``clinrag.app.cli:main``; it reads ``sys.argv``) as a
    supervised child: stop when the supervisor goes away, restore an inherited ignored SIGINT (a server that says
    "until Ctrl-C" must stop on Ctrl-C), and treat SIGHUP as SIGTERM so that a closed terminal stops the server
    gracefully. The program is imported only then, so a child that is still loading is watched too."""
    watched = os.environ.pop(WATCH_FD, None)
    if watched is not None:
        threading.Thread(target=_watch_supervisor, args=(int(watched),), name="supervisor-watch", daemon=True).start()
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL:
        signal.signal(signal.SIGHUP, _hangup_as_terminate)
    module, _, name = target.partition(":")
    program = getattr(importlib.import_module(module), name)
    program()


def _hangup_as_terminate(signum: int, frame: FrameType | None) -> None:
    """Signal handler: deliver SIGTERM to this process, so a server's graceful SIGTERM path also serves SIGHUP."""
    signal.raise_signal(signal.SIGTERM)


def _watch_supervisor(fd: int) -> None:
    """Block until the supervisor's end of the pipe closes (it exited or died), then stop this process: SIGTERM,
    and SIGKILL if it is still alive ``ORPHAN_GRACE`` seconds later."""
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_GRACE)
    os.kill(os.getpid(), signal.SIGKILL)
