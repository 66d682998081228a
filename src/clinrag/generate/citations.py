"""Citations: split an answer into sentences, read their ``[n]`` markers, and check that each sentence is
supported by the sources it cites.

Support of a sentence by one source is the larger of two overlaps, each in [0, 1]:

- lexical: the share of the sentence's content words (clinical BM25 tokens) found in the source;
- semantic (when an embedder is given): the best cosine between the sentence and the source's sentences.

A sentence's support is its best cited source's; it is supported at or above the threshold. Citations to numbers
that were not given are dropped and counted.

Example:
    >>> found = verify("Aspirin was continued [1]. She also got a pony [2].",
    ...                {1: "Discharge Medications: Aspirin 81 mg daily", 2: "Social History: lives alone"})
    >>> [(s.citations, s.supported) for s in found.sentences]
    [((1,), True), ((2,), False)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from clinrag.index.abbreviations import expand_abbreviations
from clinrag.index.embed import Embedder
from clinrag.index.lexical import tokenize
from clinrag.ingest import sentences as note_sentences
from clinrag.retrieve.classes import mentioned
from clinrag.retrieve.intent import INTERROGATIVE
from clinrag.retrieve.vocabulary import is_thing
from clinrag.retrieve.word_forms import forms_mentioned
from clinrag.types import AnswerSentence

_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=(?:\[\d|[A-Z0-9\"'(*-]))|\n+")
_LEADING_MARKERS = re.compile(r"^((?:\s*\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\])+)\s*")
_LIST_NUMBER_END = re.compile(r"(?:^|\s)\d{1,3}\.$")


@dataclass(frozen=True)
class Verification:
    """Verified sentences, how many citations pointed at sources that were not given, and how many sentences their
    sources supported but that were not about the question (see :func:`on_question`) or that another passage of
    the same stay contradicts."""

    sentences: tuple[AnswerSentence, ...]
    invalid_citations: int
    off_question: int = 0
    contradicted: int = 0

    @property
    def supported(self) -> tuple[AnswerSentence, ...]:
        """The sentences that passed."""
        return tuple(sentence for sentence in self.sentences if sentence.supported)


def split_sentences(answer: str) -> list[str]:
    """Sentences of ``answer`` with their citation markers; markers written after a full stop stay with the
    sentence before them.

    Example:
        >>> split_sentences("He smokes. [2] She drinks [1].\\n- Lives alone [3]")
        ['He smokes. [2]', 'She drinks [1].', '- Lives alone [3]']
        >>> split_sentences("Medications: 1. Aspirin 81 mg. 2. Apixaban [1]")
        ['Medications: 1. Aspirin 81 mg.', '2. Apixaban [1]']
    """
    sentences: list[str] = []
    for line in answer.splitlines():
        pieces: list[str] = []
        for piece in (p.strip() for p in _SPLIT.split(line) if p and p.strip()):
            if pieces and _LIST_NUMBER_END.search(pieces[-1]):
                pieces[-1] += " " + piece  # "1." of a numbered list is not the end of a sentence
            else:
                pieces.append(piece)
        for index, piece in enumerate(pieces):
            rest = piece
            leading = _LEADING_MARKERS.match(piece)
            if leading and index > 0:  # "… given. [2] Next …": the marker closes the sentence before it
                pieces_before = len(sentences)
                sentences[pieces_before - 1] += " " + leading.group(1).strip()
                rest = piece[leading.end() :].strip()
            if rest:
                sentences.append(rest)
    return sentences


def citations_of(sentence: str) -> tuple[int, ...]:
    """The source numbers cited in ``sentence``, in order, without repeats.

    Example:
        >>> citations_of("Given aspirin [2][1, 2] and heparin [3; 1].")
        (2, 1, 3)
    """
    numbers = (int(n) for group in _MARKER.findall(sentence) for n in re.split(r"\s*[,;]\s*", group))
    return tuple(dict.fromkeys(numbers))


def strip_citations(sentence: str) -> str:
    """``sentence`` without its ``[n]`` markers."""
    return re.sub(r"\s+([.!?,;:])", r"\1", _MARKER.sub("", sentence)).strip()


def lexical_support(sentence: str, source: str, ignored: set[str] | frozenset[str] = frozenset()) -> float:
    """Share of the sentence's content words, less ``ignored`` ones (the source's provenance: patient, section),
    that the source contains (1.0 for a sentence with none). A sentence gets its support from what the source
    says, not from naming the patient and the section it comes from.

    Example:
        >>> lexical_support("aspirin 81 mg", "Aspirin 81 mg PO daily")
        1.0
        >>> lexical_support("Yes, she is allergic to codeine", "Allergies: Codeine")
        1.0
        >>> lexical_support("Ada underwent a major procedure", "open colectomy", ignored={"ada", "major", "procedure"})
        0.0
    """
    words = {_stem(word) for word in set(tokenize(sentence)) - ignored - _ANSWER_WORDS}
    if not words:
        return 1.0
    return len(words & {_stem(word) for word in tokenize(source)}) / len(words)


_ANSWER_WORDS = frozenset({"yes"})
"""Words an answer adds that no source says."""


def _stem(token: str) -> str:
    """A crude stem: the first six letters of a long word, so "allergic" meets "allergies" and "discharged" meets
    "discharge" (words that differ there — hypertension, hypotension — stay apart)."""
    return token[:6] if token.isalpha() else token


def _source_sentences(text: str) -> list[str]:
    return [s for s in note_sentences.split_sentences(text) if len(s) > 2] or [text]


def verify(
    answer: str,
    sources: Mapping[int, str],
    threshold: float = 0.5,
    embedder: Embedder | None = None,
    headers: Mapping[int, str] | None = None,
) -> Verification:
    """Check every sentence of ``answer`` against the ``sources`` (number → text) it cites.

    ``headers`` (number → provenance line) count as evidence too — a claim naming the wrong patient fails — but a
    sentence that only restates a header says nothing the source says, and is not supported. Neither is a
    negated sentence citing a source with no negation in it ("not allergic" against "Allergies: Lisinopril"), nor
    a question ("Is he allergic to anything? [1]": a model that repeats the question claims nothing).
    """
    headers = headers or {}
    header_words = {word for header in headers.values() for word in tokenize(header)}
    invalid = 0
    cited: list[tuple[str, tuple[int, ...]]] = []
    for sentence in split_sentences(answer):
        numbers = citations_of(sentence)
        valid = tuple(n for n in numbers if n in sources)
        invalid += len(numbers) - len(valid)
        text = strip_citations(sentence)
        if tokenize(text):  # markers or punctuation alone claim nothing
            cited.append((text, valid))
    semantic = _semantic_support(cited, sources, embedder) if embedder is not None else {}
    verified: list[AnswerSentence] = []
    for index, (text, numbers) in enumerate(cited):
        best = 0.0
        for number in numbers:
            header, body = headers.get(number, ""), sources[number]
            if _only_restates(text, header_words) or (_negated(text) and not _negated(body)):
                continue
            lexical = lexical_support(text, body, ignored=set(tokenize(header)))
            best = max(best, lexical, semantic.get((index, number), 0.0))
        evidence = [headers.get(number, "") + "\n" + sources[number] for number in numbers]
        supported = best >= threshold and not unfounded_things(text, evidence) and not _asks(text)
        verified.append(AnswerSentence(text=text, citations=numbers, support=round(best, 4), supported=supported))
    return Verification(tuple(verified), invalid)


def _asks(text: str) -> bool:
    """Whether ``text`` is a question: it opens with a question word and ends with "?" (a note's "?PE" is none).

    Example:
        >>> _asks("Is he allergic to anything?"), _asks("CXR: ?infiltrate"), _asks("Allergies: penicillin")
        (True, False, False)
    """
    return text.rstrip().endswith("?") and INTERROGATIVE.match(text) is not None


def unfounded_things(sentence: str, evidence: Sequence[str]) -> frozenset[str]:
    """The clinical things (drugs, conditions, tests, procedures: :func:`clinrag.retrieve.vocabulary.is_thing`) that
    ``sentence`` names and none of ``evidence`` does, abbreviations counted either way ("AF" for "atrial
    fibrillation"). A sentence naming a drug its cited sources never mention is not supported, however many of
    its other words they share.

    Example:
        >>> sorted(unfounded_things("Discharged on aspirin and HTN meds.", ["Lisinopril for hypertension"]))
        ['aspirin']
    """
    _, pairs = expand_abbreviations(sentence)
    found: set[str] = set()
    for text in evidence:
        found.update(tokenize(text))
        found.update(tokenize(text.replace("/", " ")))  # "A/orthopaedics" names the department "orthopaedics"
        found.update(tokenize(expand_abbreviations(text)[0]))
    covered = {token for short, meaning in pairs if set(tokenize(meaning)) <= found for token in tokenize(short)}
    return frozenset(t for t in tokenize(sentence) if t not in found and t not in covered and is_thing(t))


_NEGATION = re.compile(r"\b(?:no|not|never|none|denies|denied|without|negative|nkda|n't)\b|n't\b", re.IGNORECASE)


def _negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def _only_restates(sentence: str, header_words: set[str]) -> bool:
    """True when every word of ``sentence`` comes from the provenance lines (patients, notes, sections, dates)."""
    words = set(tokenize(sentence))
    return bool(words) and words <= header_words


def _semantic_support(
    cited: Sequence[tuple[str, tuple[int, ...]]], sources: Mapping[int, str], embedder: Embedder
) -> dict[tuple[int, int], float]:
    """Best cosine between each cited sentence and the sentences of each source it cites."""
    wanted = sorted({n for _, numbers in cited for n in numbers})
    if not wanted:
        return {}
    pieces = {n: _source_sentences(sources[n]) for n in wanted}
    flat = [piece for n in wanted for piece in pieces[n]]
    source_vectors = embedder.embed(flat)
    sentence_vectors = embedder.embed([text for text, _ in cited])
    offsets: dict[int, tuple[int, int]] = {}
    start = 0
    for n in wanted:
        offsets[n] = (start, start + len(pieces[n]))
        start += len(pieces[n])
    found: dict[tuple[int, int], float] = {}
    for index, (_, numbers) in enumerate(cited):
        for n in numbers:
            first, last = offsets[n]
            cosines = source_vectors[first:last] @ sentence_vectors[index]
            found[index, n] = float(np.clip(cosines.max(), 0.0, 1.0))
    return found


def on_question(
    checked: Verification,
    terms: Iterable[str],
    sources: Mapping[int, str],
    wanted_sections: Sequence[str] = (),
    sections: Mapping[int, str | None] | None = None,
) -> Verification:
    """``checked`` with every supported sentence whose cited sources mention none of ``terms`` (the question's
    specific words, :func:`clinrag.generate.extractive.question_terms`) set unsupported and counted as off-question.

    Support is checked against the cited source, not against the question: "Ada was discharged on apixaban [1]"
    is supported by her medication list whatever was asked. When the question asks about a specific thing
    (warfarin, a colonoscopy), a sentence answers it only if the evidence it cites mentions that thing — the test
    the extractive answerer applies when it picks lines. The sentence's own words do not count: "discharged on
    warfarin 5 mg [1]", citing a list that holds apixaban 5 mg, would otherwise pass both checks. No terms (the
    question asks for a kind of information, "what was she sent home on?"): every sentence is on the question.
    A sentence keeps its support score; only ``supported`` changes.

    When the question names no thing but asks for a kind of fact held in some sections (``wanted_sections``: "what
    procedure did she undergo?") and some given source comes from them (``sections``: number → section), a
    sentence must cite one of those: a discharge medication list does not answer a question about a procedure.

    Example:
        >>> sources = {1: "Discharge Medications: Apixaban 5 mg PO BID"}
        >>> checked = verify("Discharged on apixaban 5 mg [1].", sources, threshold=0.4)
        >>> checked.sentences[0].supported
        True
        >>> found = on_question(checked, ["warfarin"], sources)
        >>> found.sentences[0].supported, found.off_question
        (False, 1)
        >>> on_question(verify("Apixaban 5 mg [1].", sources), ["apixaban"], sources).sentences[0].supported
        True
    """
    wanted = set(terms)
    sections = sections or {}
    if wanted:
        mentions = {number: bool(forms_mentioned(wanted, mentioned(text))) for number, text in sources.items()}
    elif wanted_sections and any(section in wanted_sections for section in sections.values()):
        mentions = {number: sections.get(number) in wanted_sections for number in sources}
    else:
        return checked
    kept: list[AnswerSentence] = []
    off = 0
    for sentence in checked.sentences:
        if sentence.supported and not any(mentions.get(number, False) for number in sentence.citations):
            kept.append(sentence.model_copy(update={"supported": False}))
            off += 1
        else:
            kept.append(sentence)
    return Verification(tuple(kept), checked.invalid_citations, checked.off_question + off)
