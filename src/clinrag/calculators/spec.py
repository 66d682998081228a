"""What a calculator is: a declarative spec — inputs with units, kinds and plausible ranges, the primary
source, interpretation bands — and a pure function computing from checked inputs, writing its steps as it goes.

A calculator never guesses: `Calculator.run` converts each given value to the unit the formula takes (`units`),
refuses one outside its plausible range or not among its choices (`CalculatorInputError`, naming the input and the
range), fills an input the caller left out only from the calculator's own published default (``default`` with its
``default_rule``, e.g. "a criterion not documented counts as absent" where the score's source says so), and
otherwise returns no value but the list of what is missing.

Example:
    >>> def bmi(v: Values, steps: Steps) -> float:
    ...     value = v["weight"] / (v["height"] / 100) ** 2
    ...     steps.add(f"BMI = {v['weight']:g} kg / ({v['height'] / 100:g} m)² = {value:.1f} kg/m²")
    ...     return value
    >>> calc = Calculator(
    ...     name="bmi", title="Body mass index", unit="kg/m²", compute=bmi,
    ...     inputs=(Input(name="weight", label="weight", unit="kg", minimum=0.5, maximum=400),
    ...             Input(name="height", label="height", unit="cm", minimum=30, maximum=250)),
    ...     source=Source(citation="WHO. Obesity: preventing and managing the global epidemic. 2000."),
    ...     bands=(Band(high=18.5, label="underweight"), Band(low=18.5, high=25, label="normal"),
    ...            Band(low=25, label="overweight or obese")))
    >>> result = calc.run({"weight": "154 lb", "height": "70 in"})
    >>> round(result.value, 1), result.interpretation.label, result.inputs[0].value
    (22.1, 'normal', 69.853)
    >>> calc.run({"weight": 70}).missing
    ('height',)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clinrag.calculators.units import UnitError, convert
from clinrag.errors import ClinragError

Kind = Literal["number", "integer", "boolean", "choice", "date"]
Origin = Literal["given", "stated", "derived", "defaulted"]
"""Where an input's value came from: given by the caller, stated in the record (cited), derived (age from dates),
or defaulted by the calculator's own published rule."""
Values = Mapping[str, Any]


class CalculatorInputError(ClinragError):
    """An input out of its plausible range, not among its choices, of the wrong kind or contradicting another:
    a usage error (exit status 2) whose message names the input and what it accepts."""

    exit_code = 2


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Input(_Model):
    """One input: its key and words, kind, the unit the formula takes (values in other units are converted), the
    plausible range in that unit, the choices of a ``choice``, whether it is required, and a published default."""

    name: str
    label: str
    kind: Kind = "number"
    unit: str | None = None
    substance: str | None = None
    """For concentrations given in other units: the substance whose molar mass converts them (`units.MOLAR_MASS`)."""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    required: bool = True
    default: float | bool | str | None = None
    default_rule: str = ""
    """Why the default is the calculator's own (its source's wording), shown with the result."""
    synonyms: tuple[str, ...] = ()
    """Words questions and notes use for it ("Cr", "serum creatinine")."""


class Band(_Model):
    """An interpretation band: ``low`` ≤ value < ``high`` (open where None), its label and meaning."""

    low: float | None = None
    high: float | None = None
    label: str
    meaning: str = ""

    @property
    def span(self) -> str:
        """The band's values in words.

        Example:
            >>> Band(high=18.5, label="x").span, Band(low=2, high=4, label="y").span, Band(low=30, label="z").span
            ('< 18.5', '2 to < 4', '≥ 30')
        """
        if self.low is None:
            return f"< {self.high:g}" if self.high is not None else "any"
        return f"≥ {self.low:g}" if self.high is None else f"{self.low:g} to < {self.high:g}"

    def holds(self, value: float) -> bool:
        """True when ``value`` falls in the band.

        Example:
            >>> Band(low=2, high=4, label="moderate").holds(2), Band(low=2, high=4, label="moderate").holds(4)
            (True, False)
        """
        return (self.low is None or value >= self.low) and (self.high is None or value < self.high)


