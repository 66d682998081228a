"""A population question answered in words, with the table behind it, the query cited and example passages.

Each figure cites the query it comes from (``[Q1]``, listed under the answer in words) and, for text criteria, up to
three example sentences (``e.g. [1] …``) from the notes that met the criterion. Small cells read ``<5``; a sum
with suppressed parts reads ``≥``. The answer says which organisations contributed, which denied (and which
departments were denied and not counted), which could not be reached. `RoutedAnswer` is the `Answer` with the
planner's route and this population part, so ``--json``, the web app and the API carry both.

A population question that asks the literature too ("How many of our patients with atrial fibrillation are on
apixaban, and what do the trials say about apixaban versus warfarin?") is answered in two labelled parts with one
numbering (`with_literature`): "Counted from the records:" (the counts, their queries and example passages) and "From
the literature:" (the libraries' answer, its sources numbered first, the passages after them).

Example:
    >>> from clinrag.population.outcome import OrgPart, PopulationOutcome
    >>> from clinrag.population.query import CodeCriterion, PopulationQuery
    >>> from clinrag.population.results import Count, OrgAggregate
    >>> query = PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=("I63",), label="stroke"),))
    >>> parts = [OrgPart(org=o, status="ok", aggregate=OrgAggregate(org=o, query=query, total=Count.exact(n)))
    ...          for o, n in (("A", 9), ("B", 5))] + [OrgPart(org="C", status="unreachable", reason="timeout")]
    >>> print(population_answer([("", PopulationOutcome.of(query, parts))]).text)
    14 patients you may see had diagnosis stroke (I63*) (A 9, B 5) [Q1].
    Counted at A, B. Could not be reached: C (timeout).
    Note: patients are counted per hospital: one treated at several hospitals counts at each.
    [Q1] number of patients with diagnosis stroke (I63*)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from clinrag.generate.calculation import Calculation
from clinrag.generate.experience import ExperiencePart
from clinrag.generate.source_parts import LABELS
from clinrag.population.outcome import OrgPart, PopulationOutcome
from clinrag.population.query import PopulationQuery, TextCriterion
from clinrag.population.results import Cell, Count, MergedAggregate
from clinrag.retrieve.sources import SourceFamily
from clinrag.types import Answer

EVIDENCE_PER_RESULT = 3
COUNTS_LABEL = "Counted from the records:"
"""The label opening the population part of an answer that has another part (the literature's, or a records part)."""
NO_LIBRARY = "The question asks the literature too; no library answers here."
TOP_IN_WORDS = 5
"""Ranked items named in the sentence (the table lists every row)."""
GROUP_WORDS: Final = {"org": "hospital", "dept": "department", "year": "year"}
"""How a count's grouping is named to a reader (an organisation is a hospital)."""
_OF_WORDS = {
    "diagnosis": "diagnoses",
    "procedure": "procedures",
    "medication": "medications",
    "complication": "complications (secondary diagnoses coded during the stay)",
    "chief_complaint": "chief complaints",
    "insurance": "insurances",
    "admission_type": "admission types",
    "dept": "departments",
}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RouteInfo(_Model):
    """Where the planner sent the question (``records``, ``population``, ``both`` — counted, and searched in the
    records or the literature —, ``experience``: the records of patients similar to the one named, or
    ``calculator``) and why, in words."""

    route: Literal["records", "population", "both", "experience", "calculator"]
    reason: str


class TableRow(_Model):
    """One row of the table behind a figure: its group, the ranked item (top-N), the count as shown (``12``,
    ``<5``, ``≥13``), the value a bar chart draws (exact, or the lower bound when ``suppressed``), the share when
    known, and each organisation's count as shown."""

    group: dict[str, str] = Field(default_factory=dict)
    item: str | None = None
    label: str = ""
    count: str
    value: int
    suppressed: bool = False
    denominator: str | None = None
    share: float | None = None
    by_org: dict[str, str] = Field(default_factory=dict)


class EvidenceNote(_Model):
    """An example sentence behind a text criterion, numbered as the answer cites it (``[1]``)."""

    number: int
    org: str
    phrase: str
    chunk_id: str
    sentence: str


class PopulationResult(_Model):
    """One query's figures: ``key`` (``Q1``) as cited, the alternative it answers (``label``, for comparisons),
    the query and its description, the total and denominator as shown, the table, each organisation's part, and
    the merged aggregate itself."""

    key: str
    label: str = ""
    description: str
    query: PopulationQuery
    total: str | None = None
    denominator: str | None = None
    columns: tuple[str, ...] = ()
    table: tuple[TableRow, ...] = ()
    orgs: tuple[OrgPart, ...] = ()
    merged: MergedAggregate


class PopulationAnswer(_Model):
    """The population part of an answer: the text, each query's result, the evidence cited, and which
    organisations contributed, denied or could not be reached."""

    text: str
    results: tuple[PopulationResult, ...] = ()
    evidence: tuple[EvidenceNote, ...] = ()
    contributed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()


class RoutedAnswer(Answer):
    """An `Answer` with the planner's ``route`` and, for population questions, the ``population`` part (None when
    the question went to records retrieval only); for questions about similar patients, the ``experience`` part."""

    route: RouteInfo | None = None
    population: PopulationAnswer | None = None
    experience: ExperiencePart | None = None
    calculations: tuple[Calculation, ...] = ()
    """For calculator questions: each calculation (value, interpretation, inputs with their sources, missing)."""


def population_answer(outcomes: Sequence[tuple[str, PopulationOutcome]], first_evidence: int = 1) -> PopulationAnswer:
    """The answer to counted queries (``(label, outcome)``: one, or one per alternative of a comparison); evidence
    is numbered from ``first_evidence`` (after a records answer's sources, when both answer)."""
    results: list[PopulationResult] = []
    evidence: list[EvidenceNote] = []
    lines: list[str] = []
    for index, (label, outcome) in enumerate(outcomes, start=1):
        key = f"Q{index}"
        cited = _evidence(outcome.merged, first_evidence + len(evidence))
        evidence += cited
        lines.append(_sentence(key, label, outcome, cited))
        results.append(_result(key, label, outcome))
    parts = [part for _, outcome in outcomes for part in outcome.parts]
    contributed = tuple(dict.fromkeys(p.label for p in parts if p.status == "ok"))
    denied = tuple(dict.fromkeys(p.label for p in parts if p.status == "denied"))
    unreachable = tuple(dict.fromkeys(p.label for p in parts if p.status in ("unreachable", "error")))
    lines.append(_who(parts))
    notes = list(dict.fromkeys(note for _, o in outcomes for note in (*o.merged.notes, *_unknown(o.merged))))
    if notes:
        lines.append("Note: " + "; ".join(notes) + ".")
    lines += [f"[{r.key}] {r.description}" + (f" ({r.label})" if r.label else "") for r in results]
    lines += [f"[{e.number}] {e.org}: “{e.sentence}”" for e in evidence]
    return PopulationAnswer(
        text="\n".join(line for line in lines if line),
        results=tuple(results),
        evidence=tuple(evidence),
        contributed=contributed,
        denied=denied,
        unreachable=unreachable,
    )


def _units(query: PopulationQuery, n: Count | None = None) -> str:
    one = n is not None and n.value == 1
    if query.unit == "patient":
        return "patient" if one else "patients"
    return "admission" if one else "admissions"


def _cohort(query: PopulationQuery) -> str:
    return " and ".join(c.describe() for c in query.cohort) or "any record"


def _by_org(outcome: PopulationOutcome, pick: Cell | None = None) -> str:
    """``(A 9, B 5)`` when more than one organisation counted."""
    shown = []
    for part in outcome.parts:
        aggregate = part.aggregate
        if aggregate is None or aggregate.status != "ok":
            continue
        if pick is None:
            count = aggregate.total
        else:
            count = next((c.count for c in aggregate.rows if c.group == pick.group and c.item == pick.item), None)
        if count is not None:
            shown.append(f"{part.label} {count.text(aggregate.min_cell)}")
    return f" ({', '.join(shown)})" if len(shown) > 1 else ""


def _sentence(key: str, label: str, outcome: PopulationOutcome, cited: Sequence[EvidenceNote]) -> str:
    """One or two sentences for one query; the figure cites the query (``[Q1]``) and its example passages."""
    merged, query = outcome.merged, outcome.query
    lead = f"{label}: " if label else ""
    cite = (" e.g. " + ", ".join(f"[{e.number}]" for e in cited) if cited else "") + f" [{key}]."
    if merged.total is None:
        return f"{lead}No organisation could count this question [{key}]."
    m = merged.min_cell
    total = merged.total.text(m)
    units = _units(query, merged.total)
    if query.measure.kind == "share" and merged.denominator is not None:
        share = _share(merged.total, merged.denominator)
        text = f"{lead}{total} of the {merged.denominator.text(m)} {units} you may see had {_cohort(query)}{share}"
        text += _by_org(outcome) + cite
    elif query.measure.kind == "top" and query.measure.of is not None:
        what = _OF_WORDS[query.measure.of]
        ranked = [c for c in merged.rows if not c.group][:TOP_IN_WORDS]
        among = f"{lead}Among the {total} {units} you may see" + (f" with {_cohort(query)}" if query.cohort else "")
        if ranked:
            named = ", ".join(f"{c.label or c.item} ({c.count.text(m)}{_by_org(outcome, c)})" for c in ranked)
            text = f"{among}, the most common {what} were {named}{cite}"
        elif merged.rows:
            text = f"{among}, the most common {what} per group are in the table{cite}"
        else:
            text = f"{among}, no {what} are recorded{cite}"
    elif merged.total.value == 0:
        text = f"{lead}No {units} you may see had {_cohort(query)} [{key}]."
    else:
        text = f"{lead}{total} {units} you may see had {_cohort(query)}{_by_org(outcome)}{cite}"
    if query.group_by and query.measure.kind != "top" and merged.rows:
        groups = "; ".join(f"{_group(c)} {c.count.text(m)}" for c in merged.rows[:12])
        more = " …" if len(merged.rows) > 12 else ""
        text += f" By {', '.join(GROUP_WORDS[g] for g in query.group_by)}: {groups}{more}."
    return text


def _share(count: Count, denominator: Count) -> str:
    if count.value is None or not denominator.value:
        return ""
    return f" ({100 * count.value / denominator.value:.0f} %)"


def _group(cell: Cell) -> str:
    return ", ".join(cell.group.values()) + (f" {cell.label or cell.item}" if cell.item else "")


def _evidence(merged: MergedAggregate, first: int) -> list[EvidenceNote]:
    if not any(isinstance(c, TextCriterion) for c in merged.query.cohort):
        return []
    distinct = list({(e.org, e.sentence): e for e in reversed(merged.evidence)}.values())[::-1]
    return [
        EvidenceNote(number=first + i, org=e.org, phrase=e.phrase, chunk_id=e.chunk_id, sentence=e.sentence)
        for i, e in enumerate(distinct[:EVIDENCE_PER_RESULT])
    ]


def _unknown(merged: MergedAggregate) -> list[str]:
    return [
        f"'{u.term}' ({u.criterion}) is not known" + (f"; nearest: {', '.join(u.nearest)}" if u.nearest else "")
        for u in merged.unknown
    ]


def _who(parts: Sequence[OrgPart]) -> str:
    seen: dict[str, OrgPart] = {}
    for part in parts:
        seen.setdefault(part.org, part)
    counted = [p.label for p in seen.values() if p.status == "ok"]
    pieces = [f"Counted at {', '.join(counted)}." if counted else "No organisation counted."]
    partly = [f"{p.label}: {', '.join(p.denied)}" for p in seen.values() if p.status == "ok" and p.denied]
    if partly:
        pieces.append(f"Denied to you and not counted: {'; '.join(partly)}.")
    denied = [f"{p.label}" + (f" ({p.reason})" if p.reason else "") for p in seen.values() if p.status == "denied"]
    if denied:
        pieces.append(f"Denied: {', '.join(denied)}.")
    refused = [f"{p.label} ({p.reason})" for p in seen.values() if p.status == "refused"]
    if refused:
        pieces.append(f"Refused: {', '.join(refused)}.")
    down = [
        f"{p.label}" + (f" ({p.reason})" if p.reason else "")
        for p in seen.values()
        if p.status in ("unreachable", "error")
    ]
    if down:
        pieces.append(f"Could not be reached: {', '.join(down)}.")
    return " ".join(pieces)


def _result(key: str, label: str, outcome: PopulationOutcome) -> PopulationResult:
    merged = outcome.merged
    m = merged.min_cell
    columns = (*(GROUP_WORDS[g] for g in outcome.query.group_by), "item", "count", "share")
    rows = [_row(cell, outcome, m) for cell in merged.rows]
    if not merged.rows and merged.total is not None:
        total_cell = Cell(count=merged.total, denominator=merged.denominator)
        rows = [_row(total_cell, outcome, m, total=True)]
    return PopulationResult(
        key=key,
        label=label,
        description=outcome.query.describe(),
        query=outcome.query,
        total=merged.total.text(m) if merged.total is not None else None,
        denominator=merged.denominator.text(m) if merged.denominator is not None else None,
        columns=columns,
        table=tuple(rows),
        orgs=outcome.parts,
        merged=merged,
    )


def _row(cell: Cell, outcome: PopulationOutcome, min_cell: int, total: bool = False) -> TableRow:
    by_org: dict[str, str] = {}
    for part in outcome.parts:
        aggregate = part.aggregate
        if aggregate is None or aggregate.status != "ok":
            continue
        if total:
            found = aggregate.total
        else:
            found = next((c.count for c in aggregate.rows if c.group == cell.group and c.item == cell.item), None)
        if found is not None:
            by_org[part.org] = found.text(aggregate.min_cell)
    return TableRow(
        group=dict(cell.group),
        item=cell.item,
        label=cell.label or (cell.item or ("total" if total else "")),
        count=cell.count.text(min_cell),
        value=cell.count.estimate,
        suppressed=cell.count.suppressed,
        denominator=cell.denominator.text(min_cell) if cell.denominator is not None else None,
        share=cell.share,
        by_org=by_org,
    )


def labelled(population: PopulationAnswer) -> PopulationAnswer:
    """``population`` with its text opened by `COUNTS_LABEL`, for an answer with another labelled part.

    Example:
        >>> labelled(PopulationAnswer(text="9 patients you may see had diagnosis stroke (I63*) [Q1].")).text
        'Counted from the records:\\n9 patients you may see had diagnosis stroke (I63*) [Q1].'
    """
    return population.model_copy(update={"text": f"{COUNTS_LABEL}\n{population.text}"})


def with_literature(
    outcomes: Sequence[tuple[str, PopulationOutcome]], literature: Answer, route: RouteInfo, question: str = ""
) -> RoutedAnswer:
    """The counts and the libraries' ``literature`` answer as one answer in two labelled parts, the counts first:
    one numbering — the literature's sources ``[1]…[n]``, the counts' example passages after them — and the route
    ``both``; ``question``: the whole question (the libraries may have been asked its literature clauses only). A
    literature answer that abstained keeps its words in its part; the counts still answer.

    Example:
        >>> from clinrag.population.outcome import OrgPart, PopulationOutcome
        >>> from clinrag.population.query import CodeCriterion, PopulationQuery
        >>> from clinrag.population.results import Count, OrgAggregate
        >>> query = PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=("I48",), label="AF"),))
        >>> part = OrgPart(org="A", status="ok", aggregate=OrgAggregate(org="A", query=query, total=Count.exact(7)))
        >>> found = Answer(question="q", text="Apixaban lowered stroke. [1]", generator="extractive")
        >>> answer = with_literature([("", PopulationOutcome.of(query, [part]))], found, RouteInfo(route="population",
        ...                          reason="population cue ('How many')"))
        >>> print(answer.text)
        Counted from the records:
        7 patients you may see had diagnosis AF (I48*) [Q1].
        Counted at A.
        [Q1] number of patients with diagnosis AF (I48*)
        <BLANKLINE>
        From the literature:
        Apixaban lowered stroke. [1]
        >>> answer.route.route
        'both'
    """
    population = labelled(population_answer(outcomes, first_evidence=len(literature.sources) + 1))
    label = LABELS[SourceFamily.LITERATURE]
    part = literature.text if literature.text.startswith(label) else f"{label}\n{literature.text}"
    reason = f"{route.reason}; asks the literature too: the libraries answer beside the counts"
    fields = {name: getattr(literature, name) for name in Answer.model_fields}
    fields.update(question=question or literature.question, text=f"{population.text}\n\n{part}", abstention=None)
    return RoutedAnswer(**fields, route=RouteInfo(route="both", reason=reason), population=population)
