"""Calculators inside answers: which calculator a question asks for, its inputs from the question and —
for a patient the question names — from the records the asker may retrieve, computed by code, every input cited.

- **Finding the calculator** (`find_calculator`): its name, title or a synonym written in the question ("CHA2DS2-VASc",
  "Cockcroft-Gault", "BMI"), or one of its indications with a calculation cue ("stroke risk in AF", "what is her
  kidney function"); abbreviations are expanded first. Below the threshold nothing is forced.
- **Inputs** are read from the question first (`calc_inputs`), then, for a named patient, from the passages a search
  of their records returns — through the same searcher as any question, so only what the asker may retrieve is read
  — most recent first; each record value cites its passage (``[n]``), and other values the record gives for the same
  input are listed as conflicts, never silently dropped.
- **Computing**: `Calculator.run` converts units, refuses implausible values, fills only the calculator's own
  published defaults, and reports what is missing — the answer then names it and asks for it.

Example:
    >>> from clinrag.calculators.registry import registry
    >>> found = find_calculator("What is the BMI of a man weighing 80 kg, 180 cm tall?", registry().values())
    >>> found.calculator.name, found.how
    ('bmi', 'synonym')
    >>> answer, calculation = answer_calculation("BMI for 80 kg and 180 cm?", found.calculator)
    >>> calculation.value, calculation.interpretation
    (24.7, 'normal weight')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from clinrag.calculators.spec import Calculator, CalculatorInputError, Origin, Result
from clinrag.generate.calc_inputs import Reading, distinct_values, read_inputs
from clinrag.generate.prompts import provenance
from clinrag.index.abbreviations import expand_abbreviations
from clinrag.retrieve.vocabulary import zipf
from clinrag.types import Answer, Hit, Source, chunk_date

INDICATION_COVERAGE: Final = 0.75
"""Share of an indication's words a question must hold (with a calculation cue) to choose its calculator."""
RECORD_PASSAGES: Final = 12
"""Passages of the patient's records searched for inputs."""
_CUE = re.compile(
    r"\b(?:calculate|calculated|compute|estimate|estimated|score|scores|risk|index|what\s+is|what's|how\s+(?:high|"
    r"severe|much)|grade|stage|class)\b",
    re.IGNORECASE,
)
_STOP: Final = frozenset(
    re.findall(r"\w+", "a an the of in for with and or to on at by is are was what which how her his their")
)
_EPOCH: Final = datetime(1900, 1, 1)
OTHER_PEOPLE_SECTIONS: Final = frozenset({"family history"})
"""Sections about other people than the patient: never read for a calculator's inputs."""
Records = Callable[[str], Sequence[Hit]]
"""Searches the named patient's records the asker may retrieve (the question with the inputs' words)."""


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in _STOP}


@dataclass(frozen=True)
class CalculatorMatch:
    """A calculator a question asks for: how it was recognised (``name``, ``synonym`` or ``indication``), the
    words that matched, and a score (1 + the phrase's length / 100 for a name or synonym; for an indication the share
    of its words present + its length / 100 − 0.25, so a whole indication beats a short synonym)."""

    calculator: Calculator
    how: Literal["name", "synonym", "indication"]
    matched: str
    score: float


@cache
def _pattern(phrase: str) -> re.Pattern[str]:
    """A calculator's phrase in text: spaces, ``_`` and ``-`` alike, any case — except a short name that is also a
    common English word ("HEART", "MAP", "MED", "SOFA"), which counts only in capitals, so "coronary heart disease"
    does not name the HEART score nor "Ann Intern Med" the morphine equivalent dose."""
    if _WORDLIKE.fullmatch(phrase) and zipf(phrase.lower()) >= COMMON_WORD_ZIPF:
        return re.compile(r"(?<![\w])" + re.escape(phrase.upper()) + r"(?![\w])")
    body = re.escape(phrase.lower()).replace(r"\ ", r"[\s_-]*")
    return re.compile(r"(?<![\w])" + body + r"(?![\w])", re.IGNORECASE)


_WORDLIKE = re.compile(r"[A-Za-z]{2,6}")
COMMON_WORD_ZIPF: Final = 3.5
"""A short calculator name at least this common in English (wordfreq's Zipf scale) is a word unless in capitals."""


def _phrase(phrase: str, text: str) -> bool:
    return _pattern(phrase).search(text) is not None


def _without_calculator(question: str, calc: Calculator) -> str:
    """``question`` with the calculator's own words blanked (same length), so a number or a finding in its name
    ("MDRD (175 × …)", "TIMI for unstable angina", "bleeding risk") is not read as an input."""
    for phrase in sorted((calc.name, calc.title, *calc.synonyms, *calc.indications), key=len, reverse=True):
        if len(phrase) >= 2:
            question = _pattern(phrase).sub(lambda m: " " * len(m.group(0)), question)
    return question


