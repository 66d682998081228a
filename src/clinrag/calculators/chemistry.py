"""Electrolytes, lipids and metabolism: anion gap, delta gap and delta ratio (plain and corrected for
albumin), calcium corrected for albumin, serum osmolality, free water deficit, sodium corrected for
hyperglycaemia, LDL cholesterol (Friedewald), HOMA-IR and maintenance fluids (Holliday-Segar).

Conventions (each from the calculator's source, stated in its steps): the normal anion gap is 12 mEq/L and the
normal bicarbonate 24 mEq/L (Wrenn 1990; Rastegar 2007); the normal albumin is 4.0 g/dL for the anion gap
(Figge 1998 leaves it to the laboratory; 4.0 is the MDCalc value) and for calcium (Payne 1973); sodium is corrected
by 2.4 mEq/L per 100 mg/dL of glucose above 100 (Hillier 1999; Katz's 1.6 is shown beside it). Published integer
reference ranges ("3-11 mEq/L") are read as the values laboratories report, so a band's upper limit is the next
integer (11.x falls in 3-11); ranges given to one decimal end half a display step above (calcium 8.5-10.5 → 10.55).

Example:
    >>> result = ANION_GAP.run({"sodium": 140, "chloride": 100, "bicarbonate": "14 mmol/L"})
    >>> result.value, result.interpretation.label
    (26.0, 'elevated')
"""

from __future__ import annotations

from clinrag.calculators.anthropometry import WEIGHT
from clinrag.calculators.common import SEX
from clinrag.calculators.content import content
from clinrag.calculators.spec import CalculatorInputError, Steps, Values

_DATA = content(__name__)

NORMAL_ANION_GAP = 12.0
"""mEq/L: the normal anion gap the delta gap subtracts (Wrenn 1990)."""
NORMAL_BICARBONATE = 24.0
"""mEq/L: the normal bicarbonate of the delta ratio (Rastegar 2007)."""
NORMAL_ALBUMIN = 4.0
"""g/dL: the normal albumin of the albumin corrections (MDCalc; Payne 1973 for calcium)."""

SODIUM = _DATA.input("sodium")
CHLORIDE = _DATA.input("chloride")
BICARBONATE = _DATA.input("bicarbonate")
ALBUMIN = _DATA.input("albumin")
GLUCOSE = _DATA.input("glucose")
BUN = _DATA.input("bun")
CALCIUM = _DATA.input("calcium")

ELECTROLYTES = (SODIUM, CHLORIDE, BICARBONATE)


def _anion_gap(v: Values, steps: Steps) -> float:
    sodium, chloride, bicarbonate = v["sodium"], v["chloride"], v["bicarbonate"]
    value = float(sodium - (chloride + bicarbonate))
    steps.add(f"Anion gap = Na − (Cl + HCO3) = {sodium:g} − ({chloride:g} + {bicarbonate:g}) = {value:.1f} mEq/L")
    return value


def _corrected_anion_gap(v: Values, steps: Steps) -> float:
    gap = _anion_gap(v, steps)
    albumin = v["albumin"]
    value = float(gap + 2.5 * (NORMAL_ALBUMIN - albumin))
    steps.add(
        f"Albumin-corrected anion gap = anion gap + 2.5 × ({NORMAL_ALBUMIN:g} − albumin g/dL)"
        f" = {gap:.1f} + 2.5 × ({NORMAL_ALBUMIN:g} − {albumin:g}) = {value:.1f} mEq/L"
    )
    return value


def _delta(gap: float, label: str, steps: Steps) -> float:
    value = gap - NORMAL_ANION_GAP
    steps.add(
        f"{label} = anion gap − {NORMAL_ANION_GAP:g} (normal anion gap) = {gap:.1f} − {NORMAL_ANION_GAP:g}"
        f" = {value:.1f} mEq/L"
    )
    return value


def _ratio(delta_gap: float, v: Values, steps: Steps) -> float:
    bicarbonate = v["bicarbonate"]
    if bicarbonate >= NORMAL_BICARBONATE:
        raise CalculatorInputError(
            f"bicarbonate ({bicarbonate:g} mEq/L) is not below the normal {NORMAL_BICARBONATE:g} mEq/L: the delta "
            "ratio measures a fall in bicarbonate (a metabolic acidosis) and has none to divide by"
        )
    fall = float(NORMAL_BICARBONATE - bicarbonate)
    value = delta_gap / fall
    steps.add(
        f"Delta ratio = Δ anion gap / ({NORMAL_BICARBONATE:g} − HCO3) = {delta_gap:.1f} / "
        f"({NORMAL_BICARBONATE:g} − {bicarbonate:g}) = {delta_gap:.1f} / {fall:g} = {value:.2f}"
    )
    return value


