"""An answer citing records and the literature comes in two labelled parts, records first, one numbering."""

from __future__ import annotations

from clinrag.generate.answer import Answerer
from clinrag.generate.source_parts import LABELS, in_parts
from clinrag.retrieve.sources import SourceFamily
from clinrag.types import AnswerSentence


def _said(text: str, *citations: int) -> AnswerSentence:
    return AnswerSentence(text=text, citations=citations, support=1.0, supported=True)


def test_records_first_then_the_literature_each_labelled() -> None:
    sentences = [_said("Trials favour apixaban.", 3), _said("Ada takes apixaban.", 1), _said("Doses agree.", 2, 3)]
    ordered, labels = in_parts(sentences, {1: "row", 2: "note", 3: "guideline"})
    assert [s.text for s in ordered] == ["Ada takes apixaban.", "Doses agree.", "Trials favour apixaban."]
    assert labels == {0: LABELS[SourceFamily.RECORDS], 2: LABELS[SourceFamily.LITERATURE]}
    text = Answerer._text(ordered, labels)
    assert text.splitlines() == [
        "From the records:",
        "Ada takes apixaban. [1]",
        "Doses agree. [2][3]",
        "From the literature:",
        "Trials favour apixaban. [3]",
    ]


def test_one_kind_of_source_is_left_as_it_is() -> None:
    sentences = [_said("Trials favour apixaban.", 2), _said("Guidelines agree.", 1)]
    ordered, labels = in_parts(sentences, {1: "guideline", 2: "abstract"})
    assert ordered == sentences
    assert labels == {}
    assert Answerer._text(ordered, labels) == "Trials favour apixaban. [2]\nGuidelines agree. [1]"
