"""``clinrag demo`` as a person runs it: it serves three identity providers and three nodes, ``clinrag ask --as``
uses that federation from another terminal, and Ctrl-C stops everything cleanly."""

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


def test_demo_serves_the_federation_and_stops_on_ctrl_c(federation: Federation, tmp_path: Path) -> None:
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
    demo = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in demo.stdout or ()], daemon=True).start()
    printed = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and demo.poll() is None:
            try:
                printed.append(lines.get(timeout=1))
            except queue.Empty:
                continue
            if "Press Ctrl-C" in printed[-1]:
                break
        output = "".join(printed)
        assert "Press Ctrl-C" in output, output
        assert f"http://127.0.0.1:{node}" in output
        assert "A.phys.neur" in output
        assert f"http://127.0.0.1:{web}" in output
        signin_page = httpx.get(f"http://127.0.0.1:{web}/signin", timeout=10)
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
    finally:
        demo.send_signal(signal.SIGINT)
        code = demo.wait(timeout=30)
    assert code == 0
    for port in [*range(idp, idp + len(DEMO_TREES)), *range(node, node + len(DEMO_TREES)), web]:
        assert _free(port), port
