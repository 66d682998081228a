"""A question that asks for several kinds of fact about one patient, read as one question per kind, and the answers
to those questions joined into one answer with one numbering of sources.

"Eileen Estrada's postpartum admission - what was the final diagnosis, and which BP drugs was she sent home on?"
asks for a diagnosis and for discharge medications: answered as one question, its reading settles on one kind and
the other part goes unanswered. Each clause that opens as a question and cues its own kind of fact becomes a part;
a part that does not name the patient is asked with the patient's name after it, so every part is resolved to the
same patient by the same registry as the whole question (no part is ever asked about nobody in particular). In a
question that marks what it asks with "?", a clause of a sentence ending with a full stop is said, not asked
(:func:`clinrag.retrieve.intent.may_ask`): "…, was admitted in April 2020 for alcohol withdrawal. Were any
complications recorded during that admission?" is one question, about the April stay.

Example:
    >>> question_parts("Ada Stone - what was the final diagnosis, and which BP drugs was she sent home on?")
    ('Ada Stone - what was the final diagnosis', 'which BP drugs was she sent home on? (Ada Stone)')
    >>> question_parts("What was Ada Stone's diagnosis?")
    ()
    >>> question_parts("Ada Stone, a teacher, was admitted for alcohol withdrawal. Any complications that stay?")
    ()
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from clinrag.retrieve.intent import INTERROGATIVE, clause_spans, kind_candidates, may_ask
from clinrag.retrieve.patient_mentions import full_names
from clinrag.types import Answer, AnswerSentence, Source

_JOINERS = " ,;:-–—"


def question_parts(question: str) -> tuple[str, ...]:
    """The parts of ``question`` to answer one by one (see the module docstring), or ``()`` when it asks for one
    kind of fact, names no patient in full, or names more than one."""
    names = set(full_names(question))
    if len(names) != 1:
        return ()
    (name,) = names
    starts: list[int] = []
    kinds: set[str] = set()
    for begin, end in clause_spans(question):
        clause = question[begin:end]
        cued = kind_candidates(clause)
        if INTERROGATIVE.match(clause) and may_ask(question, end) and cued and cued[0] not in kinds:
            starts.append(begin)
            kinds.add(cued[0])
    if len(starts) < 2:
        return ()
    bounds = [0, *starts[1:], len(question)]
    parts = [_trimmed(question[start:stop]) for start, stop in itertools.pairwise(bounds)]
    return tuple(part if name in part else f"{part} ({name})" for part in parts)


def _trimmed(part: str) -> str:
    """A part without the words and marks that joined it to the next ("…, and")."""
    part = part.strip().rstrip(_JOINERS)
    while part.lower().endswith(" and"):
        part = part[:-4].rstrip(_JOINERS)
    return part


def joined(question: str, answers: Sequence[Answer], text_of: Callable[[Sequence[AnswerSentence]], str]) -> Answer:
    """One answer to ``question`` from the answered parts' ``answers``: their sentences in order, their sources
    numbered on from one part to the next; ``text_of`` writes the sentences as the answer's text.

    Example:
        >>> from clinrag.evaluate.adversarial import note_chunk
        >>> def part(text, section):
        ...     source = Source(number=1, chunk=note_chunk(7, "Ada Stone", section, text), score=1.0)
        ...     said = AnswerSentence(text=text, citations=(1,), support=1.0, supported=True)
        ...     return Answer(question="?", text=f"{text} [1]", generator="extractive", sentences=(said,),
        ...                   sources=(source,), cited=(1,), support=1.0, valid_citations=1)
        >>> both = joined("?", [part("Sepsis.", "Discharge Diagnosis"), part("Labetalol.", "Discharge Medications")],
        ...               lambda said: " ".join(f"{s.text} {list(s.citations)}" for s in said))
        >>> both.text, both.cited
        ('Sepsis. [1] Labetalol. [2]', (1, 2))
    """
    sentences: list[AnswerSentence] = []
    sources: list[Source] = []
    timings: dict[str, float] = {}
    for answer in answers:
        offset = len(sources)
        sources += [source.model_copy(update={"number": source.number + offset}) for source in answer.sources]
        sentences += [
            sentence.model_copy(update={"citations": tuple(n + offset for n in sentence.citations)})
            for sentence in answer.sentences
        ]
        for step, seconds in answer.timings.items():
            timings[step] = timings.get(step, 0.0) + seconds
    supported = [sentence for sentence in sentences if sentence.supported]
    return Answer(
        question=question,
        text=text_of(sentences),
        generator=answers[0].generator,
        fallback_from=next((answer.fallback_from for answer in answers if answer.fallback_from), None),
        sentences=tuple(sentences),
        sources=tuple(sources),
        cited=tuple(sorted({n for sentence in supported for n in sentence.citations})),
        support=round(len(supported) / len(sentences), 4) if sentences else 0.0,
        valid_citations=sum(answer.valid_citations for answer in answers),
        invalid_citations=sum(answer.invalid_citations for answer in answers),
        unsupported_sentences=sum(answer.unsupported_sentences for answer in answers),
        quarantined_spans=sum(answer.quarantined_spans for answer in answers),
        timings=timings,
    )
