"""``clinrag demo`` as a person runs it: it serves three identity providers and three nodes, ``clinrag ask --as``
uses that federation from another terminal, and Ctrl-C stops everything cleanly — also when the demo inherited an
ignored SIGINT (a background job of a script) — as SIGTERM does (a service manager). Each demo runs in its own
process group, which is killed whatever happens, so a failing test leaves no server behind."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

from clinrag.access.demo import DEMO_TREES

from .conftest import Federation

CLI = [sys.executable, "-c", "from clinrag.app.cli import main; main()"]


def _free_run(count: int, start: int = 21000) -> int:
    """The first of ``count`` consecutive free loopback ports from ``start`` on."""
    for base in range(start, 60000, 97):
        if all(_free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no free ports")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def _group_members(pgid: int) -> list[int]:
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
        return [*range(self.idp, self.idp + count), *range(self.node, self.node + count), self.web]

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
def _running_demo(federation: Federation, tmp_path: Path, ignore_sigint: bool = False) -> Iterator[Demo]:
    """``clinrag demo`` on free ports over a copy of the session's cohort and node stores (nothing new to embed),
    in a process group of its own; on leaving, that whole group is killed if anything of it is still running.
    ``ignore_sigint``: start it with SIGINT ignored, as bash starts a background job of a script."""
    out = tmp_path / "demo"
    shutil.copytree(federation.out / "cohort", out / "cohort")
    shutil.copytree(federation.out / "nodes", out / "nodes")
    idp = _free_run(3)
    node = _free_run(3, idp + 500)
    web = _free_run(1, node + 500)
    env = {
        **os.environ,
        "CLINRAG_INGEST__TABLES": '["admissions"]',  # as the fixture built it: nothing new to embed
        "CLINRAG_SYNTH__WORKERS": "2",
        "CLINRAG_FEDERATION__FILE": str(out / "federation" / "federation.toml"),
        "CLINRAG_FEDERATION__TOKEN_CACHE": str(tmp_path / "tokens"),
        "COLUMNS": "200",
    }
    command = [*CLI, "demo", "--out", str(out), "--patients", "40", "--seed", "11"]
    command += ["--idp-port", str(idp), "--node-port", str(node), "--web-port", str(web)]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore_sigint else None
    try:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
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
        yield Demo(process, env, idp, node, web, lines)
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


def _assert_stopped(demo: Demo, code: int, output: str, servers: list[int]) -> None:
    """The demo exited 0 after stopping all seven servers, and nothing of it is left listening or running."""
    assert code == 0, output
    assert "Stopped 7 servers." in output, output
    for port in demo.ports:
        assert _free(port), port
    left = _group_members(demo.process.pid)
    assert not set(servers) & set(left), left  # every server process is gone, not only its port
    assert left == []


def test_demo_serves_the_federation_and_stops_on_ctrl_c(federation: Federation, tmp_path: Path) -> None:
    # started as bash starts `clinrag demo &` in a script: with SIGINT ignored, which the demo must override
    with _running_demo(federation, tmp_path, ignore_sigint=True) as demo:
        output = demo.read_until("Press Ctrl-C", 240)
        assert "Press Ctrl-C" in output, output
        assert f"http://127.0.0.1:{demo.node}" in output
        assert "A.phys.neur" in output
        assert f"http://127.0.0.1:{demo.web}" in output
        servers = [pid for pid in _group_members(demo.process.pid) if pid != demo.process.pid]
        assert len(servers) >= 7, servers
        env = demo.env
        signin_page = httpx.get(f"http://127.0.0.1:{demo.web}/signin", timeout=10)
        assert signin_page.status_code == 200
        assert "Hospital A" in signin_page.text

        ask = subprocess.run(
            [*CLI, "ask", "Who was treated for a stroke?", "--as", "A.phys"],
            capture_output=True,
            text=True,
            env={**env, "COLUMNS": "200"},
            timeout=120,
            check=False,
        )
        assert ask.returncode == 0, ask.stderr
        assert "organisations" in ask.stdout
        assert "C/neurology" in ask.stdout  # denied to A.phys, and said so
        assert any(path.is_file() for path in (tmp_path / "tokens").iterdir())

        asked = subprocess.run(
            [*CLI, "ask", "Who was treated for a stroke?", "--as", "A.phys.neur", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert asked.returncode == 0, asked.stderr
        found = json.loads(asked.stdout)
        assert not found["abstained"], found["text"]
        assert {part["org"]: part["status"] for part in found["organisations"]} == dict.fromkeys("ABC", "answered")
        cited = [found["sources"][n - 1]["chunk"] for n in found["cited"]]
        assert cited
        assert all(chunk["section"] != "Discharge Instructions" for chunk in cited)  # not "call for signs of stroke"

        token = subprocess.run(
            [*CLI, "token", "--as", "B.nurse"], capture_output=True, text=True, env=env, timeout=60, check=False
        )
        assert token.returncode == 0, token.stderr
        assert token.stdout.count(".") == 2  # one JWT, nothing else: ready for OPENAI_API_KEY=$(clinrag token ...)

        code, stopping = demo.stop(signal.SIGINT)
        assert "SIGINT received: stopping 7 servers" in stopping, stopping
        _assert_stopped(demo, code, stopping, servers)


def test_demo_stops_every_server_on_sigterm(federation: Federation, tmp_path: Path) -> None:
    # as a service manager or container runtime stops it: SIGTERM to the demo alone, not to its process group
    with _running_demo(federation, tmp_path) as demo:
        output = demo.read_until("Press Ctrl-C", 240)
        assert "Press Ctrl-C" in output, output
        servers = [pid for pid in _group_members(demo.process.pid) if pid != demo.process.pid]
        assert len(servers) >= 7, servers
        started = time.monotonic()
        code, stopping = demo.stop(signal.SIGTERM)
        assert "SIGTERM received: stopping 7 servers" in stopping, stopping
        _assert_stopped(demo, code, stopping, servers)
        assert time.monotonic() - started < 15
