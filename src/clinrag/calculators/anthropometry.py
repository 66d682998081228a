"""Body size: body mass index and body surface area (issue 19).

Example:
    >>> round(BMI.run({"weight": 70, "height": 175}).value, 2)
    22.86
"""

from __future__ import annotations

import math

from clinrag.calculators.spec import Band, Calculator, Input, Source, Steps, Values

WEIGHT = Input(name="weight", label="body weight", unit="kg", minimum=0.5, maximum=400, synonyms=("wt", "weight"))
HEIGHT = Input(name="height", label="height", unit="cm", minimum=30, maximum=250, synonyms=("ht", "height"))


def _bmi(v: Values, steps: Steps) -> float:
    metres = v["height"] / 100
    value = float(v["weight"] / metres**2)
    steps.add(f"BMI = weight / height² = {v['weight']:g} kg / ({metres:g} m)² = {value:.2f} kg/m²")
    return value


BMI = Calculator(
    name="bmi",
    title="Body mass index (BMI)",
    inputs=(WEIGHT, HEIGHT),
    unit="kg/m²",
    source=Source(
        citation="World Health Organization. Obesity: preventing and managing the global epidemic. WHO Technical "
        "Report Series 894, 2000.",
    ),
    compute=_bmi,
    bands=(
        Band(high=18.5, label="underweight"),
        Band(low=18.5, high=25, label="normal weight"),
        Band(low=25, high=30, label="overweight"),
        Band(low=30, label="obese"),
    ),
    synonyms=("body mass index", "bmi", "quetelet index"),
    indications=("obesity", "weight status", "nutrition"),
)


def _bsa(v: Values, steps: Steps) -> float:
    value = math.sqrt(v["height"] * v["weight"] / 3600)
    steps.add(f"BSA = √(height × weight / 3600) = √({v['height']:g} cm × {v['weight']:g} kg / 3600) = {value:.2f} m²")
    return value


BSA = Calculator(
    name="bsa",
    title="Body surface area (Mosteller)",
    inputs=(WEIGHT, HEIGHT),
    unit="m²",
    source=Source(citation="Mosteller RD. Simplified calculation of body-surface area. N Engl J Med 1987;317:1098."),
    compute=_bsa,
    synonyms=("body surface area", "bsa", "mosteller"),
    indications=("chemotherapy dosing", "body surface area"),
    digits=2,
)

CALCULATORS = (BMI, BSA)
