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
import pytest

from clinrag.index.sparse_copy import copy_tree
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.population.similar_sets import load_code_sets
from clinrag.population.tables import population_path

from ..shared.federation import Federation
from .demo_helpers import CLI, Demo, DemoPortRun, start_demo
from .demo_helpers import assert_stopped as _assert_stopped
from .demo_helpers import group_members as _group_members

# A demo and seven clinrag commands in processes of their own: 250 s on a shared 2-core machine, more under load
# (the suite allows 600 s a test, the session's federation built first included).
pytestmark = pytest.mark.timeout(1200)


@contextmanager
def _running_demo(federation: Federation, tmp_path: Path, ignore_sigint: bool = False) -> Iterator[Demo]:
    """``clinrag demo`` on free ports over a copy of the session's cohort and node stores (nothing new to embed),
    in a process group of its own; on leaving, that whole group is killed if anything of it is still running.
    ``ignore_sigint``: start it with SIGINT ignored, as bash starts a background job of a script."""
    out = tmp_path / "demo"
    shutil.copytree(federation.out / "cohort", out / "cohort")
    copy_tree(federation.out / "nodes", out / "nodes")
    ports = DemoPortRun.choose()
    env = {
        **os.environ,
        "CLINRAG_INGEST__TABLES": '["admissions"]',  # as the fixture built it: nothing new to embed
        "CLINRAG_SYNTH__WORKERS": "2",
        "CLINRAG_FEDERATION__FILE": str(out / "federation" / "federation.toml"),
        "CLINRAG_FEDERATION__TOKEN_CACHE": str(tmp_path / "tokens"),
        "CLINRAG_FEDERATION__TIMEOUT": "60",  # each hospital answers in time on a loaded machine (not the 2 s default)
        "COLUMNS": "200",
    }
    command = [*CLI, "demo", "--out", str(out), "--patients", "40", "--seed", "11"]
    command += ["--idp-port", str(ports.idp), "--node-port", str(ports.node), "--web-port", str(ports.web)]
    with start_demo(command, env, ports, ignore_sigint=ignore_sigint) as demo:
        yield demo


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``clinrag ARGS`` in a process of its own, as from another terminal (output captured, two minutes at most)."""
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def _patient_of_a(federation: Federation) -> tuple[int, str]:
    """A patient of hospital A with codes and a name no other patient of A has: (id, name)."""
    with ChunkStore.open(federation.out / "nodes" / "A" / "chunks.sqlite") as chunks:
        patients = [(subject_id, name) for subject_id, name in chunks.patients() if name]
    sets = load_code_sets(population_path(federation.out / "nodes" / "A"))
    names = [name for _, name in patients]
    return next(
        (subject_id, name)
        for subject_id, name in patients
        if names.count(name) == 1 and sets.row_of(subject_id) is not None and sets.sizes["dx"][sets.row_of(subject_id)]
    )


def test_demo_serves_the_federation_and_stops_on_ctrl_c(federation: Federation, tmp_path: Path) -> None:
    # started as bash starts `clinrag demo &` in a script: with SIGINT ignored, which the demo must override
    with _running_demo(federation, tmp_path, ignore_sigint=True) as demo:
        output = demo.read_until("Press Ctrl-C", 240)
        assert "Press Ctrl-C" in output, output
        assert f"http://127.0.0.1:{demo.node}" in output
        assert "A.phys.neur" in output
        assert f"http://127.0.0.1:{demo.web}" in output
        servers = [pid for pid in _group_members(demo.process.pid) if pid != demo.process.pid]
        assert len(servers) >= 8, servers
        env = demo.env
        signin_page = httpx.get(f"http://127.0.0.1:{demo.web}/signin", timeout=10)
        assert signin_page.status_code == 200
        assert "Hospital A" in signin_page.text

        ask = _cli({**env, "COLUMNS": "200"}, "ask", "Who was treated for a stroke?", "--as", "A.phys")
        assert ask.returncode == 0, ask.stderr
        assert "organisations" in ask.stdout
        assert "C/neurology" in ask.stdout  # denied to A.phys, and said so
        assert any(path.is_file() for path in (tmp_path / "tokens").iterdir())

        asked = _cli(env, "ask", "Who was treated for a stroke?", "--as", "A.phys.neur", "--json")
        assert asked.returncode == 0, asked.stderr
        found = json.loads(asked.stdout)
        assert not found["abstained"], found["text"]
        assert {part["org"]: part["status"] for part in found["organisations"]} == dict.fromkeys("ABC", "answered")
        cited = [found["sources"][n - 1]["chunk"] for n in found["cited"]]
        assert cited
        assert all(chunk["section"] != "Discharge Instructions" for chunk in cited)  # not "call for signs of stroke"

        evidence = _cli(
            env,
            "ask",
            "What do the guidelines recommend for anticoagulation in atrial fibrillation?",
            "--as",
            "B.nurse",
            "--json",
        )
        assert evidence.returncode == 0, evidence.stderr
        read = json.loads(evidence.stdout)
        assert not read["abstained"], read["text"]
        assert {part["org"]: part["status"] for part in read["organisations"]} == {"LIB": "answered"}
        assert {read["sources"][n - 1]["chunk"]["source_kind"] for n in read["cited"]} == {"guideline"}

        subject_id, name = _patient_of_a(federation)
        similar = _cli(env, "similar", str(subject_id), "--as", "A.phys", "--json", "-k", "5")
        assert similar.returncode == 0, similar.stderr
        ranked = json.loads(similar.stdout)
        assert 0 < len(ranked) <= 5
        assert {"org", "subject_id", "score", "shared"} <= set(ranked[0])
        assert "C" not in {match["org"] for match in ranked}  # C denies A.phys
        assert (("A", subject_id)) not in {(match["org"], match["subject_id"]) for match in ranked}
        experience = _cli(env, "ask", f"What were patients like {name} discharged with?", "--as", "A.phys", "--json")
        assert experience.returncode == 0, experience.stderr
        answered = json.loads(experience.stdout)
        assert answered["route"]["route"] == "experience"
        assert answered["experience"]["subject_id"] == subject_id
        assert subject_id not in {source["chunk"]["subject_id"] for source in answered["sources"]}
        calc = _cli(env, "ask", f"What is the CHA2DS2-VASc score of {name}?", "--as", "A.phys", "--json")
        assert calc.returncode == 0, calc.stderr
        computed = json.loads(calc.stdout)
        assert computed["route"]["route"] == "calculator"
        (record,) = computed["calculations"]
        assert record["calculator"] == "cha2ds2_vasc"
        assert {"value", "unit", "interpretation", "inputs", "missing"} <= set(record)
        stated = [used for used in record["inputs"] if used["origin"] == "stated"]
        assert stated, computed["text"]  # age and sex from her records, each cited
        cited_subjects = {source["chunk"]["subject_id"] for source in computed["sources"]}
        assert cited_subjects == {subject_id}

        token = subprocess.run(
            [*CLI, "token", "--as", "B.nurse"], capture_output=True, text=True, env=env, timeout=60, check=False
        )
        assert token.returncode == 0, token.stderr
        assert token.stdout.count(".") == 2  # one JWT, nothing else: ready for OPENAI_API_KEY=$(clinrag token ...)

        code, stopping = demo.stop(signal.SIGINT)
        assert "SIGINT received: stopping 8 servers" in stopping, stopping
        _assert_stopped(demo, code, stopping, servers)


def test_demo_stops_every_server_on_sigterm(federation: Federation, tmp_path: Path) -> None:
    # as a service manager or container runtime stops it: SIGTERM to the demo alone, not to its process group
    with _running_demo(federation, tmp_path) as demo:
        output = demo.read_until("Press Ctrl-C", 240)
        assert "Press Ctrl-C" in output, output
        servers = [pid for pid in _group_members(demo.process.pid) if pid != demo.process.pid]
        assert len(servers) >= 8, servers
        started = time.monotonic()
        code, stopping = demo.stop(signal.SIGTERM)
        assert "SIGTERM received: stopping 8 servers" in stopping, stopping
        _assert_stopped(demo, code, stopping, servers)
        assert time.monotonic() - started < 25  # the 15 s grace is for stragglers; none is expected