def find_calculator(question: str, calculators: Iterable[Calculator]) -> CalculatorMatch | None:
    """The calculator ``question`` asks for, or None below the threshold (see the module docstring).

    Example:
        >>> from clinrag.calculators.registry import registry
        >>> find_calculator("What did she eat?", registry().values()) is None
        True
    """
    expanded = expand_abbreviations(question)[0]
    words = _words(expanded.lower())
    best: CalculatorMatch | None = None
    for calc in calculators:
        for how, weight, phrases in (("name", 0.005, (calc.name, calc.title)), ("synonym", 0.0, calc.synonyms)):
            for phrase in phrases:
                if len(phrase) >= 2 and _phrase(phrase, expanded):
                    # the longest phrase wins ("albumin-corrected anion gap" over "anion gap", "QTc Fridericia"
                    # over "QTc"); a name wins over a synonym of the same length
                    score = 1 + len(phrase) / 100 + weight
                    candidate = CalculatorMatch(calc, how, phrase, score)  # type: ignore[arg-type]
                    best = candidate if best is None or candidate.score > best.score else best
        if _CUE.search(question) is None:
            continue
        for indication in calc.indications:
            needed = _words(indication)
            if needed and (coverage := len(needed & words) / len(needed)) >= INDICATION_COVERAGE:
                # a whole indication written out ("10-year coronary heart disease risk") outweighs a short synonym
                score = coverage + len(indication) / 100 - 0.25
                candidate = CalculatorMatch(calc, "indication", indication, score)
                best = candidate if best is None or candidate.score > best.score else best
    return best


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CalcInput(_Model):
    """An input as the answer shows it: value and unit, where it came from (``given`` in the question, ``stated``
    in the record, ``derived``, ``defaulted`` by the calculator's rule) and its source in words (``question``, a
    cited passage ``[n]``, or the published rule)."""

    name: str
    label: str
    value: float | bool | str
    unit: str | None = None
    origin: Origin
    source: str
    citation: int | None = None


class Calculation(_Model):
    """A calculation in an answer — the issue's JSON record: calculator, value, unit, interpretation, inputs and
    missing; with the title, the band's meaning, the steps, conflicting record values and the formula's source."""

    calculator: str
    title: str
    value: float | None
    unit: str
    interpretation: str | None = None
    meaning: str = ""
    inputs: tuple[CalcInput, ...] = ()
    missing: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    formula_source: str
    refused: str = ""
    """Why an input was refused (out of range, contradictory), when it was."""


def _record_readings(calc: Calculator, hits: Sequence[Hit], wanted: set[str]) -> dict[str, list[tuple[Reading, Hit]]]:
    ordered = sorted(hits, key=lambda h: (chunk_date(h.chunk) is None, -(chunk_date(h.chunk) or _EPOCH).timestamp()))
    found: dict[str, list[tuple[Reading, Hit]]] = {}
    specs = [spec for spec in calc.inputs if spec.name in wanted]
    for hit in ordered:
        if (hit.chunk.section or "").lower() in OTHER_PEOPLE_SECTIONS:
            continue
        for name, reading in read_inputs(specs, hit.chunk.text).items():
            found.setdefault(name, []).append((reading, hit))
    return found


def question_inputs(question: str, calculator: Calculator) -> dict[str, Reading]:
    """The values ``question`` itself gives for ``calculator``'s inputs (its name, synonyms and indications blanked
    first, so "bleeding risk" or "stroke risk" is no finding).

    Example:
        >>> from clinrag.calculators.registry import registry
        >>> sorted(question_inputs("HAS-BLED of a 70-year-old with labile INR?", registry()["has_bled"]))
        ['age', 'labile_inr']
        >>> question_inputs("Which score assesses bleeding risk in atrial fibrillation?", registry()["has_bled"])
        {}
    """
    return read_inputs(calculator.inputs, _without_calculator(question, calculator))


def answer_calculation(
    question: str, calculator: Calculator, records: Records | None = None
) -> tuple[Answer, Calculation]:
    """``question`` answered by ``calculator``: inputs from the question, then (``records`` given: a patient is
    named) from their records; the answer in words with every record input cited, and the calculation record."""
    given: dict[str, object] = {}
    origins: dict[str, tuple[Origin, str]] = {}
    for name, reading in question_inputs(question, calculator).items():
        given[name] = reading.value
        origins[name] = ("given", f"question: '{reading.span.strip()}'")
    sources: list[Source] = []
    citations: dict[str, int] = {}
    conflicts: list[str] = []
    wanted = {spec.name for spec in calculator.inputs} - set(given)
    if records is not None and wanted:
        labels = " ".join(spec.label for spec in calculator.inputs if spec.name in wanted)
        hits = records(f"{question} {labels}"[:4000])
        for name, readings in _record_readings(calculator, hits, wanted).items():
            reading, hit = readings[0]
            number = _cite(hit, sources)
            given[name] = reading.value
            citations[name] = number
            origins[name] = ("stated", f"[{number}] {provenance(hit.chunk)}")
            values = distinct_values(r for r, _ in readings)
            if len(values) > 1:
                listed = ", ".join(f"{value} [{_cite(h, sources)}]" for value, h in _first_of(readings, values))
                conflicts.append(f"{calculator.input(name).label}: {listed} — the most recent is used")
    try:
        result = calculator.run(given, origins)
    except CalculatorInputError as exc:
        calc = Calculation(
            calculator=calculator.name,
            title=calculator.title,
            value=None,
            unit=calculator.unit,
            formula_source=calculator.source.citation,
            conflicts=tuple(conflicts),
            refused=str(exc),
        )
        text = f"{calculator.title} cannot be computed: {exc}. Correct it and ask again."
        return Answer(question=question, text=text, generator="calculator", sources=tuple(sources)), calc
    calculation = _calculation(calculator, result, citations, conflicts)
    text = _text(calculator, calculation)
    cited = tuple(sorted(set(citations.values())))
    answer = Answer(
        question=question,
        text=text,
        generator="calculator",
        sources=tuple(sources),
        cited=cited,
        support=1.0 if calculation.value is not None else 0.0,
    )
    return answer, calculation


