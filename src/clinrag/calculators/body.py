"""Dosing weights: ideal body weight (Devine), adjusted body weight, and the weight at a target BMI.

Height is taken in centimetres like BMI and BSA (one extracted height serves every body calculator); Devine's
formula counts inches over five feet, so the height is expressed in inches through `units.convert`, never a
hand-written factor.

Example:
    >>> round(IBW.run({"sex": "male", "height": "72 in"}).value, 1)
    77.6
    >>> round(ADJUSTED_BODY_WEIGHT.run({"sex": "male", "height": "70 in", "weight": 190}).value, 1)
    119.8
"""

from __future__ import annotations

from typing import Final

from clinrag.calculators.anthropometry import HEIGHT, WEIGHT
from clinrag.calculators.content import content
from clinrag.calculators.spec import Steps, Values
from clinrag.calculators.units import convert

_DATA = content(__name__)

SEX = _DATA.input("sex")
ADULT_HEIGHT = HEIGHT.model_copy(update={"minimum": 120.0})
"""Devine's formula is for adults: below 120 cm it extrapolates towards zero and negative weights."""
TARGET_BMI = _DATA.input("target_bmi")

DEVINE_BASE: Final = {"male": 50.0, "female": 45.5}
"""Devine (1974): kg at five feet."""
DEVINE_KG_PER_INCH: Final = 2.3
"""Devine (1974): kg for each inch over five feet."""
FIVE_FEET_IN: Final = 60.0
ADJUSTMENT_FACTOR: Final = 0.4
"""Bauer et al. (1983): the fraction of the weight above ideal that counts for an aminoglycoside's volume."""


def ideal_body_weight(sex: str, height_cm: float) -> float:
    """Devine's ideal body weight (kg): 50 (men) or 45.5 (women) + 2.3 kg per inch over five feet.

    Example:
        >>> round(ideal_body_weight("female", 165.1), 1)
        57.0
    """
    return DEVINE_BASE[sex] + DEVINE_KG_PER_INCH * (convert(height_cm, "cm", "in") - FIVE_FEET_IN)


def adjusted_body_weight(ideal: float, weight: float) -> float:
    """The adjusted body weight (kg): ideal + 0.4 × (actual − ideal)."""
    return ideal + ADJUSTMENT_FACTOR * (weight - ideal)


def _devine(sex: str, height_cm: float, steps: Steps) -> float:
    inches = convert(height_cm, "cm", "in")
    base = DEVINE_BASE[sex]
    value = ideal_body_weight(sex, height_cm)
    steps.add(f"height {height_cm:g} cm = {inches:.2f} in")
    steps.add(
        f"IBW ({sex}) = {base:g} kg + {DEVINE_KG_PER_INCH:g} kg × (height − 60 in) = {base:g} + "
        f"{DEVINE_KG_PER_INCH:g} × ({inches:.2f} − 60) = {value:.1f} kg"
    )
    if inches < FIVE_FEET_IN:
        steps.add("the height is under five feet: Devine's formula is extrapolated below 60 in")
    return value


def _ibw(v: Values, steps: Steps) -> float:
    return _devine(v["sex"], v["height"], steps)


IBW = _DATA.calculator("ideal_body_weight", inputs=(SEX, ADULT_HEIGHT), compute=_ibw)


def _adjusted(v: Values, steps: Steps) -> float:
    ideal = _devine(v["sex"], v["height"], steps)
    weight = float(v["weight"])
    value = adjusted_body_weight(ideal, weight)
    steps.add(
        f"adjusted body weight = IBW + {ADJUSTMENT_FACTOR:g} × (actual weight − IBW) = {ideal:.1f} kg + "
        f"{ADJUSTMENT_FACTOR:g} × ({weight:g} kg − {ideal:.1f} kg) = {value:.1f} kg"
    )
    if weight <= ideal:
        steps.add(
            f"the actual weight ({weight:g} kg) is not above the ideal weight ({ideal:.1f} kg): the adjusted "
            "weight is meant for patients above their ideal weight"
        )
    return value


ADJUSTED_BODY_WEIGHT = _DATA.calculator("adjusted_body_weight", inputs=(SEX, ADULT_HEIGHT, WEIGHT), compute=_adjusted)


def _target(v: Values, steps: Steps) -> float:
    metres = convert(v["height"], "cm", "m")
    value = float(v["target_bmi"] * metres**2)
    steps.add(f"target weight = target BMI × height² = {v['target_bmi']:g} kg/m² × ({metres:g} m)² = {value:.1f} kg")
    return value


TARGET_WEIGHT = _DATA.calculator("target_weight", inputs=(TARGET_BMI, HEIGHT), compute=_target)

CALCULATORS = (IBW, ADJUSTED_BODY_WEIGHT, TARGET_WEIGHT)
