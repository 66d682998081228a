"""The answerer's paths with a scripted generator and a fixed searcher (no index, no model): relevance to the
question, context fitting, marking unsupported sentences, streaming, and where an abstention says it looked."""

from __future__ import annotations

import doctest
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest

from clinrag.evaluate.adversarial import note_chunk
from clinrag.generate import answer as answer_module
from clinrag.generate import citations, extractive
from clinrag.generate.answer import PROMPT_MARGIN, Answerer
from clinrag.generate.extractive import extract_answer, question_terms
from clinrag.generate.llm import Generator, Messages
from clinrag.generate.prompts import clinical_messages
from clinrag.retrieve.hybrid import Retrieval
from clinrag.retrieve.query import understand
from clinrag.settings import AnswerSettings
from clinrag.types import Chunk, Hit, SearchFilters, Source

ADA = "Ada Stone"
MEDS = note_chunk(1, ADA, "Discharge Medications", "1. Apixaban 5 mg PO BID\n2. Metoprolol succinate 25 mg PO DAILY")
HPI = note_chunk(1, ADA, "History of Present Illness", "Palpitations for two days. Warfarin was stopped in 2019.")
COMPLAINT = note_chunk(1, ADA, "Chief Complaint", "Palpitations")


@dataclass
class FixedSearcher:
    """Returns the same ranked chunks for any question, and says which organisations it searched."""

    chunks: Sequence[Chunk]
    searched: tuple[str, ...] = ("A",)
    denied: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        hits = tuple(Hit(chunk=c, score=1.0 - i / 10, rank=i + 1) for i, c in enumerate(self.chunks))
        return Retrieval(
            hits=hits[:k],
            understanding=understand(question),
            resolution=None,
            filters=filters or SearchFilters(),
            searched=self.searched,
            denied=self.denied,
            unreachable=self.unreachable,
        )


@dataclass
class ScriptedGenerator:
    """A generator that replies with a fixed text, records every prompt, and counts one token per word."""

    reply: str
    context_window: int = 4096
    id: str = "scripted"
    prompts: list[Messages] = field(default_factory=list)

    def complete(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> str:
        self.prompts.append(messages)
        return self.reply

    def stream(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        self.prompts.append(messages)
        yield from re.findall(r"\S+\s*", self.reply)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _answerer(chunks: Sequence[Chunk], reply: str, **settings: object) -> tuple[Answerer, ScriptedGenerator]:
    generator = ScriptedGenerator(reply)
    chosen = AnswerSettings.model_validate({"generator": "openai", **settings})
    return Answerer(FixedSearcher(chunks), chosen, generator), generator


def test_docstring_examples_run() -> None:
    for module in (citations, extractive, answer_module):
        outcome = doctest.testmod(module)
        assert outcome.failed == 0, module.__name__


def test_the_scripted_generator_implements_the_protocol() -> None:
    assert isinstance(ScriptedGenerator("x"), Generator)


# --- on the question --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "Ada Stone was discharged on apixaban 5 mg twice daily [1].",  # true of the source, but not what was asked
        "Ada Stone was discharged on warfarin 5 mg [1].",  # the asked-about drug put in the place of the real one
    ],
)
def test_a_well_cited_sentence_off_the_question_abstains(reply: str) -> None:
    answerer, generator = _answerer([MEDS, HPI], reply)
    answer = answerer.answer("What dose of warfarin was Ada Stone discharged on?")
    assert generator.prompts  # the model was asked: source [2] mentions warfarin
    assert answer.abstained
    assert answer.abstention is not None
    assert "warfarin" in answer.abstention.reason
    assert answer.text.startswith("Not enough information")
    assert answer.text.endswith("Searched: A.")