class Source(_Model):
    """The formula's primary source (and where its bands come from, when another)."""

    citation: str
    url: str = ""
    bands_citation: str = ""


class UsedInput(_Model):
    """An input as the calculation used it: value in the formula's unit, where it came from, and a reference (a
    chunk id or table row for record inputs; the published rule for defaults)."""

    name: str
    label: str
    value: float | bool | str
    unit: str | None = None
    origin: Origin = "given"
    source: str = ""


class Result(_Model):
    """A calculation: the value (None when inputs are missing), its unit and interpretation, the steps, the inputs
    used, what is missing, and the formula's source."""

    calculator: str
    title: str
    value: float | None
    unit: str
    interpretation: Band | None = None
    steps: tuple[str, ...] = ()
    inputs: tuple[UsedInput, ...] = ()
    missing: tuple[str, ...] = ()
    source: Source


@dataclass
class Steps:
    """The step-by-step explanation a compute function writes."""

    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        """One step, in words and numbers."""
        self.lines.append(line)

    def points(self, label: str, points: float, total: float) -> float:
        """A scoring step: ``label`` gives ``points``, the running total becomes ``total + points``; returns it.

        Example:
            >>> steps = Steps(); steps.points("age 65-74", 1, 2)
            3
            >>> steps.lines
            ['age 65-74: +1 → 3']
        """
        new = total + points
        self.lines.append(f"{label}: {'+' if points >= 0 else ''}{points:g} → {new:g}")
        return new


Compute = Callable[[Values, Steps], float]


_NUMBER_WITH_UNIT = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(.*?)\s*$")
_TRUE = frozenset({"true", "yes", "y", "1", "present", "positive"})
_FALSE = frozenset({"false", "no", "n", "0", "absent", "negative", "none"})


@dataclass(frozen=True)
class Calculator:
    """A calculator: its spec and its pure compute function (see the module docstring)."""

    name: str
    title: str
    inputs: tuple[Input, ...]
    unit: str
    source: Source
    compute: Compute
    bands: tuple[Band, ...] = ()
    synonyms: tuple[str, ...] = ()
    indications: tuple[str, ...] = ()
    digits: int = 1
    """Decimals the result is shown with."""

    def input(self, name: str) -> Input:
        """The input called ``name``."""
        return next(spec for spec in self.inputs if spec.name == name)

    def interpret(self, value: float) -> Band | None:
        """The band ``value`` falls in."""
        return next((band for band in self.bands if band.holds(value)), None)

    def run(self, given: Mapping[str, object], origins: Mapping[str, tuple[Origin, str]] | None = None) -> Result:
        """Check and convert ``given`` (values, or strings with units: ``"1.2 mg/dL"``), fill published defaults,
        compute, interpret. ``origins`` tells where record values came from (origin and reference).

        Raises:
            CalculatorInputError: an unknown input, a value out of range, of the wrong kind or not a choice.
        """
        unknown = sorted(set(given) - {spec.name for spec in self.inputs})
        if unknown:
            raise CalculatorInputError(f"{self.name} has no input {unknown[0]!r}; it takes {self.input_names()}")
        values: dict[str, Any] = {}
        used: list[UsedInput] = []
        missing: list[str] = []
        for spec in self.inputs:
            origin, reference = (origins or {}).get(spec.name, ("given", ""))
            if spec.name in given and given[spec.name] is not None:
                values[spec.name] = checked(spec, given[spec.name])
            elif spec.default is not None:
                values[spec.name] = spec.default
                origin, reference = "defaulted", spec.default_rule
            elif spec.required:
                missing.append(spec.name)
                continue
            else:
                continue
            used.append(
                UsedInput(
                    name=spec.name,
                    label=spec.label,
                    value=values[spec.name].isoformat() if isinstance(values[spec.name], date) else values[spec.name],
                    unit=spec.unit,
                    origin=origin,
                    source=reference,
                )
            )
        if missing:
            return Result(
                calculator=self.name,
                title=self.title,
                value=None,
                unit=self.unit,
                inputs=tuple(used),
                missing=tuple(missing),
                source=self.source,
            )
        steps = Steps()
        value = float(self.compute(values, steps))
        if not math.isfinite(value):
            raise CalculatorInputError(f"{self.name}: the inputs give no finite result ({value})")
        band = self.interpret(value)
        if band is not None:
            steps.add(
                f"{value:.{self.digits}f} {self.unit}: {band.label}" + (f" — {band.meaning}" if band.meaning else "")
            )
        return Result(
            calculator=self.name,
            title=self.title,
            value=value,
            unit=self.unit,
            interpretation=band,
            steps=tuple(steps.lines),
            inputs=tuple(used),
            source=self.source,
        )

    def input_names(self) -> str:
        """The inputs' names, comma-separated."""
        return ", ".join(spec.name for spec in self.inputs)


