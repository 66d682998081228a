"""Kidney function: the race-free CKD-EPI 2021 and the MDRD (IDMS, 175) eGFR, the Cockcroft-Gault
creatinine clearance and the fractional excretion of sodium.

Cockcroft-Gault and body weight: Cockcroft and Gault (1976) derived the equation with the patient's actual body
weight, and that is what `COCKCROFT_GAULT` uses unless asked otherwise (``weight_basis`` "actual", the published
default). ``weight_basis`` "by_bmi" applies the MDCalc convention (also MedCalc-Bench's): with the height, the BMI
picks the weight — underweight (BMI < 18.5) the actual weight, normal (18.5 ≤ BMI < 25) the lesser of the ideal
(Devine) and the actual weight, overweight or obese (BMI ≥ 25) the adjusted weight, ideal + 0.4 × (actual − ideal).
When the height is given the steps show the clearance with each weight, whichever basis is used.

Example:
    >>> result = CKD_EPI_2021.run({"age": 50, "sex": "male", "creatinine": "1.2 mg/dL"})
    >>> round(result.value), result.interpretation.label
    (74, 'G2')
"""

from __future__ import annotations

from clinrag.calculators.anthropometry import HEIGHT, WEIGHT
from clinrag.calculators.body import DEVINE_BASE, adjusted_body_weight, ideal_body_weight
from clinrag.calculators.common import SEX
from clinrag.calculators.content import content
from clinrag.calculators.spec import CalculatorInputError, Steps, Values
from clinrag.calculators.units import convert

_DATA = content(__name__)

CREATININE = _DATA.input("creatinine")
AGE_ADULT = _DATA.input("age_adult")


def _female(v: Values) -> bool:
    return bool(v["sex"] == "female")


def _ckd_epi_2021(v: Values, steps: Steps) -> float:
    female = _female(v)
    kappa, alpha, sex_factor = (0.7, -0.241, 1.012) if female else (0.9, -0.302, 1.0)
    creatinine, age = v["creatinine"], v["age"]
    ratio = creatinine / kappa
    steps.add(
        f"{'Female' if female else 'Male'}: κ = {kappa:g} mg/dL, α = {alpha:g}, sex factor = {sex_factor:g}"
        + (" (1.012 for females)" if female else "")
    )
    steps.add(f"Scr/κ = {creatinine:g} / {kappa:g} = {ratio:.4f}")
    low, high = min(ratio, 1.0), max(ratio, 1.0)
    value = 142 * low**alpha * high**-1.200 * 0.9938**age * sex_factor
    steps.add(
        "eGFR = 142 × min(Scr/κ, 1)^α × max(Scr/κ, 1)^−1.200 × 0.9938^age × sex factor"
        f" = 142 × {low:.4f}^{alpha:g} × {high:.4f}^−1.200 × 0.9938^{age:g} × {sex_factor:g}"
        f" = {value:.1f} mL/min/1.73 m²"
    )
    return float(value)


CKD_EPI_2021 = _DATA.calculator("ckd_epi_2021", inputs=(AGE_ADULT, SEX, CREATININE), compute=_ckd_epi_2021)


BLACK = _DATA.input("black")


def _mdrd(v: Values, steps: Steps) -> float:
    female = _female(v)
    creatinine, age = v["creatinine"], v["age"]
    sex_factor = 0.742 if female else 1.0
    black = v.get("black")
    race_factor = 1.212 if black else 1.0
    if black is None:
        steps.add("Race not given: the race coefficient is not applied (× 1)")
    else:
        steps.add(f"Race coefficient: × {race_factor:g} ({'Black' if black else 'not Black'})")
    steps.add(f"Sex coefficient: × {sex_factor:g} ({'female' if female else 'male'})")
    value = 175 * creatinine**-1.154 * age**-0.203 * sex_factor * race_factor
    steps.add(
        "eGFR = 175 × Scr^−1.154 × age^−0.203 × sex coefficient × race coefficient"
        f" = 175 × {creatinine:g}^−1.154 × {age:g}^−0.203 × {sex_factor:g} × {race_factor:g}"
        f" = {value:.1f} mL/min/1.73 m²"
    )
    return float(value)


MDRD = _DATA.calculator("mdrd_gfr", inputs=(AGE_ADULT, SEX, CREATININE, BLACK), compute=_mdrd)


WEIGHT_BASIS = _DATA.input("weight_basis")
CG_HEIGHT = HEIGHT.model_copy(
    update={"required": False, "label": "height (to choose the weight by BMI)", "minimum": 120}
)
"""Devine's ideal weight, which the BMI may choose, is for adults: below 120 cm it reaches zero and below."""