def test_an_answer_on_the_question_passes() -> None:
    reply = "Ada Stone was discharged on apixaban 5 mg twice daily [1]. Warfarin was stopped in 2019 [2]."
    answerer, _ = _answerer([MEDS, HPI], reply)
    answer = answerer.answer("Did Ada Stone take apixaban or warfarin?")  # both sources answer: both shown
    assert not answer.abstained
    assert [s.citations for s in answer.sentences] == [(1,), (2,)]
    assert [answer.sources[n - 1].chunk for n in answer.cited] == [MEDS, HPI]
    assert answer.support == 1.0


def test_only_the_off_question_sentences_are_removed() -> None:
    reply = "Warfarin was stopped in 2019 [2]. Her chief complaint was palpitations [3]."
    answerer, _ = _answerer([MEDS, HPI, COMPLAINT], reply)
    answer = answerer.answer("When was Ada Stone's warfarin stopped?")
    assert not answer.abstained
    assert [s.text for s in answer.sentences] == ["Warfarin was stopped in 2019."]
    assert answer.unsupported_sentences == 1
    # the one source that answers was shown to the model, numbered [1]
    assert [answer.sources[n - 1].chunk for n in answer.cited] == [HPI]


def test_when_no_hit_mentions_the_thing_asked_the_model_is_not_called() -> None:
    answerer, generator = _answerer([MEDS, COMPLAINT], "Ada Stone takes apixaban 5 mg [1].")
    answer = answerer.answer("Why was Ada Stone started on lithium?")
    assert generator.prompts == []
    assert answer.abstained
    assert answer.abstention is not None
    assert "lithium" in answer.abstention.reason
    assert [source.number for source in answer.sources] == [1, 2]  # what was retrieved is still reported


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("Is it safe for someone on apixaban to have a tattoo, or should they wait?", "in general"),
        ("After her palpitations, did the hospital write down whether Ada Stone can swim?", "(swim)"),
        ("What did Ada Stone weigh on the ward scales in July?", "no kind of record"),
        ("Does Ada Stone's retinal detachment repair affect her palpitations?", "detachment or retinal"),
    ],
)
def test_what_no_patients_record_holds_is_refused_before_the_model_is_called(question: str, reason: str) -> None:
    """General advice for someone unnamed; what the record is asked to say about the patient, named by no record; a
    question of the patient that names no kind of record and no clinical thing; an event of the patient's, named in
    two clinical words, that no record names."""
    answerer, generator = _answerer([COMPLAINT, HPI, MEDS], "Ada Stone takes apixaban 5 mg [1].")
    answer = answerer.answer(question)
    assert generator.prompts == []
    assert answer.abstention is not None
    assert reason in answer.abstention.reason


def test_one_common_word_of_what_the_record_is_asked_to_say_is_no_answer() -> None:
    """ "Emergency" of "her emergency contact's phone number" is named by the arrival line; the contact is not."""
    arrival = note_chunk(1, ADA, "History of Present Illness", "She came to the emergency department by ambulance.")
    answerer, generator = _answerer([arrival, COMPLAINT], "Ada Stone came to the emergency department [1].")
    answer = answerer.answer("Did the hospital record Ada Stone's emergency contact and their phone number?")
    assert generator.prompts == []
    assert answer.abstention is not None
    assert "contact" in answer.abstention.reason


def test_a_time_of_day_asked_is_an_answer_only_with_a_clock_time() -> None:
    """ "What time did she leave the ward?" is not answered by the stay's other lines."""
    answerer, _ = _answerer([MEDS, COMPLAINT, HPI], "Apixaban 5 mg PO BID [1].")
    answer = answerer.answer("After her palpitations, what time did Ada Stone leave the ward with her apixaban?")
    assert answer.abstention is not None
    assert "time of day" in answer.abstention.reason


def test_a_patient_named_is_no_question_of_general_advice() -> None:
    answerer, _ = _answerer([COMPLAINT, MEDS], "Ada Stone takes apixaban 5 mg [1].")
    assert not answerer.answer("Is it safe for Ada Stone to stay on apixaban?").abstained


