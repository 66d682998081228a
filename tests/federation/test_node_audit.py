"""A node's audit line for an answered request, and the error a failed part of a request answers with."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from clinrag.errors import StoreError
from clinrag.federation.audit import AuditLog
from clinrag.federation.node import Node
from clinrag.federation.protocol import Denial, PathError
from clinrag.types import Actor


def _node(tmp_path: Path) -> Node:
    stub: Any = SimpleNamespace(org="A")
    return Node(stub, stub, stub, stub, AuditLog(tmp_path / "audit.jsonl"))


def test_an_answered_request_is_one_line_with_the_user_and_status_200(tmp_path: Path) -> None:
    node = _node(tmp_path)
    actor = Actor(subject="A.phys", org="A", role="physician")
    denied = [Denial(path="A/psychiatry", reasons=["p1"])]
    node.answered(actor, "ok", "similar", ["A/medicine"], denied, question_sha256="h", patients=(3, 1), detail="x")
    node.answered(actor, "denied", "vocabulary", [], denied)
    first, second = node.audit.entries()
    assert (first.node, first.subject, first.org, first.role, first.status) == ("A", "A.phys", "A", "physician", 200)
    assert (first.outcome, first.mode, first.searched, first.denied) == (
        "ok",
        "similar",
        ("A/medicine",),
        ("A/psychiatry",),
    )
    assert (first.question_sha256, first.patients, first.returned, first.detail) == ("h", (3, 1), (), "x")
    assert (second.outcome, second.question_sha256, second.patients, second.detail) == ("denied", "", (), "")


def test_a_failed_part_says_a_clinrag_error_and_names_any_other_by_type(tmp_path: Path) -> None:
    node = _node(tmp_path)
    assert node.failure(StoreError("no population tables"), "population", "count") == PathError(
        path="A", message="no population tables"
    )
    assert node.failure(KeyError("secret"), "similar", "ranking") == PathError(
        path="A", message="ranking failed (KeyError)"
    )
