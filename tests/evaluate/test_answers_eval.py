"""Answer-evaluation sets and figures."""

from __future__ import annotations

import doctest
from pathlib import Path

from clinrag.evaluate import answers
from clinrag.evaluate.answers import AnswerQuestion, rejection_questions, run_answers, summarise
from clinrag.generate.answer import Answerer
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, RetrieveSettings


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(answers)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_rejection_questions_avoid_what_the_corpus_mentions() -> None:
    questions = rejection_questions(["Ada Stone"], corpus_text="colonoscopy showed polyps; warfarin 5 mg", seed=1)
    assert questions
    assert all("colonoscopy" not in q.text and "warfarin" not in q.text for q in questions)
    assert {q.kind for q in questions} == {"negative", "noise"}


def test_the_extractive_answerer_rejects_what_no_record_holds(node_c: Path) -> None:
    with ChunkStore.open(node_c / "chunks.sqlite") as store:
        names = sorted({name for _, name in store.patients() if name})[:5]
        corpus = "\n".join(chunk.text for chunk in store.chunks())
    questions = rejection_questions(names, corpus, seed=2, per_kind=6)
    questions.append(AnswerQuestion("unseen_patient", "What was Zebediah Quuxworth discharged on?"))
    embedder = OnnxMiniLmEmbedder(threads=2)
    retriever = Retriever.open(node_c, RetrieveSettings(), embedder)
    try:
        figures = summarise(run_answers(Answerer(retriever, AnswerSettings(), embedder=embedder), questions))
    finally:
        retriever.close()
    assert figures["negative"]["abstained"] == 1.0  # type: ignore[index]
    assert figures["noise"]["abstained"] >= 0.8  # type: ignore[index]
    assert figures["unseen_patient"]["abstained"] == 1.0  # type: ignore[index]
