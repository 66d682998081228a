"""A plan is no event: sentences that say what is to come answer no question about what happened."""

from __future__ import annotations

import pytest

from clinrag.generate.plans import is_plan, without_plans


@pytest.mark.parametrize(
    "sentence",
    [
        "Will discuss colostomy reversal in 3-6 months.",
        "To be followed with carotid duplex.",
        "She will need a repeat echocardiogram in 6 weeks.",
        "Outpatient DEXA scan to be arranged.",
        "Plan for pulmonary function testing in 4-6 weeks.",
        "- Follow up with PCP for a BP check.",
    ],
)
def test_a_sentence_about_what_is_to_come_is_a_plan(sentence: str) -> None:
    assert is_plan(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Carotid duplex showed 70% stenosis on the right.",
        "She underwent sigmoid colectomy with end colostomy.",
        "Plan was for a cholecystectomy, which was performed on hospital day 2.",
        "Postoperative course was complicated by atrial fibrillation.",
    ],
)
def test_a_sentence_that_tells_an_event_is_no_plan(sentence: str) -> None:
    assert not is_plan(sentence)


def test_plans_are_dropped_and_the_rest_kept_as_written() -> None:
    text = (
        "Hartmann's procedure.\nControlled on PO meds. Will discuss colostomy reversal in 3-6 months.\nDischarged home."
    )
    assert without_plans(text) == "Hartmann's procedure.\nControlled on PO meds.\nDischarged home."