def test_a_question_for_a_kind_of_information_needs_no_specific_term() -> None:
    answerer, _ = _answerer([MEDS], "Ada Stone was discharged on apixaban 5 mg twice daily [1].")
    assert question_terms(understand("What was Ada Stone sent home on?"), [ADA]) == frozenset()
    assert not answerer.answer("What was Ada Stone sent home on?").abstained


def test_the_extractive_answerer_is_held_to_the_same_test() -> None:
    extracted = Answerer(FixedSearcher([MEDS, HPI]), AnswerSettings())
    assert extracted.answer("What dose of apixaban was Ada Stone sent home on?").sentences
    assert extracted.answer("What dose of lithium was Ada Stone sent home on?").abstained


def test_an_abstention_names_what_was_denied_and_unreachable() -> None:
    searcher = FixedSearcher([MEDS], searched=("A", "B"), denied=("B",), unreachable=("C",))
    answer = Answerer(searcher, AnswerSettings()).answer("Why was Ada Stone started on lithium?")
    assert answer.abstention is not None
    assert (answer.abstention.searched, answer.abstention.denied, answer.abstention.unreachable) == (
        ("A", "B"),
        ("B",),
        ("C",),
    )
    assert answer.text.endswith("Searched: A, B. Denied by policy: B. Not reachable: C.")


# --- context fitting --------------------------------------------------------------------------------------------


def _block_cost(generator: ScriptedGenerator, number: int, chunk: Chunk) -> int:
    from clinrag.generate.prompts import source_block

    return generator.count_tokens(source_block(number, chunk, chunk.text)) + 2


def test_the_context_keeps_whole_sources_in_rank_order_and_drops_the_lowest_ranked() -> None:
    chunks = [
        note_chunk(1, ADA, section, " ".join([f"{section} line one of four words."] * 6))
        for section in ("Brief Hospital Course", "History of Present Illness", "Discharge Instructions", "Plan")
    ]
    question = "Tell me about Ada Stone."  # no line answers it more than another: the model reads the sources whole
    settings = AnswerSettings(generator="openai", max_tokens=16)
    generator = ScriptedGenerator("Ada Stone stayed in hospital [1].")
    base = sum(generator.count_tokens(m["content"]) for m in clinical_messages(question, []))
    costs = [_block_cost(generator, n, chunk) for n, chunk in enumerate(chunks, 1)]
    generator.context_window = settings.max_tokens + PROMPT_MARGIN + base + costs[0] + costs[1] + costs[2] // 2
    answer = Answerer(FixedSearcher(chunks), settings, generator).answer(question)
    prompt = generator.prompts[0][-1]["content"]
    assert [int(n) for n in re.findall(r'<source n="(\d+)"', prompt)] == [1, 2]
    for chunk in chunks[:2]:
        assert chunk.text in prompt  # whole
    for chunk in chunks[2:]:
        assert chunk.section is not None
        assert chunk.section not in prompt  # dropped whole, not cut
    assert sum(generator.count_tokens(m["content"]) for m in generator.prompts[0]) <= (
        generator.context_window - settings.max_tokens - PROMPT_MARGIN
    )
    assert [source.number for source in answer.sources] == [1, 2, 3, 4]  # all retrieved, two shown to the model


def test_a_first_source_too_long_for_the_window_leaves_the_prompt_without_sources() -> None:
    chunk = note_chunk(1, ADA, "Brief Hospital Course", "word " * 400)
    generator = ScriptedGenerator("Not enough information in the accessible records.", context_window=512)
    chosen = AnswerSettings(generator="openai", max_tokens=16, model_fallback=False)
    answerer = Answerer(FixedSearcher([chunk]), chosen, generator)
    answer = answerer.answer("What happened to Ada Stone in hospital?")
    assert "<source" not in generator.prompts[0][-1]["content"]
    assert answer.abstained


