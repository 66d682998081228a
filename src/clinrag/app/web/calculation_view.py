"""What the web app shows for a calculator answer: the result and its interpretation, every input with
where it came from (the question, a cited passage of the record, derived, or the calculator's own published rule),
conflicting record values, the steps and the formula's source — and, when inputs are missing, a small form that
asks for exactly those and runs the calculation again.

The form posts to ``/ask`` with the question and one ``fill.NAME`` field per missing input; `filled_question` (in
`generate.calculation`) writes the values into the question so the same reading that found the other inputs finds
them, and the new turn shows the question as it was run.

Example:
    >>> from clinrag.calculators.registry import registry
    >>> from clinrag.generate.calculation import answer_calculation
    >>> _, calc = answer_calculation("What is the BMI of a man weighing 80 kg?", registry()["bmi"])
    >>> view = calculation_view(calc)
    >>> [(field.name, field.kind, field.unit) for field in view.fill]
    [('height', 'number', 'cm')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clinrag.calculators.registry import registry
from clinrag.generate.calculation import Calculation, shown_value

ORIGIN_WORDS = {
    "given": "from the question",
    "stated": "from the record",
    "derived": "derived",
    "defaulted": "the calculator's published default",
}


@dataclass(frozen=True)
class InputRow:
    """One input as the panel lists it; ``citation``: the number of the passage it was read from, if any."""

    label: str
    value: str
    origin: str
    source: str
    citation: int | None


@dataclass(frozen=True)
class FillField:
    """A missing input the form asks for: a number (with its unit and plausible range), yes/no, or a choice."""

    name: str
    label: str
    kind: str
    unit: str
    low: float | None
    high: float | None
    choices: tuple[str, ...]


@dataclass(frozen=True)
class CalculationView:
    """Everything one calculation's panel shows."""

    name: str
    title: str
    result: str
    interpretation: str
    meaning: str
    refused: str
    inputs: tuple[InputRow, ...]
    conflicts: tuple[str, ...]
    steps: tuple[str, ...]
    source: str
    fill: tuple[FillField, ...]


def _fill(calc: Calculation) -> tuple[FillField, ...]:
    calculator = registry().get(calc.calculator)
    if calculator is None:
        return ()
    fields = []
    for name in calc.missing:
        spec = calculator.input(name)
        fields.append(
            FillField(name, spec.label, spec.kind, spec.unit or "", spec.minimum, spec.maximum, tuple(spec.choices))
        )
    return tuple(fields)


def calculation_view(calc: Calculation) -> CalculationView:
    """The panel of ``calc``."""
    result = "" if calc.value is None else f"{calc.value:g} {calc.unit}".strip()
    inputs = tuple(
        InputRow(
            used.label,
            shown_value(used.value, used.unit),
            ORIGIN_WORDS.get(used.origin, used.origin),
            used.source.removeprefix("question: "),  # "from the question — '80 kg'"
            used.citation,
        )
        for used in calc.inputs
    )
    return CalculationView(
        name=calc.calculator,
        title=calc.title,
        result=result,
        interpretation=calc.interpretation or "",
        meaning=calc.meaning,
        refused=calc.refused,
        inputs=inputs,
        conflicts=calc.conflicts,
        steps=calc.steps,
        source=calc.formula_source,
        fill=_fill(calc),
    )


def calculation_views(calculations: Sequence[Calculation]) -> tuple[CalculationView, ...]:
    """The panels of an answer's calculations, in order."""
    return tuple(calculation_view(calc) for calc in calculations)