def _range(spec: Input) -> str:
    unit = f" {spec.unit}" if spec.unit else ""
    low = f"{spec.minimum:g}" if spec.minimum is not None else "-∞"
    high = f"{spec.maximum:g}" if spec.maximum is not None else "∞"
    return f"{low} to {high}{unit}"


def checked(spec: Input, raw: object) -> Any:
    """``raw`` as the kind and unit ``spec`` takes, within its range.

    Example:
        >>> checked(Input(name="cr", label="creatinine", unit="mg/dL", substance="creatinine"), "88.4 umol/L")
        1.0
        >>> checked(Input(name="chf", label="heart failure", kind="boolean"), "yes")
        True
    """
    if spec.kind == "boolean":
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in _TRUE | _FALSE:
            return word in _TRUE
        raise CalculatorInputError(f"{spec.name} ({spec.label}) is yes or no, not {raw!r}")
    if spec.kind == "choice":
        word = str(raw).strip().lower()
        for choice in spec.choices:
            if word == choice.lower():
                return choice
        raise CalculatorInputError(f"{spec.name} ({spec.label}) is one of {', '.join(spec.choices)}, not {raw!r}")
    if spec.kind == "date":
        try:
            return raw if isinstance(raw, date) else date.fromisoformat(str(raw).strip())
        except ValueError:
            raise CalculatorInputError(f"{spec.name} ({spec.label}) is a date (YYYY-MM-DD), not {raw!r}") from None
    value = _number(spec, raw)
    if spec.kind == "integer":
        if value != int(value):
            raise CalculatorInputError(f"{spec.name} ({spec.label}) is a whole number, not {value:g}")
        value = int(value)
    if (spec.minimum is not None and value < spec.minimum) or (spec.maximum is not None and value > spec.maximum):
        raise CalculatorInputError(f"{spec.name} ({spec.label}) = {value:g} is outside {_range(spec)}")
    return value


def _number(spec: Input, raw: object) -> float:
    if isinstance(raw, bool):
        raise CalculatorInputError(f"{spec.name} ({spec.label}) is a number, not {raw!r}")
    if isinstance(raw, int | float):
        return float(raw)
    match = _NUMBER_WITH_UNIT.match(str(raw))
    if match is None:
        raise CalculatorInputError(f"{spec.name} ({spec.label}) is a number{_in(spec)}, not {raw!r}")
    number, unit = float(match.group(1)), match.group(2)
    if not unit or spec.unit is None:
        return number
    try:
        return round(convert(number, unit, spec.unit, spec.substance), 3)
    except UnitError as exc:
        raise CalculatorInputError(f"{spec.name} ({spec.label}): {exc}") from None


def _in(spec: Input) -> str:
    return f" in {spec.unit}" if spec.unit else ""
