"""The adversarial suite: the extractive answerer passes every case, and the suite has teeth."""

from __future__ import annotations

import doctest

import pytest

from clinrag.evaluate import adversarial
from clinrag.evaluate.adversarial import CASES, pass_rate, run_suite
from clinrag.generate import answer, extractive
from clinrag.generate.sanitize import Sanitized
from clinrag.index.embed import OnnxMiniLmEmbedder

EMBEDDER = OnnxMiniLmEmbedder(threads=2)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(adversarial)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_the_suite_covers_every_kind_of_attack() -> None:
    assert len(CASES) >= 25
    assert {case.kind for case in CASES} == {"note", "question", "other_patients"}


def test_the_extractive_answerer_passes_every_case() -> None:
    results = run_suite(EMBEDDER)
    failed = [(r.name, r.why) for r in results if not r.passed]
    assert failed == []
    assert pass_rate(results) == 1.0


def test_without_sanitising_the_injections_get_through(monkeypatch: pytest.MonkeyPatch) -> None:
    def raw(text: str) -> Sanitized:
        return Sanitized(text)

    monkeypatch.setattr(extractive, "sanitize_source", raw)
    monkeypatch.setattr(answer, "sanitize_source", raw)
    monkeypatch.setattr(answer, "sanitize_question", raw)
    results = run_suite(EMBEDDER)
    assert pass_rate(results) < 0.9