def _delta_gap(v: Values, steps: Steps) -> float:
    return _delta(_anion_gap(v, steps), "Delta gap", steps)


def _delta_ratio(v: Values, steps: Steps) -> float:
    return _ratio(_delta_gap(v, steps), v, steps)


def _corrected_delta_gap(v: Values, steps: Steps) -> float:
    return _delta(_corrected_anion_gap(v, steps), "Albumin-corrected delta gap", steps)


def _corrected_delta_ratio(v: Values, steps: Steps) -> float:
    return _ratio(_corrected_delta_gap(v, steps), v, steps)


ANION_GAP = _DATA.calculator("anion_gap", inputs=ELECTROLYTES, compute=_anion_gap)

DELTA_GAP = _DATA.calculator("delta_gap", inputs=ELECTROLYTES, compute=_delta_gap)

DELTA_RATIO = _DATA.calculator("delta_ratio", inputs=ELECTROLYTES, compute=_delta_ratio)

ALBUMIN_CORRECTED_ANION_GAP = _DATA.calculator(
    "albumin_corrected_anion_gap", inputs=(*ELECTROLYTES, ALBUMIN), compute=_corrected_anion_gap
)

ALBUMIN_CORRECTED_DELTA_GAP = _DATA.calculator(
    "albumin_corrected_delta_gap", inputs=(*ELECTROLYTES, ALBUMIN), compute=_corrected_delta_gap
)

ALBUMIN_CORRECTED_DELTA_RATIO = _DATA.calculator(
    "albumin_corrected_delta_ratio", inputs=(*ELECTROLYTES, ALBUMIN), compute=_corrected_delta_ratio
)


def _calcium(v: Values, steps: Steps) -> float:
    calcium, albumin = v["calcium"], v["albumin"]
    value = float(calcium + 0.8 * (NORMAL_ALBUMIN - albumin))
    steps.add(
        f"Corrected calcium = calcium + 0.8 × ({NORMAL_ALBUMIN:g} − albumin g/dL)"
        f" = {calcium:g} + 0.8 × ({NORMAL_ALBUMIN:g} − {albumin:g}) = {value:.2f} mg/dL"
    )
    return value


CORRECTED_CALCIUM = _DATA.calculator("corrected_calcium", inputs=(CALCIUM, ALBUMIN), compute=_calcium)


def _osmolality(v: Values, steps: Steps) -> float:
    sodium, bun, glucose = v["sodium"], v["bun"], v["glucose"]
    value = 2 * sodium + bun / 2.8 + glucose / 18
    steps.add(
        "Serum osmolality = 2 × Na + BUN/2.8 + glucose/18 (BUN and glucose in mg/dL)"
        f" = 2 × {sodium:g} + {bun:g}/2.8 + {glucose:g}/18 = {2 * sodium:g} + {bun / 2.8:.1f} + {glucose / 18:.1f}"
        f" = {value:.1f} mOsm/kg"
    )
    return float(value)


SERUM_OSMOLALITY = _DATA.calculator("serum_osmolality", inputs=(SODIUM, BUN, GLUCOSE), compute=_osmolality)


AGE = _DATA.input("age")


def _body_water_fraction(age: float, female: bool) -> tuple[float, str]:
    """The fraction of body weight that is water (Adrogué and Madias 2000), and who it applies to."""
    if age < 18:
        return 0.6, "child (under 18)"
    if age < 65:
        return (0.5, "adult woman (18-64)") if female else (0.6, "adult man (18-64)")
    return (0.45, "elderly woman (65 or older)") if female else (0.5, "elderly man (65 or older)")


def _free_water_deficit(v: Values, steps: Steps) -> float:
    fraction, who = _body_water_fraction(v["age"], v["sex"] == "female")
    weight, sodium = v["weight"], v["sodium"]
    steps.add(f"Total body water fraction {fraction:g} ({who})")
    value = fraction * weight * (sodium / 140 - 1)
    steps.add(
        "Free water deficit = fraction × weight × (Na/140 − 1)"
        f" = {fraction:g} × {weight:g} kg × ({sodium:g}/140 − 1) = {value:.2f} L"
    )
    return float(value)


FREE_WATER_DEFICIT = _DATA.calculator(
    "free_water_deficit",
    inputs=(AGE, SEX, WEIGHT, SODIUM.model_copy(update={"unit": "mmol/L"})),
    compute=_free_water_deficit,
)