# --- unsupported sentences, streaming ---------------------------------------------------------------------------

TWO_CLAIMS = "Ada Stone was discharged on apixaban 5 mg twice daily [1]. Ada Stone owns a pony named Star [1]."


def test_unsupported_sentences_are_removed_by_default() -> None:
    answerer, _ = _answerer([MEDS], TWO_CLAIMS)
    answer = answerer.answer("What was Ada Stone sent home on?")
    assert [s.supported for s in answer.sentences] == [True]
    assert "pony" not in answer.text
    assert (answer.support, answer.unsupported_sentences) == (0.5, 1)


def test_unsupported_sentences_can_be_kept_and_marked() -> None:
    answerer, _ = _answerer([MEDS], TWO_CLAIMS, unsupported="mark")
    answer = answerer.answer("What was Ada Stone sent home on?")
    assert not answer.abstained
    assert [s.supported for s in answer.sentences] == [True, False]
    assert answer.text.splitlines() == [
        "Ada Stone was discharged on apixaban 5 mg twice daily. [1]",
        "Ada Stone owns a pony named Star. [1] (unsupported)",
    ]
    assert (answer.support, answer.unsupported_sentences, answer.cited) == (0.5, 1, (1,))


def test_marking_does_not_rescue_an_answer_with_nothing_supported() -> None:
    answerer, _ = _answerer([MEDS], "Ada Stone owns a pony named Star [1].", unsupported="mark", model_fallback=False)
    answer = answerer.answer("What was Ada Stone sent home on?")
    assert answer.abstained


def test_a_model_draft_with_nothing_supported_gives_way_to_the_quoted_lines() -> None:
    answerer, _ = _answerer([MEDS], "Ada Stone owns a pony named Star [1].")
    answer = answerer.answer("What was Ada Stone sent home on?")
    assert (answer.abstained, answer.generator, answer.fallback_from) == (False, "extractive", "scripted")
    assert "Apixaban" in answer.text
    assert "pony" not in answer.text


def test_streamed_pieces_make_the_draft() -> None:
    answerer, _ = _answerer([MEDS], TWO_CLAIMS)
    pieces: list[str] = []
    answer = answerer.answer("What was Ada Stone sent home on?", on_token=pieces.append)
    assert len(pieces) > 1
    assert "".join(pieces) == TWO_CLAIMS
    assert [s.supported for s in answer.sentences] == [True]


# --- extractive grouping ----------------------------------------------------------------------------------------


def test_extractive_lines_are_grouped_by_patient_in_order_of_best_rank() -> None:
    ranked = [
        note_chunk(1, ADA, "Discharge Medications", "Apixaban 5 mg PO BID"),
        note_chunk(2, "Ben Rook", "Discharge Medications", "Aspirin 81 mg PO DAILY"),
        note_chunk(1, ADA, "Discharge Medications", "Metoprolol 25 mg PO DAILY"),
        note_chunk(3, "Cy Moss", "Discharge Medications", "Furosemide 40 mg PO DAILY"),
        note_chunk(2, "Ben Rook", "Discharge Medications", "Atorvastatin 40 mg PO QPM"),
    ]
    sources = [Source(number=n, chunk=chunk, score=1.0) for n, chunk in enumerate(ranked, 1)]
    text = extract_answer(understand("Which medications were these patients sent home on?"), sources)
    assert text.splitlines() == [
        "Ada Stone (1): Discharge Medications: Apixaban 5 mg PO BID [1]",
        "Ada Stone (1): Discharge Medications: Metoprolol 25 mg PO DAILY [3]",
        "Ben Rook (2): Discharge Medications: Aspirin 81 mg PO DAILY [2]",
        "Ben Rook (2): Discharge Medications: Atorvastatin 40 mg PO QPM [5]",
        "Cy Moss (3): Discharge Medications: Furosemide 40 mg PO DAILY [4]",
    ]
