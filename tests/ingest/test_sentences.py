"""Sentence boundaries: titles and ``___``, clinical abbreviations, numbers, list lines, headings, exact offsets."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.ingest import sentences
from clinrag.ingest.notes import parse_note
from clinrag.ingest.sentences import sentence_spans, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Ms. ___ is a 68 year old woman with HTN. She was admitted at ___. She did well.",
            ["Ms. ___ is a 68 year old woman with HTN.", "She was admitted at ___.", "She did well."],
        ),
        ("Dear Mr. ___,", ["Dear Mr. ___,"]),
        (
            "Mr. ___ was seen by Dr. ___ and Mrs. ___ today. Plan: home.",
            ["Mr. ___ was seen by Dr. ___ and Mrs. ___ today.", "Plan: home."],
        ),
        ("Seen by Dr. ___. She agreed.", ["Seen by Dr. ___.", "She agreed."]),
        (
            "Follow up with Dr. ___ in ___ weeks. Call ___ if fever.",
            ["Follow up with Dr. ___ in ___ weeks.", "Call ___ if fever."],
        ),
    ],
)
def test_titles_and_placeholders(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Take 1 tab p.o. b.i.d. with food. Check BP q.d. in the a.m. and p.m. daily.",
            ["Take 1 tab p.o. b.i.d. with food.", "Check BP q.d. in the a.m. and p.m. daily."],
        ),
        (
            "Hgb 7.2 vs. 8.1 prior. Weight approx. 80 kg, i.e. stable.",
            ["Hgb 7.2 vs. 8.1 prior.", "Weight approx. 80 kg, i.e. stable."],
        ),
        (
            "Pt. is a 70 yo man s/p CABG with h/o MI. BMI 34.2 today.",
            ["Pt. is a 70 yo man s/p CABG with h/o MI.", "BMI 34.2 today."],
        ),
        ("Start 3.5 mg daily, e.g. with breakfast. Recheck.", ["Start 3.5 mg daily, e.g. with breakfast.", "Recheck."]),
        (
            "Mr. ___ is a ___ y.o. male w/ CAD. He presents with CP.",
            ["Mr. ___ is a ___ y.o. male w/ CAD.", "He presents with CP."],
        ),
        ("Approx. 2 L removed. INR 2.3. Warfarin held.", ["Approx. 2 L removed.", "INR 2.3.", "Warfarin held."]),
        (
            "5. OxyCODONE (Immediate Release) 5 mg PO Q4H:PRN pain",
            ["5. OxyCODONE (Immediate Release) 5 mg PO Q4H:PRN pain"],
        ),
    ],
)
def test_abbreviations_numbers_and_doses_do_not_end_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_each_list_line_and_heading_is_its_own_unit() -> None:
    text = (
        "CHRONIC ISSUES:\n"
        "# HTN: stable; continued home Lisinopril, amLODIPine.\n"
        "# hyperlipidemia: stable\n"
        "Discharge Medications:\n"
        "1. Lisinopril 10 mg PO DAILY\n"
        "2) Acetaminophen 650 mg PO Q6H\n"
        "- COPD\n"
        "* HTN\n"
        "• CKD stage 3a"
    )
    assert split_sentences(text) == text.split("\n")


def test_list_line_of_several_sentences_keeps_its_marker_on_the_first() -> None:
    text = "# CHF: diuresed with IV lasix. Discharged on torsemide 20 mg."
    assert split_sentences(text) == ["# CHF: diuresed with IV lasix.", "Discharged on torsemide 20 mg."]


def test_inline_bullets_and_numbered_items_start_sentences() -> None:
    assert split_sentences("Call for fever. - Please take Tylenol. * Take Senna.") == [
        "Call for fever.",
        "- Please take Tylenol.",
        "* Take Senna.",
    ]
    assert split_sentences("Medications: 1. Aspirin 81 mg. 2. Apixaban 5 mg.") == [
        "Medications:",
        "1. Aspirin 81 mg.",
        "2. Apixaban 5 mg.",
    ]


DISCHARGE_NOTE = """\
Discharge Instructions:
Dear Ms. ___,

It was a pleasure taking care of you at ___.

You were admitted with atrial fibrillation, an irregular and fast heart rhythm. Your heart rate
was controlled with metoprolol. You were started on apixaban, a blood thinner that lowers the
risk of stroke; do not miss doses. Call your doctor for any bleeding.
- Please take Metoprolol Succinate XL (to control your heart rate).
- Please take Apixaban (blood thinner to prevent stroke).

We wish you the best!
Your ___ Care Team
"""


def test_discharge_instructions_paragraph_with_please_take_items() -> None:
    (section,) = parse_note(DISCHARGE_NOTE).sections
    assert split_sentences(section.text) == [
        "Dear Ms. ___,",
        "It was a pleasure taking care of you at ___.",
        "You were admitted with atrial fibrillation, an irregular and fast heart rhythm.",
        "Your heart rate was controlled with metoprolol.",
        "You were started on apixaban, a blood thinner that lowers the risk of stroke; do not miss doses.",
        "Call your doctor for any bleeding.",
        "- Please take Metoprolol Succinate XL (to control your heart rate).",
        "- Please take Apixaban (blood thinner to prevent stroke).",
        "We wish you the best!",
        "Your ___ Care Team",
    ]


@pytest.mark.parametrize("text", ["", " ", "\n", "  \n\t \n  "])
def test_empty_and_whitespace_only_input(text: str) -> None:
    assert sentence_spans(text) == []
    assert split_sentences(text) == []


def test_offsets_round_trip() -> None:
    text = "  Dear Mr. ___,\n\n- Take 3.5 mg p.o. daily.  Call ___ if fever.\r\n1. Aspirin\n"
    spans = sentence_spans(text)
    assert [text[start:end] for start, end in spans] == split_sentences(text)
    assert split_sentences(text) == ["Dear Mr. ___,", "- Take 3.5 mg p.o. daily.", "Call ___ if fever.", "1. Aspirin"]
    assert all(start < end for start, end in spans)
    assert all(previous_end <= start for (_, previous_end), (start, _) in itertools.pairwise(spans))


ALPHABET = st.sampled_from([*"abcXYZ019 .!?,;:()-*#•_'\"\n\t/", "Dr.", "Ms. ", "___", "p.o.", "3.5", "- "])
TEXT = st.lists(ALPHABET, max_size=80).map("".join)


def _non_space(text: str) -> str:
    return "".join(text.split())


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(TEXT, st.text(max_size=400)))
def test_splitting_never_loses_non_space_characters(text: str) -> None:
    spans = sentence_spans(text)
    assert _non_space("".join(text[start:end] for start, end in spans)) == _non_space(text)
    assert all(text[start:end] == text[start:end].strip() and start < end for start, end in spans)


@settings(max_examples=400, deadline=None)
@given(text=TEXT)
def test_lines_skipped_by_the_fast_path_are_single_sentences_for_the_segmenter(text: str) -> None:
    for line in text.split("\n"):
        body = line.strip()
        if body and not sentences._MAYBE_BOUNDARY.search(body) and not sentences.LIST_MARKER.match(line):
            assert len([s for s in sentences.segmenter()(body).sents if s.text.strip()]) == 1, body
