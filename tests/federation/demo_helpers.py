"""Running the real ``clinrag demo`` in a test: free loopback ports, the demo in a process group of its own that is
killed whatever happens (so a failing test leaves no server behind), and what it printed, line by line."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from clinrag.access.demo import DEMO_TREES

CLI = [sys.executable, "-c", "from clinrag.app.cli import main; main()"]
"""The ``clinrag`` command of the interpreter running the tests (whatever virtualenv that is)."""
FIRST_PORT = 21000
"""Where the demo tests look for free ports, unless ``$CLINRAG_TEST_FIRST_PORT`` says otherwise."""
FIRST_PORT_ENV = "CLINRAG_TEST_FIRST_PORT"
LAST_PORT = 60000


def first_port() -> int:
    """``$CLINRAG_TEST_FIRST_PORT`` (1024 to 58000: the demo's ports span about 1,000 from it), else `FIRST_PORT`."""
    value = os.environ.get(FIRST_PORT_ENV, "").strip()
    if not value:
        return FIRST_PORT
    if not value.isdigit() or not 1024 <= int(value) <= LAST_PORT - 2000:
        raise ValueError(f"{FIRST_PORT_ENV}={value!r}: a port from 1024 to {LAST_PORT - 2000}")
    return int(value)


def free_run(count: int, start: int | None = None) -> int:
    """The first of ``count`` consecutive free loopback ports from ``start`` (default: `first_port`) on."""
    for base in range(first_port() if start is None else start, LAST_PORT, 97):
        if all(free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no free ports")


def free(port: int) -> bool:
    """Whether nothing listens on loopback ``port``."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid`` (Linux: /proc; elsewhere: the leader if alive)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").is_file():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    members = []
    for entry in proc.iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split() if entry.name.isdigit() else []
        except OSError:
            continue
        if fields and int(fields[2]) == pgid and fields[0] != "Z":  # state, ppid, pgrp, ...
            members.append(int(entry.name))
    return members


@dataclass(frozen=True)
class DemoPortRun:
    """Free ports for a demo: Hospital A's identity provider and node (B and C take the next two, the library the
    node port after C's), the web app."""

    idp: int
    node: int
    web: int

    @classmethod
    def choose(cls, start: int | None = None) -> DemoPortRun:
        """Ports that are free now, far from each other, from ``start`` (default: `first_port`) on."""
        idp = free_run(3, start)
        node = free_run(4, idp + 500)
        return cls(idp, node, free_run(1, node + 500))


@dataclass
class Demo:
    """A running ``clinrag demo``: its process, environment, ports and what it printed so far."""

    process: subprocess.Popen[str]
    env: dict[str, str]
    idp: int
    node: int
    web: int
    lines: queue.Queue[str]

    @property
    def ports(self) -> list[int]:
        """Every port the demo's servers listen on."""
        count = len(DEMO_TREES)
        return [*range(self.idp, self.idp + count), *range(self.node, self.node + count + 1), self.web]

    def read_until(self, text: str, timeout: float) -> str:
        """What the demo printed up to the line holding ``text`` (or up to its exit, or ``timeout``)."""
        printed = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                printed.append(self.lines.get(timeout=1))
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if text in printed[-1]:
                break
        return "".join(printed)

    def stop(self, signum: int, timeout: float = 30) -> tuple[int, str]:
        """Send ``signum`` and wait for the demo to exit; its status and what it printed meanwhile."""
        self.process.send_signal(signum)
        code = self.process.wait(timeout=timeout)
        return code, self.read_until("\0", 5)


@contextmanager
def start_demo(
    command: Sequence[str],
    env: dict[str, str],
    ports: DemoPortRun,
    cwd: Path | None = None,
    ignore_sigint: bool = False,
) -> Iterator[Demo]:
    """Run ``command`` (a ``clinrag demo`` on ``ports``) in a process group of its own, reading what it prints;
    on leaving, the demo gets SIGINT if it still runs, and then its whole group is killed if anything of it is
    left. ``ignore_sigint``: start it with SIGINT ignored, as bash starts a background job of a script."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore_sigint else None
    try:
        process = subprocess.Popen(
            list(command),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stdout or ():
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        yield Demo(process, env, ports.idp, ports.node, ports.web, lines)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # servers a broken demo left behind


def assert_stopped(demo: Demo, code: int, output: str, servers: list[int]) -> None:
    """The demo exited 0 after stopping all eight servers (three providers, three hospitals, the library, the web
    app), and nothing of it is left listening or running."""
    assert code == 0, output
    assert "Stopped 8 servers." in output, output
    for port in demo.ports:
        assert free(port), port
    left = group_members(demo.process.pid)
    assert not set(servers) & set(left), left  # every server process is gone, not only its port
    assert left == []
