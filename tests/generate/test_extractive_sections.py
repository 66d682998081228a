"""Which lines the extractive answerer quotes when a section says "None" or a reaction is told in the course."""

from __future__ import annotations

from clinrag.evaluate.adversarial import note_chunk
from clinrag.generate.extractive import extract_answer, reaction_lines, says_none
from clinrag.retrieve.query import understand
from clinrag.types import Chunk, Source

PROCEDURE = "Major Surgical or Invasive Procedure"


def _stay(hadm: int, section: str, text: str) -> Chunk:
    chunk = note_chunk(7, "Ada Stone", section, text)
    return chunk.model_copy(update={"hadm_id": hadm, "note_id": f"7-DS-{hadm}", "source_id": f"note:{hadm}#{section}"})


def test_a_section_saying_none_holds_nothing() -> None:
    assert says_none(f"{PROCEDURE}:\nNone")
    assert says_none("Medications on Admission: None.")
    assert not says_none(f"{PROCEDURE}: laparoscopic appendectomy")


def test_another_stays_operation_is_quoted_over_a_stays_none() -> None:
    sources = [
        Source(number=1, chunk=_stay(1, PROCEDURE, "None"), score=1.0),
        Source(number=2, chunk=_stay(2, PROCEDURE, "laparoscopic appendectomy"), score=0.9),
    ]
    answer = extract_answer(understand("What operation did Ada Stone have?"), sources, names=["Ada Stone"])
    assert answer == f"Ada Stone (7): {PROCEDURE}: laparoscopic appendectomy [2]"


def test_a_none_is_quoted_when_no_stay_had_one() -> None:
    sources = [Source(number=1, chunk=_stay(1, PROCEDURE, "None"), score=1.0)]
    answer = extract_answer(understand("What operation did Ada Stone have?"), sources, names=["Ada Stone"])
    assert answer == f"Ada Stone (7): {PROCEDURE}: None [1]"


def test_a_reaction_to_the_drug_asked_about_is_quoted_from_the_course() -> None:
    allergies = Source(number=1, chunk=_stay(1, "Allergies", "No Known Allergies / Adverse Drug Reactions"), score=1.0)
    course = Source(
        number=2,
        chunk=_stay(1, "Brief Hospital Course", "On day 3 he developed an antipsychotic-induced acute dystonia."),
        score=0.8,
    )
    question = understand("What reaction did Ada Stone have to the antipsychotic?")
    assert [line for _, line in reaction_lines(question, [allergies, course])] == [
        "Brief Hospital Course: On day 3 he developed an antipsychotic-induced acute dystonia."
    ]
    answer = extract_answer(question, [allergies, course], names=["Ada Stone"])
    assert "antipsychotic-induced acute dystonia. [2]" in answer


def test_an_allergy_question_naming_no_drug_reads_only_the_allergy_list() -> None:
    course = Source(number=1, chunk=_stay(1, "Brief Hospital Course", "Haloperidol-induced dystonia."), score=1.0)
    assert reaction_lines(understand("Is Ada Stone allergic to anything?"), [course]) == []


def test_a_letters_greeting_is_never_quoted() -> None:
    text = "Dear Ms. ___,\nIt was a pleasure taking care of you at ___.\nWalk daily."
    letter = _stay(1, "Discharge Instructions", text)
    source = Source(number=1, chunk=letter, score=1.0)
    answer = extract_answer(understand("What instructions was Ada Stone given?"), [source], names=["Ada Stone"])
    assert "Dear" not in answer
    assert "pleasure" not in answer
    assert "Walk daily." in answer
