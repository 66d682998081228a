"""The policy template docs/literature.md gives a hospital's own library node (issue 20), evaluated by Cedar as a
node would: every signed-in user, of any organisation, role or department the node trusts, may search the library's
router and leaves and retrieve what it holds; nothing of another organisation is opened by it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clinrag.access.policy import PolicyEngine
from clinrag.types import Actor, Chunk, Citation, SourceKind

DOCS = Path(__file__).resolve().parents[2] / "docs/literature.md"
USERS = [
    Actor(subject="a-phys", org="A", role="physician", dept="medicine"),
    Actor(subject="a-admin", org="A", role="admin"),
    Actor(subject="b-nurse", org="B", role="nurse", dept="cardiothoracic", affiliations=("B",)),
    Actor(subject="c-research", org="C", role="researcher"),
]


def _template() -> PolicyEngine:
    text = DOCS.read_text()
    section = text[text.index("### A hospital's own library node: policy template") :]
    block = re.search(r"```cedar\n(.*?)```", section, re.S)
    assert block is not None
    return PolicyEngine.from_text(block.group(1), source="docs/literature.md")


def _chunk(org: str, dept: str) -> Chunk:
    return Chunk.create(
        source_id="pubmed:1",
        text="Apixaban lowered major bleeding.",
        org=org,
        dept=dept,
        leaf=dept,
        source_kind=SourceKind.ABSTRACT,
        citation=Citation(pmid=1, title="A trial."),
    )


@pytest.mark.parametrize("user", USERS, ids=lambda user: user.subject)
def test_every_signed_in_user_searches_and_retrieves_the_library(user: Actor) -> None:
    engine = _template()
    assert engine.can_search(user, "ALIB", "ALIB", "router").allowed
    for leaf in ("literature", "guidelines"):
        assert engine.can_search(user, "ALIB", f"ALIB/{leaf}", "leaf", leaf).allowed
    decisions = engine.can_retrieve(user, [_chunk("ALIB", "literature"), _chunk("ALIB", "guidelines")])
    assert [decision.allowed for decision in decisions] == [True, True]


def test_the_template_opens_nothing_else() -> None:
    engine = _template()
    user = USERS[0]
    assert not engine.can_search(user, "A", "A/psychiatry", "leaf", "psychiatry").allowed
    assert [d.allowed for d in engine.can_retrieve(user, [_chunk("LIBRARY", "literature")])] == [False]