def _clearance(age: float, weight: float, creatinine: float, female: bool) -> float:
    return (140 - age) * weight / (72 * creatinine) * (0.85 if female else 1.0)


def _ideal_and_adjusted(female: bool, weight: float, height: float) -> tuple[float, float]:
    """Devine's ideal weight and the adjusted weight, ideal + 0.4 × (actual − ideal), in kg."""
    ideal = ideal_body_weight("female" if female else "male", height)
    return ideal, adjusted_body_weight(ideal, weight)


def _weight_by_bmi(v: Values, steps: Steps) -> tuple[float, str]:
    """The weight the BMI picks (MDCalc), writing the BMI, the ideal and the adjusted weights; and its name."""
    weight, height = v["weight"], v["height"]
    bmi = weight / (height / 100) ** 2
    ideal, adjusted = _ideal_and_adjusted(_female(v), weight, height)
    inches = convert(height, "cm", "inch")
    steps.add(f"BMI = {weight:g} kg / ({height / 100:g} m)² = {bmi:.1f} kg/m²")
    base = f"{DEVINE_BASE[v['sex']]:g}"
    steps.add(
        f"Ideal body weight (Devine) = {base} + 2.3 × ({inches:.2f} in − 60) = {ideal:.1f} kg;"
        f" adjusted body weight = ideal + 0.4 × (actual − ideal) = {adjusted:.1f} kg"
    )
    if bmi < 18.5:
        return weight, "actual (BMI < 18.5, underweight)"
    if bmi < 25:
        return (ideal, "ideal (BMI 18.5-24.9)") if ideal < weight else (weight, "actual (BMI 18.5-24.9, ≤ ideal)")
    return adjusted, "adjusted (BMI ≥ 25)"


def _cockcroft_gault(v: Values, steps: Steps) -> float:
    female = _female(v)
    age, creatinine, actual, height = v["age"], v["creatinine"], v["weight"], v.get("height")
    by_bmi = v["weight_basis"] == "by_bmi"
    if by_bmi and height is None:
        raise CalculatorInputError(
            "cockcroft_gault: weight_basis 'by_bmi' needs height (the BMI chooses the weight); give height or use "
            "weight_basis 'actual'"
        )
    weight, basis = actual, "actual"
    if height is not None:
        chosen, why = _weight_by_bmi(v, steps)
        ideal, adjusted = _ideal_and_adjusted(female, actual, height)
        steps.add(
            "CrCl with each weight: "
            f"actual {_clearance(age, actual, creatinine, female):.1f}, "
            f"ideal {_clearance(age, ideal, creatinine, female):.1f}, "
            f"adjusted {_clearance(age, adjusted, creatinine, female):.1f} mL/min"
        )
        if by_bmi:
            weight, basis = chosen, why
    steps.add(f"Weight used: {weight:.1f} kg ({basis})")
    sex_factor = 0.85 if female else 1.0
    value = _clearance(age, weight, creatinine, female)
    steps.add(
        "CrCl = (140 − age) × weight / (72 × Scr) × sex factor"
        f" = (140 − {age:g}) × {weight:.1f} / (72 × {creatinine:g}) × {sex_factor:g} = {value:.1f} mL/min"
    )
    return value


COCKCROFT_GAULT = _DATA.calculator(
    "cockcroft_gault", inputs=(AGE_ADULT, SEX, WEIGHT, CREATININE, CG_HEIGHT, WEIGHT_BASIS), compute=_cockcroft_gault
)


SODIUM = _DATA.input("sodium")
URINE_SODIUM = _DATA.input("urine_sodium")
URINE_CREATININE = _DATA.input("urine_creatinine")


def _fena(v: Values, steps: Steps) -> float:
    sodium, creatinine = v["sodium"], v["creatinine"]
    urine_sodium, urine_creatinine = v["urine_sodium"], v["urine_creatinine"]
    value = urine_sodium * creatinine / (sodium * urine_creatinine) * 100
    steps.add(
        "FENa = (urine Na × serum Cr) / (serum Na × urine Cr) × 100"
        f" = ({urine_sodium:g} × {creatinine:g}) / ({sodium:g} × {urine_creatinine:g}) × 100 = {value:.2f}%"
    )
    return float(value)


FENA = _DATA.calculator("fena", inputs=(SODIUM, CREATININE, URINE_SODIUM, URINE_CREATININE), compute=_fena)

CALCULATORS = (CKD_EPI_2021, MDRD, COCKCROFT_GAULT, FENA)