def _first_of(readings: Sequence[tuple[Reading, Hit]], values: Sequence[object]) -> list[tuple[object, Hit]]:
    return [(value, next(hit for reading, hit in readings if reading.value == value)) for value in values]


def _cite(hit: Hit, sources: list[Source]) -> int:
    for source in sources:
        if source.chunk.chunk_id == hit.chunk.chunk_id:
            return source.number
    sources.append(Source(number=len(sources) + 1, chunk=hit.chunk, score=hit.score))
    return len(sources)


def _calculation(calc: Calculator, result: Result, citations: dict[str, int], conflicts: list[str]) -> Calculation:
    inputs = tuple(
        CalcInput(
            name=used.name,
            label=used.label,
            value=used.value,
            unit=used.unit,
            origin=used.origin,
            source=used.source or ("question" if used.origin == "given" else used.origin),
            citation=citations.get(used.name),
        )
        for used in result.inputs
    )
    return Calculation(
        calculator=calc.name,
        title=calc.title,
        value=round(result.value, calc.digits) if result.value is not None else None,
        unit=calc.unit,
        interpretation=result.interpretation.label if result.interpretation else None,
        meaning=result.interpretation.meaning if result.interpretation else "",
        inputs=inputs,
        missing=result.missing,
        conflicts=tuple(conflicts),
        steps=result.steps,
        formula_source=calc.source.citation,
    )


def shown_value(value: float | bool | str, unit: str | None) -> str:
    """An input's value as an answer shows it.

    Example:
        >>> shown_value(True, None), shown_value(72.0, "year"), shown_value(1.5, None)
        ('yes', '72 year', '1.5')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{text} {unit or ''}".strip()


def _text(calc: Calculator, calculation: Calculation) -> str:
    if calculation.value is None:
        specs = [calc.input(name) for name in calculation.missing]
        labels = [spec.label + (f" ({spec.unit})" if spec.unit else "") for spec in specs]
        return (
            f"{calc.title} needs {', '.join(labels)}, which neither the question nor the records you may see give. "
            "Give them and ask again; nothing was guessed."
        )
    band = f" — {calculation.interpretation}" if calculation.interpretation else ""
    meaning = f" ({calculation.meaning})" if calculation.meaning else ""
    dates = [step for step in calculation.steps if re.search(r"\d{4}-\d{2}-\d{2}$", step)]
    when = f" — {dates[-1]}" if dates else ""  # a date's calculator says the calendar date in its last dated step
    lines = [f"{calc.title}: {calculation.value:.{calc.digits}f} {calc.unit}{band}{meaning}{when}."]
    for used in calculation.inputs:
        rule = " (the calculator's rule)" if used.origin == "defaulted" else ""
        where = f" [{used.citation}]" if used.citation else rule
        lines.append(f"- {used.label}: {shown_value(used.value, used.unit)}{where}")
    lines += [f"- conflicting record values: {conflict}" for conflict in calculation.conflicts]
    lines.append(f"Formula: {calc.source.citation}")
    return "\n".join(lines)


def filled_question(question: str, calculator: Calculator, values: dict[str, str]) -> str:
    """``question`` with the values a person gave for missing inputs written in, so the same reading finds them:
    numbers as "NAME VALUE UNIT", yes/no as "with NAME" / "no NAME", choices as "NAME: CHOICE". Names the calculator
    does not have, blanks, non-numbers for numbers and unknown choices are left out.

    Example:
        >>> from clinrag.calculators.registry import registry
        >>> filled_question("BMI of a man weighing 80 kg?", registry()["bmi"], {"height": "180", "shoe": "9"})
        'BMI of a man weighing 80 kg?; height 180 cm'
    """
    parts = []
    for spec in calculator.inputs:
        raw = values.get(spec.name, "").strip()
        if not raw:
            continue
        words = spec.name.replace("_", " ")
        if spec.kind in ("number", "integer"):
            try:
                number = float(raw)
            except ValueError:
                continue
            parts.append(f"{words} {number:g} {spec.unit or ''}".strip())
        elif spec.kind == "boolean" and raw.lower() in ("yes", "no"):
            parts.append(f"with {words}" if raw.lower() == "yes" else f"no {words}")
        elif spec.kind == "choice" and raw in spec.choices:
            parts.append(f"{words}: {raw}")
    return "; ".join([question.rstrip(), *parts]) if parts else question
