"""The README's tour, top to bottom, as a new user runs it: `clinrag demo` serving in one terminal, steps 2-4's
commands from another (the ``--as`` questions through the running nodes; a ``--node`` command on a served node
refused with exit 4 and what to do), then the demo stopped and step 4's commands on its folders.

The commands are read from the README itself, so a changed example fails here until its expected answer is stated
below. The demo is the README's (seed 42, so Deanna Mahoney is there) with 40 patients instead of 300.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .demo_helpers import CLI, DemoPortRun, start_demo

README = Path(__file__).parents[2] / "README.md"
PATIENTS = 40


def _tour_commands() -> list[list[str]]:
    """The ``clinrag`` commands of the README's steps 2 to 4, in order, as argument lists."""
    text = README.read_text()
    tour = text[text.index("**2. Ask the federation**") : text.index("**5. Generate your own cohort.**")]
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", tour, flags=re.DOTALL):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == ".venv/bin/clinrag":
                commands.append(words[1:])
    return commands


@dataclass(frozen=True)
class Expectation:
    """What a README command must do: its exit status and a check of what it printed."""

    status: int
    check: Callable[[str], bool]
    why: str


def _answered(output: str) -> bool:
    return bool(re.search(r"\[\d+\]", output)) and not output.lstrip().startswith("Not enough information")


def _stays_in_order(output: str) -> bool:
    stays = re.findall(r"^Deanna Mahoney \(10000000\): (\d{4}-\d\d-\d\d)", output, flags=re.MULTILINE)
    return _answered(output) and len(stays) >= 2 and stays == sorted(stays)


def _json_answer(output: str) -> bool:
    answer = json.loads(output)
    return not answer["abstained"] and bool(answer["cited"])


def _counted(output: str) -> bool:
    return "route: population" in output and "Hospital C" in output


def _counted_json(output: str) -> bool:
    answer = json.loads(output)
    return answer["route"]["route"] == "population" and bool(answer["population"]["results"])


def _computed(output: str) -> bool:
    return (
        "route: calculator" in output and "Formula:" in output and bool(re.search(r"- age: \d+ year \[\d+\]", output))
    )


def _experienced(output: str) -> bool:
    return "route: experience" in output and "most similar to Deanna Mahoney" in output and _answered(output)


SERVED: list[tuple[str, Expectation]] = [
    ("stroke, by hospital? --as A.phys.neur", Expectation(0, _counted, "a count per hospital, A to C")),
    ("more common? --as A.phys --json", Expectation(0, _counted_json, "aggregates, as JSON")),
    (
        "atrial fibrillation? --as B.nurse",
        Expectation(0, lambda out: _answered(out) and "Example Cardiology Society" in out, "the library's guideline"),
    ),
    ("stroke? --as A.phys.neur --json", Expectation(0, _json_answer, "one JSON object with a cited answer")),
    ("stroke? --as A.phys.neur", Expectation(0, _answered, "a cited answer from the three hospitals")),
    ("stroke? --as A.phys", Expectation(0, lambda out: "C/neurology" in out, "C's neurology denied, and said")),
    ("audit --log", Expectation(0, lambda out: "A.phys" in out, "A.phys's requests in C's audit log")),
    ("sent home with? --as A.phys", Expectation(0, _answered, "Deanna Mahoney's discharge medications, cited")),
    ("summarise Deanna Mahoney's admissions", Expectation(0, _stays_in_order, "every stay, in date order, cited")),
    ("colonoscopy", Expectation(0, lambda out: "Not enough information" in out, "an abstention")),
    ("Is Mahoney allergic", Expectation(0, lambda out: "Which patient do you mean" in out, "a question back")),
    ("--generator local --stream", Expectation(0, lambda out: "Lisinopril" in out, "her allergy, Lisinopril")),
    ("CHA2DS2-VASc score of Deanna", Expectation(0, _computed, "a score computed from her cited records")),
    ("patients like Deanna Mahoney", Expectation(0, _experienced, "similar patients' records, cited")),
]
"""Steps 2 and 3, while the demo serves: each README command (found by a piece of its text) and its answer."""

STOPPED: list[tuple[str, Expectation]] = [
    ("index build", Expectation(0, lambda out: "Traceback" not in out, "the index, up to date")),
    ("sent home with? --node", Expectation(0, lambda out: "subject" in out or "10000000" in out, "her hits")),
    ("strokes since 2020", Expectation(0, lambda out: "2020" in out, "hits since 2020")),
    ("allergic to anything? --node", Expectation(0, lambda out: "Lisinopril" in out, "her allergy, one node")),
]
"""Step 4, once the demo has stopped: the same folders answer directly."""


def _expectation(words: list[str], table: list[tuple[str, Expectation]]) -> Expectation | None:
    line = " ".join(words)
    return next((expected for key, expected in table if key in line), None)


def _run(words: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *words], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def _check(words: list[str], result: subprocess.CompletedProcess[str], expected: Expectation) -> None:
    shown = f"clinrag {shlex.join(words)} -> exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr, shown
    assert result.returncode == expected.status, shown
    assert expected.check(result.stdout), f"expected {expected.why}: {shown}"


def test_the_tour_commands_all_have_an_expected_answer() -> None:
    for words in _tour_commands():
        served = _expectation(words, SERVED)
        stopped = _expectation(words, STOPPED)
        assert served or stopped, f"README command without an expected answer here: {shlex.join(words)}"


@pytest.mark.slow
# Building the demo and running every step took 740 s on a shared 2-core machine: over the suite's 600 s per test.
@pytest.mark.timeout(1800)
def test_the_readme_tour_runs_top_to_bottom_while_the_demo_serves(tmp_path: Path) -> None:
    ports = DemoPortRun.choose()
    env = {
        **os.environ,
        "CLINRAG_SYNTH__WORKERS": "2",
        "CLINRAG_FEDERATION__TOKEN_CACHE": str(tmp_path / "tokens"),
        "CLINRAG_FEDERATION__TIMEOUT": "60",  # each hospital answers in time on a loaded machine (not the 2 s default)
        "COLUMNS": "200",
    }
    command = [*CLI, "demo", "--out", "data/demo", "--patients", str(PATIENTS), "--seed", "42"]
    command += ["--idp-port", str(ports.idp), "--node-port", str(ports.node), "--web-port", str(ports.web)]
    commands = _tour_commands()
    ran = 0
    with start_demo(command, env, ports, cwd=tmp_path) as demo:
        started = demo.read_until("Press Ctrl-C", 600)
        assert "Press Ctrl-C" in started, started
        for words in commands:
            expected = _expectation(words, SERVED)
            if expected is None:  # a step-4 command: refused while the node serves, saying what to do
                result = _run(words, tmp_path, env)
                assert result.returncode == 4, (words, result.stdout, result.stderr)
                assert "running node" in result.stderr + result.stdout, result.stderr
                continue
            _check(words, _run(words, tmp_path, env), expected)
            ran += 1
        code, _ = demo.stop(signal.SIGINT)
        assert code == 0
    for words in commands:
        expected = _expectation(words, STOPPED)
        if expected is not None and _expectation(words, SERVED) is None:
            _check(words, _run(words, tmp_path, env), expected)
            ran += 1
    assert ran == len(commands)