def _sodium_correction(v: Values, steps: Steps) -> float:
    sodium, glucose = v["sodium"], v["glucose"]
    value = float(sodium + 0.024 * (glucose - 100))
    steps.add(
        "Corrected sodium (Hillier) = Na + 2.4 × (glucose − 100)/100"
        f" = {sodium:g} + 0.024 × ({glucose:g} − 100) = {value:.1f} mEq/L"
    )
    katz = sodium + 0.016 * (glucose - 100)
    steps.add(
        f"For comparison, Katz's 1.6 per 100 mg/dL would give {sodium:g} + 0.016 × ({glucose:g} − 100) = {katz:.1f}"
    )
    return value


SODIUM_CORRECTION = _DATA.calculator(
    "sodium_correction_hyperglycemia", inputs=(SODIUM, GLUCOSE), compute=_sodium_correction
)


TOTAL_CHOLESTEROL = _DATA.input("total_cholesterol")
HDL = _DATA.input("hdl")
TRIGLYCERIDES = _DATA.input("triglycerides")
FRIEDEWALD_MAX_TRIGLYCERIDES = 400.0
"""mg/dL: above it the Friedewald estimate does not hold (Friedewald 1972)."""


def _ldl(v: Values, steps: Steps) -> float:
    total, hdl, triglycerides = v["total_cholesterol"], v["hdl"], v["triglycerides"]
    if hdl > total:
        raise CalculatorInputError(
            f"hdl ({hdl:g} mg/dL) is above total_cholesterol ({total:g} mg/dL): HDL is part of the total"
        )
    if triglycerides > FRIEDEWALD_MAX_TRIGLYCERIDES:
        raise CalculatorInputError(
            f"triglycerides ({triglycerides:g} mg/dL) are above {FRIEDEWALD_MAX_TRIGLYCERIDES:g} mg/dL, where the "
            "Friedewald estimate does not hold (Friedewald 1972): LDL must be measured directly"
        )
    value = float(total - hdl - triglycerides / 5)
    steps.add(
        "LDL = total cholesterol − HDL − triglycerides/5 (mg/dL)"
        f" = {total:g} − {hdl:g} − {triglycerides:g}/5 = {value:.1f} mg/dL"
    )
    return value


LDL_FRIEDEWALD = _DATA.calculator("ldl_friedewald", inputs=(TOTAL_CHOLESTEROL, HDL, TRIGLYCERIDES), compute=_ldl)


INSULIN = _DATA.input("insulin")


def _homa_ir(v: Values, steps: Steps) -> float:
    insulin, glucose = v["insulin"], v["glucose"]
    value = insulin * glucose / 405
    steps.add(
        "HOMA-IR = fasting insulin (µU/mL) × fasting glucose (mg/dL) / 405 (= glucose in mmol/L / 22.5)"
        f" = {insulin:g} × {glucose:g} / 405 = {value:.2f}"
    )
    return float(value)


HOMA_IR = _DATA.calculator(
    "homa_ir", inputs=(INSULIN, GLUCOSE.model_copy(update={"label": "fasting glucose"})), compute=_homa_ir
)


def _maintenance_fluids(v: Values, steps: Steps) -> float:
    weight = v["weight"]
    first, second, rest = min(weight, 10), min(max(weight - 10, 0), 10), max(weight - 20, 0)
    value = 4 * first + 2 * second + rest
    steps.add(
        "Maintenance rate = 4 mL/kg/h for the first 10 kg + 2 mL/kg/h for the next 10 kg + 1 mL/kg/h for the rest"
        f" = 4 × {first:g} + 2 × {second:g} + 1 × {rest:g} = {value:.1f} mL/h ({value * 24:.0f} mL/day)"
    )
    return float(value)


MAINTENANCE_FLUIDS = _DATA.calculator("maintenance_fluids", inputs=(WEIGHT,), compute=_maintenance_fluids)

CALCULATORS = (
    ANION_GAP,
    DELTA_GAP,
    DELTA_RATIO,
    ALBUMIN_CORRECTED_ANION_GAP,
    ALBUMIN_CORRECTED_DELTA_GAP,
    ALBUMIN_CORRECTED_DELTA_RATIO,
    CORRECTED_CALCIUM,
    SERUM_OSMOLALITY,
    FREE_WATER_DEFICIT,
    SODIUM_CORRECTION,
    LDL_FRIEDEWALD,
    HOMA_IR,
    MAINTENANCE_FLUIDS,
)
