"""Units for calculator inputs: one pint registry, and the molar masses and valences that turn a mass
concentration into a molar one (creatinine mg/dL ↔ µmol/L, glucose mg/dL ↔ mmol/L, calcium mg/dL ↔ mmol/L ↔ mEq/L).

Every conversion in the calculators goes through `convert`; no factor is written anywhere else.

Example:
    >>> round(convert(1.2, "mg/dL", "umol/L", "creatinine"), 1)
    106.1
    >>> round(convert(98.6, "degF", "degC"), 1), round(convert(154, "lb", "kg"), 2)
    (37.0, 69.85)
    >>> round(convert(10, "mg/dL", "mEq/L", "calcium"), 2)
    4.99
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

import pint

from clinrag.errors import ClinragError

MOLAR_MASS: Final = {
    "creatinine": 113.12,
    "glucose": 180.16,
    "urea_nitrogen": 28.02,  # BUN is reported as the nitrogen of urea: 2 × 14.007 g/mol
    "urea": 60.06,
    "calcium": 40.08,
    "magnesium": 24.305,
    "phosphate": 30.97,  # reported as phosphorus
    "sodium": 22.99,
    "potassium": 39.10,
    "chloride": 35.45,
    "bicarbonate": 61.02,
    "cholesterol": 386.65,
    "triglycerides": 885.7,  # as triolein, the convention of mmol/L ↔ mg/dL for triglycerides
    "bilirubin": 584.66,
    "albumin": 66_500.0,
    "lactate": 90.08,
    "ethanol": 46.07,
}
"""Grams per mole of the substances calculators take as concentrations."""
VALENCE: Final = {"calcium": 2, "magnesium": 2, "sodium": 1, "potassium": 1, "chloride": 1, "bicarbonate": 1}
"""Charges, for milliequivalents."""


class UnitError(ClinragError):
    """A value in a unit that cannot be turned into the one a calculator takes: a usage error (exit status 2)."""

    exit_code = 2


@cache
def registry() -> pint.UnitRegistry[float]:
    """The one unit registry (with ``beats_per_minute``, ``breaths_per_minute`` and ``points``; equivalents are
    read as moles times the substance's valence by `convert`).

    Example:
        >>> registry().Quantity(80, "bpm").to("1/min").magnitude
        80.0
    """
    units: pint.UnitRegistry[float] = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    units.define("beats_per_minute = 1 / minute = bpm")
    units.define("breaths_per_minute = 1 / minute = brpm")
    units.define("points = [] = point")
    return units


def _is_mass_per_volume(quantity: pint.Quantity[float]) -> bool:
    return bool(quantity.dimensionality == registry().Quantity(1, "g/L").dimensionality)


def _as_moles(unit: str) -> tuple[str, bool]:
    """The unit with equivalents written as moles (``mEq/L`` → ``mmol/L``), and whether it had equivalents."""
    replaced = re.sub(r"(?<![A-Za-z])(m|µ|u)?Eq(?![A-Za-z])", lambda m: f"{m.group(1) or ''}mol", unit)
    return replaced, replaced != unit


def convert(value: float, unit: str, to: str, substance: str | None = None) -> float:
    """``value`` in ``unit`` expressed in ``to``; ``substance`` (a key of `MOLAR_MASS`) for mass ↔ molar
    concentrations, its `VALENCE` for equivalents.

    Raises:
        UnitError: an unknown unit, or units that measure different things.
    """
    units = registry()
    source, from_eq = _as_moles(unit)
    target_unit, to_eq = _as_moles(to)
    valence = VALENCE.get(substance or "", 1)
    if from_eq:
        value = value / valence
    try:
        quantity = units.Quantity(value, source)
        target = units.Quantity(1, target_unit)
    except (pint.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, ValueError) as exc:
        raise UnitError(f"unknown unit in {unit!r} or {to!r} ({exc})") from None
    scale = valence if to_eq else 1
    if quantity.dimensionality == target.dimensionality:
        return float(quantity.to(target_unit).magnitude) * scale
    if substance is None or substance not in MOLAR_MASS:
        raise UnitError(f"cannot express {unit} as {to}" + (f" for {substance}" if substance else ""))
    molar_mass = units.Quantity(MOLAR_MASS[substance], "g/mol")
    try:
        converted = quantity / molar_mass if _is_mass_per_volume(quantity) else quantity * molar_mass
        return float(converted.to(target_unit).magnitude) * scale
    except pint.DimensionalityError:
        raise UnitError(f"cannot express {unit} as {to} for {substance}") from None
