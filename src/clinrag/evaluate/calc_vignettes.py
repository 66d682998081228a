"""Calculation vignettes: synthetic notes with known true inputs for every calculator, answered the way
`clinrag ask` answers a calculator question about a patient, and scored.

For each calculator four vignettes are written from true values drawn for a seed (every value inside the input's
plausible range, redrawn until the calculator accepts them together):

- ``complete``: every input the score needs is stated in the note, in the formula's units; absent findings are
  sometimes said ("No diabetes.") and sometimes left out (the calculator's published default is then right);
- ``units``: the same with weights in lb, heights in inches, temperatures in °F and creatinine, glucose, BUN,
  bilirubin and calcium in SI units where the calculator takes conventional ones;
- ``distracting``: a relative's condition that the patient does not have ("Her mother had diabetes."), and an older
  note with a different value of a measured input (the most recent must win; the conflict must be listed);
- ``missing``: one required input without a published default is left out; the answer must name it and compute
  nothing.

The question names the calculator by its title, a synonym or an indication with a calculation cue, in turn, and
never gives a value; the note is the patient's record, found by the same `answer_calculation` a question about a
named patient uses, so reading, provenance and conflicts are exercised as in a real answer.

Figures: calculator selection accuracy, value accuracy (within 1 % or the calculator's shown precision, the way
MedCalc-Bench accepts decimals within bounds and scores exactly), missing inputs detected, input extraction per
input kind (number, integer, boolean, choice, date), latency per calculation.

Caveat, said with every figure: the phrasings are written by the same project as the reader, so these are
in-sample figures for the reading rules, not a test on clinicians' notes.

Example:
    >>> vignettes = build_vignettes(seed=1, names=("bmi",))
    >>> [v.kind for v in vignettes]
    ['complete', 'units', 'distracting', 'missing']
    >>> score(vignettes).value_accuracy
    1.0
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Final, Literal

from clinrag.calculators.registry import registry
from clinrag.calculators.spec import Calculator, CalculatorInputError, Input, checked
from clinrag.calculators.units import UnitError, convert
from clinrag.generate.calc_inputs import plain_label
from clinrag.generate.calculation import Calculation, answer_calculation, find_calculator
from clinrag.types import Chunk, Hit

VignetteKind = Literal["complete", "units", "distracting", "missing"]
KINDS: Final[tuple[VignetteKind, ...]] = ("complete", "units", "distracting", "missing")
NOTE_DATE: Final = datetime(2026, 6, 1, 9, 0)
OLDER_NOTE_DATE: Final = datetime(2024, 2, 1, 9, 0)
ALTERNATIVE_UNITS: Final = {
    "kg": "lb",
    "cm": "in",
    "degC": "degF",
    "mg/dL": "umol/L",
}
"""A unit a note may use instead of the formula's (concentrations need the input's substance to convert)."""
_RELATIVES: Final = ("Her mother", "His father", "A brother", "Her sister")
_TOLERANCE: Final = 0.01
PUBLISHED: Final = {
    "MedCalc-Bench (Khandekar et al., NeurIPS 2024), GPT-4 one-shot chain-of-thought, overall accuracy": 0.509,
    "MedCalc-Bench step-wise re-evaluation (Wang et al., 2025), GPT-4o": 0.436,
}
"""Published accuracies of large language models computing MedCalc-Bench by themselves, for comparison."""


@dataclass(frozen=True)
class Vignette:
    """A note, the question asked about it, the true inputs and value (None: an input is missing on purpose)."""

    vid: str
    calculator: str
    kind: VignetteKind
    question: str
    note: str
    older_note: str
    truth: dict[str, Any]
    stated: dict[str, str]
    """Each stated input's kind (``number``, ``boolean`` …): the inputs whose extraction is scored."""
    value: float | None
    missing: str | None = None


