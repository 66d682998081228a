"""The literature part of a population question over the federation: answered with the same answer settings,
generator and embedder as the records, from the federation's libraries only (`federation.source_searcher`), so the
counts come from the hospitals and the evidence from the libraries, each under its label
(`population_answer.with_literature`).

Example:
    >>> answerer = Answerer(FederatedSearcher(root, token), AnswerSettings())  # doctest: +SKIP
    >>> part = literature_answer(answerer, "How many of ours take apixaban, and what do trials say?")  # doctest: +SKIP
    >>> part().sources[0].chunk.source_kind  # doctest: +SKIP
    <SourceKind.ABSTRACT: 'abstract'>
"""

from __future__ import annotations

from collections.abc import Callable

from clinrag.federation.root import FederatedSearcher
from clinrag.federation.source_searcher import literature_searcher
from clinrag.generate.answer import Answerer
from clinrag.retrieve.sources import literature_clauses
from clinrag.types import Answer, SearchFilters


def literature_answerer(answerer: Answerer) -> Answerer | None:
    """``answerer`` asking only the federation's libraries; None when its searcher is not the federation's or the
    federation has no library.

    Example:
        >>> from clinrag.settings import AnswerSettings
        >>> literature_answerer(Answerer(object(), AnswerSettings())) is None  # type: ignore[arg-type]
        True
    """
    searcher = answerer.searcher
    library = literature_searcher(searcher) if isinstance(searcher, FederatedSearcher) else None
    if library is None:
        return None
    return Answerer(library, answerer.settings, answerer.generator, answerer.embedder, answerer.searched)


def literature_answer(
    answerer: Answerer,
    question: str,
    filters: SearchFilters | None = None,
    on_token: Callable[[str], None] | None = None,
) -> Callable[[], Answer] | None:
    """What answers ``question`` from the libraries of ``answerer``'s federation (`generate.routed.answer_routed`'s
    ``literature``), or None when there is none.

    Example:
        >>> from clinrag.settings import AnswerSettings
        >>> literature_answer(Answerer(object(), AnswerSettings()), "q") is None  # type: ignore[arg-type]
        True
    """
    library = literature_answerer(answerer)
    if library is None:
        return None
    return lambda: answer_from_library(lambda asked: library.answer(asked, filters, on_token=on_token), question)


def answer_from_library(ask: Callable[[str], Answer], question: str) -> Answer:
    """The libraries' answer (``ask``) to the clauses of ``question`` that ask the literature ("what do the trials say
    about tranexamic acid for hip fracture?": the counted clause's words are no topic of theirs), or to the whole
    question when those clauses alone are not answered (a clause naming no topic: "What does the evidence say about
    it?").

    Example:
        >>> asked = []
        >>> def ask(text: str) -> Answer:
        ...     asked.append(text)
        ...     return Answer(question=text, text="Nerve block lowered delirium. [1]", generator="extractive")
        >>> _ = answer_from_library(ask, "How many came in after a fall, and what do trials say about nerve block?")
        >>> asked
        ['what do trials say about nerve block?']
    """
    clauses = literature_clauses(question)
    found = ask(clauses)
    if found.abstained and clauses != question:
        whole = ask(question)
        if not whole.abstained:
            return whole
    return found
