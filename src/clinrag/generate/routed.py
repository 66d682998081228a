"""A question answered along the planner's route: records retrieval, a population query, both, answers from
similar patients' records (`experience`) or a calculation (`calculation`).

The planner (`generate.planner`) reads the question; a population query is counted by a `PopulationCounter` (one
node folder: `population.node.LocalCounter`; the federation: `federation.population_root.FederatedCounter`) and
put in words (`population_answer`); records go to the ordinary answerer. A question the parser could not turn
into a query goes to records, and the route's reason says why. The result is a `RoutedAnswer`. A population question
that asks the literature too (`retrieve.sources.sources_asked`) is answered by the counts and by ``literature`` (the
federation's libraries, never the hospitals' records), in two labelled parts (`population_answer.with_literature`);
one that does not never calls it.

Example:
    >>> from clinrag.generate.planner import Planner
    >>> from clinrag.population.vocabulary import Vocabulary
    >>> plan = Planner(Vocabulary.build(), detect_persons=False).plan("Hello there")
    >>> routed = answer_routed(plan, None, lambda: Answer(question="Hello there", text="No.", generator="extractive"))
    >>> routed.route.route, routed.population is None
    ('records', True)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from clinrag.calculators.registry import registry
from clinrag.errors import ClinragError
from clinrag.generate.calculation import Records as CalcRecords
from clinrag.generate.calculation import answer_calculation, find_calculator
from clinrag.generate.experience import ExperiencePart
from clinrag.generate.planner import RECORDS, Plan
from clinrag.generate.population_answer import (
    NO_LIBRARY,
    RoutedAnswer,
    RouteInfo,
    labelled,
    population_answer,
    with_literature,
)
from clinrag.generate.source_parts import LABELS
from clinrag.population.outcome import PopulationOutcome
from clinrag.population.query import PopulationQuery
from clinrag.retrieve.sources import SourceFamily, sources_asked
from clinrag.types import Answer

log = logging.getLogger("clinrag.answer")


class PopulationCounter(Protocol):
    """Counts a population query where the asker may count (one node, or the federation)."""

    def count(self, query: PopulationQuery, orgs: Sequence[str] = ()) -> PopulationOutcome:
        """The merged aggregate and each organisation's part (``orgs``: those the question names; all when empty)."""
        ...


def routed(answer: Answer, route: RouteInfo, **extra: object) -> RoutedAnswer:
    """``answer`` with its route (and ``extra`` fields of `RoutedAnswer`).

    Example:
        >>> routed(Answer(question="q", text="t", generator="g"), RouteInfo(route="records", reason="r")).route.reason
        'r'
    """
    fields = {name: getattr(answer, name) for name in Answer.model_fields}
    return RoutedAnswer(**{**fields, **extra, "route": route})


def answer_routed(
    plan: Plan,
    counter: PopulationCounter | None,
    records: Callable[[], Answer],
    experience: Callable[[], tuple[Answer, ExperiencePart]] | None = None,
    lookup: CalcRecords | None = None,
    literature: Callable[[], Answer] | None = None,
) -> RoutedAnswer:
    """Answer ``plan.question`` along ``plan.route``: ``records`` is called for the records part; ``counter``
    (None: population questions cannot be counted here) for each population query; ``experience`` (None: similar
    patients cannot be found here) for a question about patients similar to one patient; ``lookup`` searches a
    named patient's records for a calculator's inputs (None: inputs from the question only); ``literature`` answers
    from the libraries only, for a population question that asks the literature too (None: no library here, and the
    answer says so)."""
    route = RouteInfo(route=plan.route, reason=plan.reason)
    if plan.route == "calculator":
        match = find_calculator(plan.question, registry().values())
        if match is not None:
            named = RECORDS in plan.destinations
            found, calculation = answer_calculation(plan.question, match.calculator, lookup if named else None)
            return routed(found, route, calculations=(calculation,))
    if plan.route == "experience":
        if experience is None:
            why = RouteInfo(route="records", reason=f"{plan.reason}; no similar patients here: answered by retrieval")
            return routed(records(), why)
        found, part = experience()
        return routed(found, route, experience=part)
    reading = plan.population
    if plan.route == "records" or not reading.queries:
        return routed(records(), route)
    if counter is None:
        why = RouteInfo(route="records", reason=f"{plan.reason}; no population tables here: answered by retrieval")
        return routed(records(), why)
    labels = reading.labels or ("",) * len(reading.queries)
    try:
        outcomes = [
            (label, counter.count(query, reading.orgs)) for label, query in zip(labels, reading.queries, strict=True)
        ]
    except ClinragError as exc:
        log.warning("population query not counted: %s", type(exc).__name__)
        why = RouteInfo(route="records", reason=f"{plan.reason}; not counted ({exc}): answered by retrieval")
        return routed(records(), why)
    if plan.route == "population":
        asks_literature = SourceFamily.LITERATURE in sources_asked(plan.question)
        if asks_literature and literature is not None:
            return with_literature(outcomes, literature(), route, plan.question)
        population = population_answer(outcomes)
        if asks_literature:
            population = population.model_copy(update={"text": f"{population.text}\n{NO_LIBRARY}"})
        answer = Answer(question=plan.question, text=population.text, generator="population", support=1.0)
        return routed(answer, route, population=population)
    found = records()
    population = population_answer(outcomes, first_evidence=len(found.sources) + 1)
    if found.text.startswith(LABELS[SourceFamily.RECORDS]):  # the records and the literature: three labelled parts
        population = labelled(population)
    text = f"{population.text}\n\n{found.text}"
    return routed(found.model_copy(update={"text": text}), route, population=population)