def _draw(spec: Input, rng: random.Random) -> Any:
    if spec.kind == "boolean":
        return rng.random() < 0.45
    if spec.kind == "choice":
        return rng.choice(spec.choices)
    if spec.kind == "date":
        if spec.name == "current_date":
            return NOTE_DATE.date()
        return NOTE_DATE.date() - timedelta(days=rng.randint(30, 260))
    low = spec.minimum if spec.minimum is not None else 0.0
    high = spec.maximum if spec.maximum is not None else low + 100
    if low > 0 and high / low > 10:  # wide ranges (triglycerides 10-10,000): log-uniform up to their middle
        value = math.exp(rng.uniform(math.log(low), math.log(math.sqrt(low * high) * 1.5)))
    else:
        value = low + (high - low) * rng.uniform(0.1, 0.55)
    if spec.kind == "integer" or high - low > 60:
        return round(value)
    return round(value, 1)


def _truth(calc: Calculator, rng: random.Random) -> tuple[dict[str, Any], float] | None:
    for _ in range(400):
        values = {spec.name: _draw(spec, rng) for spec in calc.inputs}
        try:
            result = calc.run(values)
        except CalculatorInputError:
            continue
        if result.value is not None:
            return values, result.value
    return None


def _shown_number(value: float) -> str:
    return f"{value:g}"


def _number_phrase(spec: Input, value: float, rng: random.Random, other_units: bool) -> str:
    words = plain_label(rng.choice([spec.label, *spec.synonyms]) if spec.synonyms else spec.label)
    unit = spec.unit or ""
    if other_units and unit in ALTERNATIVE_UNITS:
        target = ALTERNATIVE_UNITS[unit]
        try:
            value = round(convert(value, unit, target, spec.substance), 2)
            unit = target
        except UnitError:
            pass
    shown_unit = {"degC": "°C", "degF": "°F", "umol/L": "µmol/L", "percent": "%", "year": "years"}.get(unit, unit)
    if spec.name in ("age", "age_years"):
        return f"Age: {_shown_number(value)} years."
    return f"{words[0].upper() + words[1:]}: {_shown_number(value)} {shown_unit}".rstrip() + "."


def _phrase(spec: Input, value: Any, rng: random.Random, other_units: bool) -> str | None:
    if spec.kind == "boolean":
        if value:
            return f"History of {plain_label(spec.label)}."
        if spec.default is not None and rng.random() < 0.5:
            return None  # left out: the published default (absent) is right
        return f"No {plain_label(spec.label)}."
    if spec.kind == "choice":
        if spec.name in ("sex", "gender"):
            return f"The patient is a {'woman' if str(value).lower().startswith('f') else 'man'}."
        label = plain_label(spec.label)
        return f"{label[0].upper() + label[1:]}: {value}."
    if spec.kind == "date":
        return f"{spec.synonyms[0] if spec.synonyms else spec.label}: {value.isoformat()}."
    return _number_phrase(spec, float(value), rng, other_units)


def _phrases(calc: Calculator) -> list[str]:
    return [calc.name, calc.title, *calc.synonyms, *calc.indications]


def _question(calc: Calculator, index: int) -> str:
    """The question, naming the calculator by its title, a synonym or an indication in turn — only by words no
    other calculator also answers to ("corrected QT" names five formulas: such a question is asked by title)."""
    others = {phrase.lower() for other in registry().values() if other.name != calc.name for phrase in _phrases(other)}
    ways = [f"What is the {calc.title} for this patient?"]
    ways += [f"Calculate the {s} for this patient." for s in calc.synonyms[:1] if s.lower() not in others]
    ways += [f"Calculate the {s} for this patient." for s in calc.indications[:1] if s.lower() not in others]
    return ways[index % len(ways)]


