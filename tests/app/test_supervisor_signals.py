"""A supervisor of real servers stops every one of them on SIGINT (even inherited as ignored), SIGTERM and SIGHUP,
and its children do not outlive it when it is killed outright. Real processes: a small supervising program starts
two demo identity providers (``clinrag idp serve``, the cheapest real servers) through ``Supervisor``, and the tests
signal it as a terminal, a shell script or a service manager would. ``clinrag demo`` itself is tested the same way
in tests/federation/test_demo_cli.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(300), pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")]

SUPERVISOR = """
import sys, time
from pathlib import Path
from clinrag.app.cli import main
from clinrag.demo.supervisor import SignalReceived, Supervisor

logs, ports = Path(sys.argv[1]), sys.argv[2:]
with Supervisor(main, logs) as servers:
    try:
        print("starting", flush=True)
        for org, port in zip("AB", ports):
            url = f"http://127.0.0.1:{port}/.well-known/openid-configuration"
            servers.start(f"idp-{org}", ["idp", "serve", "--org", org, "--port", port], url)
        servers.wait_ready()
        print("ready", *(child.process.pid for child in servers.children), flush=True)
        while True:
            time.sleep(1.0)
    except SignalReceived as received:
        print("received", received.name, flush=True)
        # A grace far beyond the few seconds an idle machine needs: the tests check that every server stops on
        # its own when signalled (killed 0), not how fast a loaded machine stops it.
        servers.stop(grace=60.0)
print("stopped", len(servers.stopped), "killed", len(servers.killed), flush=True)
"""


def free_ports(count: int) -> list[str]:
    """``count`` loopback ports that were free a moment ago."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [str(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def listening(port: str | int) -> bool:
    """Whether something accepts connections on the loopback port."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", int(port))) == 0


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":  # fields: state, ppid, pgrp, ...
            members.append(int(entry.name))
    return members


def wait_until(condition: object, timeout: float) -> bool:
    """Poll ``condition()`` until true or ``timeout`` seconds have passed."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return bool(condition())


@contextmanager
def inherited(dispositions: dict[int, signal.Handlers]) -> Iterator[None]:
    """Set signal dispositions in this process for the duration, so a child started meanwhile inherits them (as a
    background job from a script inherits an ignored SIGINT, or a program under nohup an ignored SIGHUP)."""
    previous = {signum: signal.signal(signum, handler) for signum, handler in dispositions.items()}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def supervising(
    tmp_path: Path, ports: list[str], dispositions: dict[int, signal.Handlers] | None = None
) -> Iterator[subprocess.Popen[str]]:
    """The supervising program in its own process group; whatever happens, nothing of that group survives."""
    with inherited(dispositions or {}):
        process = subprocess.Popen(
            [sys.executable, "-c", SUPERVISOR, str(tmp_path / "logs"), *ports],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # servers a broken supervisor left behind


def ready_pids(process: subprocess.Popen[str]) -> list[int]:
    """Read the supervisor's output up to its ``ready`` line; the children's pids."""
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("ready"):
            return [int(pid) for pid in line.split()[1:]]
    raise AssertionError(f"supervisor exited with {process.wait()} before it was ready")


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(
    ("signum", "dispositions", "to_group"),
    [
        pytest.param(signal.SIGTERM, {}, False, id="SIGTERM"),
        pytest.param(signal.SIGHUP, {signal.SIGHUP: signal.SIG_DFL}, False, id="SIGHUP"),
        pytest.param(signal.SIGINT, {signal.SIGINT: signal.SIG_IGN}, False, id="SIGINT-inherited-ignored"),
        # Ctrl-C in a terminal and a hang-up reach the whole foreground process group: servers and supervisor
        pytest.param(signal.SIGINT, {}, True, id="SIGINT-to-group"),
        pytest.param(signal.SIGHUP, {signal.SIGHUP: signal.SIG_DFL}, True, id="SIGHUP-to-group"),
    ],
)
def test_a_stop_signal_stops_every_server(
    tmp_path: Path, signum: signal.Signals, dispositions: dict[int, signal.Handlers], to_group: bool
) -> None:
    ports = free_ports(2)
    with supervising(tmp_path, ports, dispositions) as process:
        pids = ready_pids(process)
        assert len(pids) == 2
        assert all(map(listening, ports))
        if to_group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        output, _ = process.communicate(timeout=90)
        assert process.returncode == 0, output
        assert f"received {signum.name}" in output
        assert "killed 0" in output  # all stopped on their own within the grace period (if signalled too)
        assert not any(map(alive, pids))
        assert not any(map(listening, ports))
        assert group_members(process.pid) == []


def test_a_signal_during_start_up_leaves_no_server_behind(tmp_path: Path) -> None:
    ports = free_ports(2)
    with supervising(tmp_path, ports) as process:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "starting"
        time.sleep(0.3)  # children are being started or are loading
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=90)
        assert process.returncode == 0, output
        assert "received SIGTERM" in output
        assert wait_until(lambda: group_members(process.pid) == [], 5)
        assert not any(map(listening, ports))


def test_nohup_keeps_an_ignored_hangup_ignored(tmp_path: Path) -> None:
    ports = free_ports(2)
    with supervising(tmp_path, ports, {signal.SIGHUP: signal.SIG_IGN}) as process:
        pids = ready_pids(process)
        process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert process.poll() is None
        assert all(map(alive, pids))
        assert all(map(listening, ports))
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=90)
        assert process.returncode == 0
        assert not any(map(alive, pids))


def test_children_stop_when_the_supervisor_is_killed_outright(tmp_path: Path) -> None:
    ports = free_ports(2)
    with supervising(tmp_path, ports) as process:
        pids = ready_pids(process)
        process.kill()  # SIGKILL: no handler runs, nothing is stopped by the supervisor
        process.wait()
        assert wait_until(lambda: not any(map(alive, pids)), 60), "children outlived their supervisor"
        assert not any(map(listening, ports))
