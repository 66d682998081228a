"""Body size: body mass index and body surface area.

Example:
    >>> round(BMI.run({"weight": 70, "height": 175}).value, 2)
    22.86
"""

from __future__ import annotations

import math

from clinrag.calculators.content import content
from clinrag.calculators.spec import Steps, Values

_DATA = content(__name__)

WEIGHT = _DATA.input("weight")
HEIGHT = _DATA.input("height")


def _bmi(v: Values, steps: Steps) -> float:
    metres = v["height"] / 100
    value = float(v["weight"] / metres**2)
    steps.add(f"BMI = weight / height² = {v['weight']:g} kg / ({metres:g} m)² = {value:.2f} kg/m²")
    return value


BMI = _DATA.calculator("bmi", inputs=(WEIGHT, HEIGHT), compute=_bmi)


def _bsa(v: Values, steps: Steps) -> float:
    value = math.sqrt(v["height"] * v["weight"] / 3600)
    steps.add(f"BSA = √(height × weight / 3600) = √({v['height']:g} cm × {v['weight']:g} kg / 3600) = {value:.2f} m²")
    return value


BSA = _DATA.calculator("bsa", inputs=(WEIGHT, HEIGHT), compute=_bsa)

CALCULATORS = (BMI, BSA)