def _vignette(calc: Calculator, kind: VignetteKind, seed: int, index: int) -> Vignette | None:
    rng = random.Random(f"{seed}:{calc.name}:{kind}")
    drawn = _truth(calc, rng)
    if drawn is None:
        return None
    values, value = drawn
    omitted: str | None = None
    if kind == "missing":
        needed = [spec for spec in calc.inputs if spec.required and spec.default is None]
        if not needed:
            return None
        omitted = rng.choice(needed).name
    lines: list[str] = []
    stated: dict[str, str] = {}
    for spec in calc.inputs:
        if spec.name == omitted:
            continue
        phrase = _phrase(spec, values[spec.name], rng, other_units=kind == "units")
        if phrase is not None:
            lines.append(phrase)
            stated[spec.name] = spec.kind
    older = ""
    if kind == "distracting":
        absent = [spec for spec in calc.inputs if spec.kind == "boolean" and not values[spec.name]]
        if absent:
            lines.append(f"{rng.choice(_RELATIVES)} had {plain_label(rng.choice(absent).label)}.")
        measured = [spec for spec in calc.inputs if spec.kind == "number" and spec.name not in ("age", "age_years")]
        if measured:
            spec = rng.choice(measured)
            shifted = values[spec.name] * rng.choice((0.8, 1.2))
            try:
                shifted = checked(spec, round(shifted, 1 if abs(shifted) >= 10 else 2))
                if shifted != values[spec.name]:
                    older = _number_phrase(spec, float(shifted), rng, other_units=False)
            except CalculatorInputError:
                older = ""
    rng.shuffle(lines)
    return Vignette(
        vid=f"{calc.name}:{kind}",
        calculator=calc.name,
        kind=kind,
        question=_question(calc, index),
        note=" ".join(lines),
        older_note=older,
        truth=values,
        stated=stated,
        value=None if omitted else value,
        missing=omitted,
    )


def build_vignettes(seed: int = 0, names: Iterable[str] | None = None) -> list[Vignette]:
    """Four vignettes per calculator (fewer where a kind cannot be made: no required input without a default, or
    no value to distract with), deterministic for ``seed``."""
    calculators = registry()
    chosen = list(names) if names is not None else list(calculators)
    found = []
    for index, name in enumerate(chosen):
        for kind in KINDS:
            vignette = _vignette(calculators[name], kind, seed, index + KINDS.index(kind))
            if vignette is not None:
                found.append(vignette)
    return found


def _chunk(vignette: Vignette, text: str, when: datetime, position: int) -> Hit:
    chunk = Chunk(
        chunk_id=f"{vignette.vid}:{position}",
        source_id=f"vignette:{vignette.vid}:{position}",
        source_kind="note",
        text=text,
        org="V",
        dept="vignettes",
        subject_id=1,
        note_id=f"{vignette.vid}:{position}",
        section="Pertinent Results" if position else "History of Present Illness",
        charttime=when,
    )
    return Hit(chunk=chunk, score=1.0, rank=position + 1)


@dataclass(frozen=True)
class Outcome:
    """How one vignette was answered."""

    vignette: Vignette
    selected: str | None
    calculation: Calculation | None
    seconds: float

    @property
    def selected_right(self) -> bool:
        """The question chose the vignette's calculator."""
        return self.selected == self.vignette.calculator

    @property
    def value_right(self) -> bool:
        """The value is the true one (within tolerance), or — an input missing on purpose — nothing was computed and
        the missing input was named."""
        calc = self.calculation
        if calc is None or not self.selected_right:
            return False
        if self.vignette.value is None:
            return calc.value is None and self.vignette.missing in calc.missing
        if calc.value is None:
            return False
        digits = registry()[self.vignette.calculator].digits
        allowed = max(_TOLERANCE * abs(self.vignette.value), 0.5 * 10**-digits)
        return bool(abs(calc.value - self.vignette.value) <= allowed + 1e-9)


def answer_vignette(vignette: Vignette) -> Outcome:
    """The vignette answered: the calculator the question chooses, its inputs from the note (and the older note)."""
    hits = [_chunk(vignette, vignette.note, NOTE_DATE, 0)]
    if vignette.older_note:
        hits.append(_chunk(vignette, vignette.older_note, OLDER_NOTE_DATE, 1))
    started = time.perf_counter()
    match = find_calculator(vignette.question, registry().values())
    calculation = None
    if match is not None:
        _, calculation = answer_calculation(vignette.question, match.calculator, lambda _text: hits)
    seconds = time.perf_counter() - started
    return Outcome(vignette, match.calculator.name if match else None, calculation, seconds)


