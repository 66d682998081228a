"""Question shorthand ("presenting sx", "what op", "PTA meds") is read as the words it stands for, so that the kind
of fact is recognised and the shorthand is never a thing a record must spell."""

from __future__ import annotations

import doctest

import pytest

from clinrag.retrieve import shorthand
from clinrag.retrieve.query import understand
from clinrag.retrieve.shorthand import expand_shorthand


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(shorthand)
    assert outcome.attempted > 0
    assert outcome.failed == 0


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("presenting sx for Ada Stone?", "presentation"),
        ("Stone, Ada - what op?", "procedure"),
        ("PTA meds for Ada Stone?", "admission_medications"),
        ("f/u appts - Ada Stone", "followup"),
        ("prior admits - Ada Stone", "admissions_summary"),
        ("discharge rx list for Ada Stone", "discharge_medications"),
        ("What was Ada Stone taken to theatre for?", "procedure"),
        ("pt Ada Stone 25yo - what was she d/c'd on?", "discharge_medications"),
    ],
)
def test_shorthand_names_the_kind_of_fact_and_no_thing(question: str, kind: str) -> None:
    found = understand(question)
    assert found.fact_kind == kind
    assert found.things <= {"ada", "stone"}


def test_capitals_that_mean_something_else_are_kept() -> None:
    assert expand_shorthand("MED and PT/INR for her, and her meds")[0] == "MED and PT/INR for her, and her medications"


def test_words_that_merely_contain_shorthand_are_untouched() -> None:
    assert expand_shorthand("stop the operation; top of the sxx list")[1] == ()
    assert expand_shorthand("post-op course")[0] == "postoperative course"


def test_the_expansion_reaches_the_lexical_query() -> None:
    found = understand("presenting sx?")
    assert found.lexical_text.endswith(" symptoms")
    assert ("sx", "symptoms") in found.expansions


def test_resp_reads_as_respiratory() -> None:
    assert "respiratory" in understand("Vincent Dodson any resp complications?").things
