"""``clinrag demo`` as a person runs it: it serves three identity providers and three nodes, ``clinrag ask --as``
uses that federation from another terminal, and Ctrl-C stops everything cleanly — also when the demo inherited an
ignored SIGINT (a background job of a script) — as SIGTERM does (a service manager). Each demo runs in its own
process group, which is killed whatever happens, so a failing test leaves no server behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from .conftest import Federation
from .demo_helpers import CLI, Demo, DemoPortRun, start_demo
from .demo_helpers import assert_stopped as _assert_stopped
from .demo_helpers import group_members as _group_members


@contextmanager
def _running_demo(federation: Federation, tmp_path: Path, ignore_sigint: bool = False) -> Iterator[Demo]:
    """``clinrag demo`` on free ports over a copy of the session's cohort and node stores (nothing new to embed),
    in a process group of its own; on leaving, that whole group is killed if anything of it is still running.
    ``ignore_sigint``: start it with SIGINT ignored, as bash starts a background job of a script."""
    out = tmp_path / "demo"
    shutil.copytree(federation.out / "cohort", out / "cohort")
    shutil.copytree(federation.out / "nodes", out / "nodes")
    ports = DemoPortRun.choose()
    env = {
        **os.environ,
        "CLINRAG_INGEST__TABLES": '["admissions"]',  # as the fixture built it: nothing new to embed
        "CLINRAG_SYNTH__WORKERS": "2",
        "CLINRAG_FEDERATION__FILE": str(out / "federation" / "federation.toml"),
        "CLINRAG_FEDERATION__TOKEN_CACHE": str(tmp_path / "tokens"),
        "COLUMNS": "200",
    }
    command = [*CLI, "demo", "--out", str(out), "--patients", "40", "--seed", "11"]
    command += ["--idp-port", str(ports.idp), "--node-port", str(ports.node), "--web-port", str(ports.web)]
    with start_demo(command, env, ports, ignore_sigint=ignore_sigint) as demo:
        yield demo


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