def _same(spec: Input, used: Any, truth: Any) -> bool:
    if spec.kind in ("number", "integer"):
        return abs(float(used) - float(truth)) <= max(_TOLERANCE * abs(float(truth)), 0.051)
    if spec.kind == "date":
        return str(used) == (truth.isoformat() if isinstance(truth, date) else str(truth))
    return bool(used == truth)


@dataclass
class Scores:
    """The vignette figures (see the module docstring)."""

    vignettes: int
    calculators: int
    selection_accuracy: float
    value_accuracy: float
    by_kind: dict[str, float]
    missing_detected: float
    extraction: dict[str, dict[str, float]]
    conflicts_listed: float
    latency_ms: dict[str, float]
    failures: list[dict[str, Any]] = field(default_factory=list)


def score(vignettes: Sequence[Vignette]) -> Scores:
    """Answer every vignette and score them."""
    outcomes = [answer_vignette(vignette) for vignette in vignettes]
    by_kind: dict[str, list[bool]] = defaultdict(list)
    extraction: dict[str, list[bool]] = defaultdict(list)
    conflicts: list[bool] = []
    for outcome in outcomes:
        by_kind[outcome.vignette.kind].append(outcome.value_right)
        calc = outcome.calculation
        if calc is None or not outcome.selected_right:
            continue
        spec_of = registry()[outcome.vignette.calculator]
        used = {item.name: item.value for item in calc.inputs}
        for name, kind in outcome.vignette.stated.items():
            extraction[kind].append(
                name in used and _same(spec_of.input(name), used[name], outcome.vignette.truth[name])
            )
        if outcome.vignette.older_note:
            conflicts.append(bool(calc.conflicts))
    seconds = sorted(outcome.seconds for outcome in outcomes)
    return Scores(
        vignettes=len(outcomes),
        calculators=len({o.vignette.calculator for o in outcomes}),
        selection_accuracy=_share(o.selected_right for o in outcomes),
        value_accuracy=_share(o.value_right for o in outcomes),
        by_kind={kind: _share(found) for kind, found in sorted(by_kind.items())},
        missing_detected=_share(o.value_right for o in outcomes if o.vignette.kind == "missing"),
        extraction={
            kind: {"accuracy": _share(found), "inputs": len(found)} for kind, found in sorted(extraction.items())
        },
        conflicts_listed=_share(conflicts),
        latency_ms={
            "p50": round(1000 * statistics.median(seconds), 2) if seconds else 0.0,
            "p95": round(1000 * seconds[int(0.95 * (len(seconds) - 1))], 2) if seconds else 0.0,
        },
        failures=[_failure(o) for o in outcomes if not o.value_right],
    )


def _share(values: Iterable[bool]) -> float:
    found = list(values)
    return round(sum(found) / len(found), 4) if found else 0.0


def _failure(outcome: Outcome) -> dict[str, Any]:
    calc = outcome.calculation
    return {
        "vignette": outcome.vignette.vid,
        "selected": outcome.selected,
        "expected": outcome.vignette.value,
        "got": None if calc is None else calc.value,
        "missing": [] if calc is None else list(calc.missing),
        "refused": "" if calc is None else calc.refused,
    }


def question_only_accuracy(vignettes: Sequence[Vignette]) -> float:
    """The baseline: share of vignettes a calculator reading only the question gets right (no record searched, so
    it must name the missing inputs): the value within 1 % (or 0.05), or — an input missing on purpose — nothing
    computed and that input named.

    Example:
        >>> question_only_accuracy(build_vignettes(seed=1, names=("bmi",)))
        0.25
    """
    right = 0
    for vignette in vignettes:
        match = find_calculator(vignette.question, registry().values())
        if match is None or match.calculator.name != vignette.calculator:
            continue
        _, calc = answer_calculation(vignette.question, match.calculator)
        if vignette.value is None:
            right += calc.value is None and vignette.missing in calc.missing
        elif calc.value is not None:
            right += abs(calc.value - vignette.value) <= max(0.01 * abs(vignette.value), 0.05)
    return round(right / len(vignettes), 4) if vignettes else 0.0
