"""Electrolytes, lipids and metabolism (issue 19): anion gap, delta gap and delta ratio (plain and corrected for
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
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values

NORMAL_ANION_GAP = 12.0
"""mEq/L: the normal anion gap the delta gap subtracts (Wrenn 1990)."""
NORMAL_BICARBONATE = 24.0
"""mEq/L: the normal bicarbonate of the delta ratio (Rastegar 2007)."""
NORMAL_ALBUMIN = 4.0
"""g/dL: the normal albumin of the albumin corrections (MDCalc; Payne 1973 for calcium)."""

SODIUM = Input(
    name="sodium",
    label="serum sodium",
    unit="mEq/L",
    substance="sodium",
    minimum=90,
    maximum=200,
    synonyms=("sodium", "Na", "Na+", "serum sodium", "plasma sodium"),
)
CHLORIDE = Input(
    name="chloride",
    label="serum chloride",
    unit="mEq/L",
    substance="chloride",
    minimum=50,
    maximum=150,
    synonyms=("chloride", "Cl", "Cl-", "serum chloride"),
)
BICARBONATE = Input(
    name="bicarbonate",
    label="serum bicarbonate",
    unit="mEq/L",
    substance="bicarbonate",
    minimum=1,
    maximum=60,
    synonyms=("bicarbonate", "HCO3", "HCO3-", "bicarb", "total CO2", "CO2", "tCO2"),
)
ALBUMIN = Input(
    name="albumin",
    label="serum albumin",
    unit="g/dL",
    substance="albumin",
    minimum=0.5,
    maximum=7,
    synonyms=("albumin", "Alb", "serum albumin"),
)
GLUCOSE = Input(
    name="glucose",
    label="serum glucose",
    unit="mg/dL",
    substance="glucose",
    minimum=10,
    maximum=3000,
    synonyms=("glucose", "Glu", "blood glucose", "serum glucose", "blood sugar", "BG"),
)
BUN = Input(
    name="bun",
    label="blood urea nitrogen",
    unit="mg/dL",
    substance="urea_nitrogen",
    minimum=1,
    maximum=300,
    synonyms=("BUN", "blood urea nitrogen", "urea nitrogen", "urea"),
)
CALCIUM = Input(
    name="calcium",
    label="total serum calcium",
    unit="mg/dL",
    substance="calcium",
    minimum=2,
    maximum=20,
    synonyms=("calcium", "Ca", "total calcium", "serum calcium"),
)

ELECTROLYTES = (SODIUM, CHLORIDE, BICARBONATE)
KRAUT_MADIAS_2007 = (
    "Kraut JA, Madias NE. Serum anion gap: its uses and limitations in clinical medicine. Clin J Am Soc Nephrol "
    "2007;2:162-174 (reference range about 3-11 mEq/L with ion-selective electrodes; laboratories' ranges vary)."
)
ANION_GAP_BANDS = (
    Band(
        high=3, label="low", meaning="below 3 mEq/L: low anion gap (hypoalbuminaemia, paraproteins, lithium, bromide)"
    ),
    Band(low=3, high=12, label="normal", meaning="3-11 mEq/L"),
    Band(
        low=12,
        label="elevated",
        meaning="above 11 mEq/L: high anion gap — consider lactate, ketones, toxic alcohols, salicylate, uraemia",
    ),
)
DELTA_RATIO_BANDS = (
    Band(high=0.4, label="hyperchloraemic acidosis", meaning="< 0.4: normal anion gap (hyperchloraemic) acidosis"),
    Band(
        low=0.4,
        high=0.8,
        label="mixed acidosis",
        meaning="0.4-0.8: combined high and normal anion gap acidosis (or the acidosis of renal failure)",
    ),
    Band(
        low=0.8,
        high=2.0,
        label="high anion gap acidosis",
        meaning="0.8-2.0: uncomplicated high anion gap acidosis (lactic acidosis averages 1.6; ketoacidosis near 1)",
    ),
    Band(
        low=2.0,
        label="with metabolic alkalosis",
        meaning="> 2.0: high anion gap acidosis with a concurrent metabolic alkalosis or a pre-existing compensated "
        "respiratory acidosis",
    ),
)
RASTEGAR_2007 = (
    "Rastegar A. Use of the ΔAG/ΔHCO3- ratio in the diagnosis of mixed acid-base disorders. J Am Soc Nephrol "
    "2007;18:2429-2431."
)
WRENN_1990 = "Wrenn K. The delta (Δ) gap: an approach to mixed acid-base disorders. Ann Emerg Med 1990;19:1310-1313."
FIGGE_1998 = (
    "Figge J, Jabor A, Kazda A, Fencl V. Anion gap and hypoalbuminemia. Crit Care Med 1998;26:1807-1810 "
    "(2.5 mEq/L per g/dL of albumin below normal; normal albumin taken as 4.0 g/dL)."
)


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


ANION_GAP = Calculator(
    name="anion_gap",
    title="Anion gap",
    inputs=ELECTROLYTES,
    unit="mEq/L",
    source=Source(
        citation="Emmett M, Narins RG. Clinical use of the anion gap. Medicine (Baltimore) 1977;56:38-54.",
        bands_citation=KRAUT_MADIAS_2007,
    ),
    compute=_anion_gap,
    bands=ANION_GAP_BANDS,
    synonyms=("anion gap", "AG", "serum anion gap"),
    indications=("metabolic acidosis", "acid-base", "high anion gap acidosis"),
)

DELTA_GAP = Calculator(
    name="delta_gap",
    title="Delta gap (excess anion gap)",
    inputs=ELECTROLYTES,
    unit="mEq/L",
    source=Source(citation=WRENN_1990),
    compute=_delta_gap,
    synonyms=("delta gap", "Δ gap", "delta anion gap", "ΔAG", "excess anion gap"),
    indications=("mixed acid-base disorder", "metabolic acidosis", "acid-base"),
)

DELTA_RATIO = Calculator(
    name="delta_ratio",
    title="Delta ratio (ΔAG/ΔHCO3)",
    inputs=ELECTROLYTES,
    unit="ratio",
    source=Source(citation=RASTEGAR_2007 + " " + WRENN_1990),
    compute=_delta_ratio,
    bands=DELTA_RATIO_BANDS,
    synonyms=("delta ratio", "delta-delta", "Δ/Δ", "ΔAG/ΔHCO3", "delta delta ratio"),
    indications=("mixed acid-base disorder", "high anion gap metabolic acidosis", "acid-base"),
    digits=2,
)

ALBUMIN_CORRECTED_ANION_GAP = Calculator(
    name="albumin_corrected_anion_gap",
    title="Anion gap corrected for albumin",
    inputs=(*ELECTROLYTES, ALBUMIN),
    unit="mEq/L",
    source=Source(citation=FIGGE_1998, bands_citation=KRAUT_MADIAS_2007),
    compute=_corrected_anion_gap,
    bands=ANION_GAP_BANDS,
    synonyms=("albumin-corrected anion gap", "corrected anion gap", "adjusted anion gap", "corrected AG"),
    indications=("metabolic acidosis with hypoalbuminaemia", "acid-base", "high anion gap acidosis"),
)

ALBUMIN_CORRECTED_DELTA_GAP = Calculator(
    name="albumin_corrected_delta_gap",
    title="Delta gap corrected for albumin",
    inputs=(*ELECTROLYTES, ALBUMIN),
    unit="mEq/L",
    source=Source(citation=FIGGE_1998 + " " + WRENN_1990),
    compute=_corrected_delta_gap,
    synonyms=("albumin-corrected delta gap", "corrected delta gap"),
    indications=("mixed acid-base disorder with hypoalbuminaemia", "acid-base"),
)

ALBUMIN_CORRECTED_DELTA_RATIO = Calculator(
    name="albumin_corrected_delta_ratio",
    title="Delta ratio corrected for albumin",
    inputs=(*ELECTROLYTES, ALBUMIN),
    unit="ratio",
    source=Source(citation=FIGGE_1998 + " " + RASTEGAR_2007, bands_citation=RASTEGAR_2007),
    compute=_corrected_delta_ratio,
    bands=DELTA_RATIO_BANDS,
    synonyms=("albumin-corrected delta ratio", "corrected delta ratio", "albumin delta ratio"),
    indications=("mixed acid-base disorder with hypoalbuminaemia", "acid-base"),
    digits=2,
)


def _calcium(v: Values, steps: Steps) -> float:
    calcium, albumin = v["calcium"], v["albumin"]
    value = float(calcium + 0.8 * (NORMAL_ALBUMIN - albumin))
    steps.add(
        f"Corrected calcium = calcium + 0.8 × ({NORMAL_ALBUMIN:g} − albumin g/dL)"
        f" = {calcium:g} + 0.8 × ({NORMAL_ALBUMIN:g} − {albumin:g}) = {value:.2f} mg/dL"
    )
    return value


CORRECTED_CALCIUM = Calculator(
    name="corrected_calcium",
    title="Calcium corrected for albumin (Payne)",
    inputs=(CALCIUM, ALBUMIN),
    unit="mg/dL",
    source=Source(
        citation="Payne RB, Little AJ, Williams RB, Milner JR. Interpretation of serum calcium in patients with "
        "abnormal serum proteins. Br Med J 1973;4:643-646 (used in its common form, 0.8 mg/dL per g/dL of albumin "
        "below 4.0 — 0.02 mmol/L per g/L below 40; the 1973 abstract rounds the slope to 1: calcium − albumin + 4.0).",
        url="https://doi.org/10.1136/bmj.4.5893.643",
        bands_citation="Adult reference interval of total calcium, about 8.5-10.5 mg/dL (2.12-2.62 mmol/L); "
        "laboratories' intervals vary.",
    ),
    compute=_calcium,
    bands=(
        Band(high=8.5, label="low", meaning="corrected calcium below 8.5 mg/dL: hypocalcaemia"),
        Band(low=8.5, high=10.55, label="normal", meaning="8.5-10.5 mg/dL"),
        Band(low=10.55, label="high", meaning="corrected calcium above 10.5 mg/dL: hypercalcaemia"),
    ),
    synonyms=("corrected calcium", "calcium correction", "albumin-corrected calcium", "adjusted calcium", "Payne"),
    indications=("hypocalcaemia", "hypercalcaemia", "calcium with low albumin"),
)


def _osmolality(v: Values, steps: Steps) -> float:
    sodium, bun, glucose = v["sodium"], v["bun"], v["glucose"]
    value = 2 * sodium + bun / 2.8 + glucose / 18
    steps.add(
        "Serum osmolality = 2 × Na + BUN/2.8 + glucose/18 (BUN and glucose in mg/dL)"
        f" = 2 × {sodium:g} + {bun:g}/2.8 + {glucose:g}/18 = {2 * sodium:g} + {bun / 2.8:.1f} + {glucose / 18:.1f}"
        f" = {value:.1f} mOsm/kg"
    )
    return float(value)


SERUM_OSMOLALITY = Calculator(
    name="serum_osmolality",
    title="Serum osmolality (calculated)",
    inputs=(SODIUM, BUN, GLUCOSE),
    unit="mOsm/kg",
    source=Source(
        citation="Smithline N, Gardner KD Jr. Gaps — anionic and osmolal. JAMA 1976;236:1594-1597; Dorwart WV, "
        "Chalmers L. Comparison of methods for calculating serum osmolality from chemical concentrations, and the "
        "prognostic value of such calculations. Clin Chem 1975;21:190-194.",
        bands_citation="Reference interval of serum osmolality about 275-295 mOsm/kg (laboratories' intervals vary).",
    ),
    compute=_osmolality,
    bands=(
        Band(high=275, label="low", meaning="below 275 mOsm/kg: hypo-osmolality"),
        Band(low=275, high=296, label="normal", meaning="275-295 mOsm/kg"),
        Band(low=296, label="high", meaning="above 295 mOsm/kg: hyperosmolality"),
    ),
    synonyms=("serum osmolality", "calculated osmolality", "calculated serum osmolality", "sOsm", "osmolarity"),
    indications=("hyperosmolar state", "osmolal gap", "hyponatraemia", "toxic alcohol"),
    digits=0,
)


AGE = Input(
    name="age",
    label="age",
    unit="year",
    minimum=0,
    maximum=120,
    synonyms=("age", "years old", "yo", "y/o"),
)


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


FREE_WATER_DEFICIT = Calculator(
    name="free_water_deficit",
    title="Free water deficit (hypernatraemia)",
    inputs=(AGE, SEX, WEIGHT, SODIUM.model_copy(update={"unit": "mmol/L"})),
    unit="L",
    source=Source(
        citation="Adrogué HJ, Madias NE. Hypernatremia. N Engl J Med 2000;342:1493-1499 (total body water 0.6 of "
        "weight in children and non-elderly men, 0.5 in non-elderly women and elderly men, 0.45 in elderly women).",
        url="https://doi.org/10.1056/NEJM200005183422007",
    ),
    compute=_free_water_deficit,
    bands=(
        Band(high=0, label="no deficit", meaning="sodium below 140 mmol/L: water excess, not a deficit"),
        Band(low=0, label="free water deficit", meaning="litres of free water to bring sodium to 140 mmol/L"),
    ),
    synonyms=("free water deficit", "FWD", "water deficit"),
    indications=("hypernatraemia", "hypernatremia", "dehydration", "free water replacement"),
    digits=1,
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


SODIUM_CORRECTION = Calculator(
    name="sodium_correction_hyperglycemia",
    title="Sodium corrected for hyperglycaemia (Hillier)",
    inputs=(SODIUM, GLUCOSE),
    unit="mEq/L",
    source=Source(
        citation="Hillier TA, Abbott RD, Barrett EJ. Hyponatremia: evaluating the correction factor for "
        "hyperglycemia. Am J Med 1999;106:399-403 (2.4 mEq/L per 100 mg/dL; Katz MA. Hyperglycemia-induced "
        "hyponatremia - calculation of expected serum sodium depression. N Engl J Med 1973;289:843-844: 1.6).",
        url="https://doi.org/10.1016/S0002-9343(99)00055-8",
        bands_citation="Serum sodium reference interval 135-145 mEq/L.",
    ),
    compute=_sodium_correction,
    bands=(
        Band(high=135, label="low", meaning="corrected sodium below 135 mEq/L: true (hypotonic) hyponatraemia"),
        Band(low=135, high=146, label="normal", meaning="135-145 mEq/L: the low sodium is from the glucose"),
        Band(low=146, label="high", meaning="corrected sodium above 145 mEq/L: hypernatraemia (free water deficit)"),
    ),
    synonyms=("corrected sodium", "sodium correction", "sodium correction for hyperglycemia", "Hillier", "Katz"),
    indications=("hyperglycaemia", "hyponatraemia with high glucose", "DKA", "HHS", "pseudohyponatraemia"),
)


TOTAL_CHOLESTEROL = Input(
    name="total_cholesterol",
    label="total cholesterol",
    unit="mg/dL",
    substance="cholesterol",
    minimum=40,
    maximum=1000,
    synonyms=("total cholesterol", "TC", "cholesterol", "Chol"),
)
HDL = Input(
    name="hdl",
    label="HDL cholesterol",
    unit="mg/dL",
    substance="cholesterol",
    minimum=5,
    maximum=200,
    synonyms=("HDL", "HDL cholesterol", "HDL-C", "high-density lipoprotein"),
)
TRIGLYCERIDES = Input(
    name="triglycerides",
    label="triglycerides",
    unit="mg/dL",
    substance="triglycerides",
    minimum=10,
    maximum=10000,
    synonyms=("triglycerides", "TG", "TGs", "trigs"),
)
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


LDL_FRIEDEWALD = Calculator(
    name="ldl_friedewald",
    title="LDL cholesterol, calculated (Friedewald)",
    inputs=(TOTAL_CHOLESTEROL, HDL, TRIGLYCERIDES),
    unit="mg/dL",
    source=Source(
        citation="Friedewald WT, Levy RI, Fredrickson DS. Estimation of the concentration of low-density lipoprotein "
        "cholesterol in plasma, without use of the preparative ultracentrifuge. Clin Chem 1972;18:499-502.",
        url="https://doi.org/10.1093/clinchem/18.6.499",
        bands_citation="Expert Panel on Detection, Evaluation, and Treatment of High Blood Cholesterol in Adults. "
        "Executive summary of the third report of the National Cholesterol Education Program (NCEP) (Adult Treatment "
        "Panel III). JAMA 2001;285:2486-2497.",
    ),
    compute=_ldl,
    bands=(
        Band(high=100, label="optimal", meaning="below 100 mg/dL"),
        Band(low=100, high=130, label="near or above optimal", meaning="100-129 mg/dL"),
        Band(low=130, high=160, label="borderline high", meaning="130-159 mg/dL"),
        Band(low=160, high=190, label="high", meaning="160-189 mg/dL"),
        Band(low=190, label="very high", meaning="190 mg/dL or more"),
    ),
    synonyms=("LDL", "LDL cholesterol", "LDL-C", "calculated LDL", "Friedewald"),
    indications=("cardiovascular risk", "hyperlipidaemia", "lipid panel", "statin"),
    digits=0,
)


INSULIN = Input(
    name="insulin",
    label="fasting insulin (µU/mL = mU/L)",
    unit="uU/mL",
    minimum=0.5,
    maximum=1000,
    synonyms=("insulin", "fasting insulin", "serum insulin"),
)


def _homa_ir(v: Values, steps: Steps) -> float:
    insulin, glucose = v["insulin"], v["glucose"]
    value = insulin * glucose / 405
    steps.add(
        "HOMA-IR = fasting insulin (µU/mL) × fasting glucose (mg/dL) / 405 (= glucose in mmol/L / 22.5)"
        f" = {insulin:g} × {glucose:g} / 405 = {value:.2f}"
    )
    return float(value)


HOMA_IR = Calculator(
    name="homa_ir",
    title="HOMA-IR (homeostasis model assessment of insulin resistance)",
    inputs=(INSULIN, GLUCOSE.model_copy(update={"label": "fasting glucose"})),
    unit="index",
    source=Source(
        citation="Matthews DR, Hosker JP, Rudenski AS, et al. Homeostasis model assessment: insulin resistance and "
        "beta-cell function from fasting plasma glucose and insulin concentrations in man. Diabetologia "
        "1985;28:412-419.",
        url="https://doi.org/10.1007/BF00280883",
    ),
    compute=_homa_ir,
    synonyms=("HOMA-IR", "HOMA", "homeostasis model assessment", "insulin resistance index"),
    indications=("insulin resistance", "metabolic syndrome", "prediabetes"),
    digits=2,
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


MAINTENANCE_FLUIDS = Calculator(
    name="maintenance_fluids",
    title="Maintenance fluids (Holliday-Segar, 4-2-1 rule)",
    inputs=(WEIGHT,),
    unit="mL/h",
    source=Source(
        citation="Holliday MA, Segar WE. The maintenance need for water in parenteral fluid therapy. Pediatrics "
        "1957;19:823-832 (100, 50 and 20 mL/kg/day for the first 10 kg, the next 10 kg and the rest; the hourly "
        "4-2-1 rule rounds them).",
    ),
    compute=_maintenance_fluids,
    synonyms=("maintenance fluids", "maintenance fluid rate", "Holliday-Segar", "4-2-1 rule", "maintenance IV fluids"),
    indications=("IV fluids", "fluid requirement", "paediatric fluids"),
    digits=0,
)

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
