"""Kidney function (issue 19): the race-free CKD-EPI 2021 and the MDRD (IDMS, 175) eGFR, the Cockcroft-Gault
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
from clinrag.calculators.common import SEX
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values
from clinrag.calculators.units import convert

CREATININE = Input(
    name="creatinine",
    label="serum creatinine",
    unit="mg/dL",
    substance="creatinine",
    minimum=0.1,
    maximum=30,
    synonyms=("creatinine", "Cr", "Creat", "SCr", "serum creatinine", "plasma creatinine"),
)
AGE_ADULT = Input(
    name="age",
    label="age (adults, the equations' population)",
    unit="year",
    minimum=18,
    maximum=120,
    synonyms=("age", "years old", "yo", "y/o"),
)

KDIGO_GFR_BANDS = (
    Band(high=15, label="G5", meaning="kidney failure (GFR < 15)"),
    Band(low=15, high=30, label="G4", meaning="severely decreased GFR (15-29)"),
    Band(low=30, high=45, label="G3b", meaning="moderately to severely decreased GFR (30-44)"),
    Band(low=45, high=60, label="G3a", meaning="mildly to moderately decreased GFR (45-59)"),
    Band(low=60, high=90, label="G2", meaning="mildly decreased GFR (60-89); CKD only with markers of kidney damage"),
    Band(low=90, label="G1", meaning="normal or high GFR (≥ 90); CKD only with markers of kidney damage"),
)
KDIGO_2012 = (
    "Kidney Disease: Improving Global Outcomes (KDIGO) CKD Work Group. KDIGO 2012 clinical practice guideline for "
    "the evaluation and management of chronic kidney disease. Kidney Int Suppl 2013;3:1-150 (GFR categories G1-G5)."
)


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


CKD_EPI_2021 = Calculator(
    name="ckd_epi_2021",
    title="eGFR, CKD-EPI 2021 creatinine equation (race-free)",
    inputs=(AGE_ADULT, SEX, CREATININE),
    unit="mL/min/1.73 m²",
    source=Source(
        citation="Inker LA, Eneanya ND, Coresh J, et al. New creatinine- and cystatin C-based equations to estimate "
        "GFR without race. N Engl J Med 2021;385:1737-1749.",
        url="https://doi.org/10.1056/NEJMoa2102953",
        bands_citation=KDIGO_2012,
    ),
    compute=_ckd_epi_2021,
    bands=KDIGO_GFR_BANDS,
    synonyms=("CKD-EPI", "CKD-EPI 2021", "eGFR", "estimated GFR", "glomerular filtration rate", "GFR"),
    indications=("kidney function", "renal function", "CKD staging", "chronic kidney disease", "drug dosing"),
    digits=0,
)


BLACK = Input(
    name="black",
    label="Black race (the 2006 equation's ×1.212; race-free estimates are recommended, Delgado 2021)",
    kind="boolean",
    required=False,
    synonyms=("Black", "African American"),
)


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


MDRD = Calculator(
    name="mdrd_gfr",
    title="eGFR, MDRD Study equation (IDMS-traceable creatinine, 175)",
    inputs=(AGE_ADULT, SEX, CREATININE, BLACK),
    unit="mL/min/1.73 m²",
    source=Source(
        citation="Levey AS, Coresh J, Greene T, et al. Using standardized serum creatinine values in the Modification "
        "of Diet in Renal Disease Study equation for estimating glomerular filtration rate. Ann Intern Med "
        "2006;145:247-254.",
        url="https://doi.org/10.7326/0003-4819-145-4-200608150-00004",
        bands_citation=KDIGO_2012,
    ),
    compute=_mdrd,
    bands=KDIGO_GFR_BANDS,
    synonyms=("MDRD", "MDRD GFR", "MDRD eGFR", "4-variable MDRD", "Modification of Diet in Renal Disease"),
    indications=("kidney function", "renal function", "CKD staging", "chronic kidney disease"),
    digits=0,
)


WEIGHT_BASIS = Input(
    name="weight_basis",
    label="weight used: actual (Cockcroft-Gault 1976) or by_bmi (MDCalc: actual, ideal or adjusted by BMI)",
    kind="choice",
    choices=("actual", "by_bmi"),
    default="actual",
    default_rule="Cockcroft and Gault (1976) derived the equation with actual body weight",
)
CG_HEIGHT = HEIGHT.model_copy(
    update={"required": False, "label": "height (to choose the weight by BMI)", "minimum": 120}
)
"""Devine's ideal weight, which the BMI may choose, is for adults: below 120 cm it reaches zero and below."""


def _ideal_weight(female: bool, height_cm: float) -> float:
    """Devine's ideal body weight (kg): 50 (men) or 45.5 (women) + 2.3 kg per inch over 60 inches."""
    inches = convert(height_cm, "cm", "inch")
    return (45.5 if female else 50.0) + 2.3 * (inches - 60)


def _clearance(age: float, weight: float, creatinine: float, female: bool) -> float:
    return (140 - age) * weight / (72 * creatinine) * (0.85 if female else 1.0)


def _ideal_and_adjusted(female: bool, weight: float, height: float) -> tuple[float, float]:
    """Devine's ideal weight and the adjusted weight, ideal + 0.4 × (actual − ideal), in kg."""
    ideal = _ideal_weight(female, height)
    return ideal, ideal + 0.4 * (weight - ideal)


def _weight_by_bmi(v: Values, steps: Steps) -> tuple[float, str]:
    """The weight the BMI picks (MDCalc), writing the BMI, the ideal and the adjusted weights; and its name."""
    weight, height = v["weight"], v["height"]
    bmi = weight / (height / 100) ** 2
    ideal, adjusted = _ideal_and_adjusted(_female(v), weight, height)
    inches = convert(height, "cm", "inch")
    steps.add(f"BMI = {weight:g} kg / ({height / 100:g} m)² = {bmi:.1f} kg/m²")
    base = "45.5" if _female(v) else "50"
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


COCKCROFT_GAULT = Calculator(
    name="cockcroft_gault",
    title="Creatinine clearance, Cockcroft-Gault equation",
    inputs=(AGE_ADULT, SEX, WEIGHT, CREATININE, CG_HEIGHT, WEIGHT_BASIS),
    unit="mL/min",
    source=Source(
        citation="Cockcroft DW, Gault MH. Prediction of creatinine clearance from serum creatinine. Nephron "
        "1976;16:31-41. Ideal body weight: Devine BJ. Gentamicin therapy. Drug Intell Clin Pharm 1974;8:650-655. "
        "Weight by BMI (weight_basis by_bmi): the MDCalc convention (Winter MA, Guhr KN, Berg GM. Impact of various "
        "body weights and serum creatinine concentrations on the bias and accuracy of the Cockcroft-Gault equation. "
        "Pharmacotherapy 2012;32:604-612).",
        url="https://doi.org/10.1159/000180580",
        bands_citation="U.S. Food and Drug Administration. Pharmacokinetics in patients with impaired renal function "
        "- study design, data analysis, and impact on dosing. Guidance for industry, 2020 (renal function categories "
        "by creatinine clearance).",
    ),
    compute=_cockcroft_gault,
    bands=(
        Band(high=15, label="kidney failure", meaning="CrCl < 15 mL/min"),
        Band(low=15, high=30, label="severely decreased", meaning="CrCl 15-29 mL/min"),
        Band(low=30, high=60, label="moderately decreased", meaning="CrCl 30-59 mL/min"),
        Band(low=60, high=90, label="mildly decreased", meaning="CrCl 60-89 mL/min"),
        Band(low=90, label="normal", meaning="CrCl ≥ 90 mL/min"),
    ),
    synonyms=("Cockcroft-Gault", "Cockcroft Gault", "CrCl", "creatinine clearance", "CG"),
    indications=("kidney function", "renal drug dosing", "drug dosing", "renal function"),
    digits=0,
)


SODIUM = Input(
    name="sodium",
    label="serum sodium",
    unit="mmol/L",
    substance="sodium",
    minimum=90,
    maximum=200,
    synonyms=("sodium", "Na", "serum sodium", "plasma sodium"),
)
URINE_SODIUM = Input(
    name="urine_sodium",
    label="urine sodium",
    unit="mmol/L",
    substance="sodium",
    minimum=1,
    maximum=400,
    synonyms=("urine sodium", "UNa", "urinary sodium", "spot urine sodium"),
)
URINE_CREATININE = Input(
    name="urine_creatinine",
    label="urine creatinine",
    unit="mg/dL",
    substance="creatinine",
    minimum=1,
    maximum=1000,
    synonyms=("urine creatinine", "UCr", "urinary creatinine", "spot urine creatinine"),
)


def _fena(v: Values, steps: Steps) -> float:
    sodium, creatinine = v["sodium"], v["creatinine"]
    urine_sodium, urine_creatinine = v["urine_sodium"], v["urine_creatinine"]
    value = urine_sodium * creatinine / (sodium * urine_creatinine) * 100
    steps.add(
        "FENa = (urine Na × serum Cr) / (serum Na × urine Cr) × 100"
        f" = ({urine_sodium:g} × {creatinine:g}) / ({sodium:g} × {urine_creatinine:g}) × 100 = {value:.2f}%"
    )
    return float(value)


FENA = Calculator(
    name="fena",
    title="Fractional excretion of sodium (FENa)",
    inputs=(SODIUM, CREATININE, URINE_SODIUM, URINE_CREATININE),
    unit="%",
    source=Source(
        citation="Espinel CH. The FENa test: use in the differential diagnosis of acute renal failure. JAMA "
        "1976;236:579-581.",
        url="https://doi.org/10.1001/jama.1976.03270060029022",
        bands_citation="Espinel 1976 (< 1% prerenal); Miller TR, Anderson RJ, Linas SL, et al. Urinary diagnostic "
        "indices in acute renal failure: a prospective study. Ann Intern Med 1978;89:47-50; Steiner RW. Interpreting "
        "the fractional excretion of sodium. Am J Med 1984;77:699-702 (diuretics, CKD, contrast and pigment "
        "nephropathy confound it).",
    ),
    compute=_fena,
    bands=(
        Band(high=1, label="prerenal", meaning="FENa < 1%: prerenal azotaemia (sodium avidly reabsorbed)"),
        Band(low=1, high=2, label="indeterminate", meaning="FENa 1-2%: either prerenal or intrinsic"),
        Band(
            low=2,
            label="intrinsic renal",
            meaning="FENa ≥ 2%: intrinsic renal injury such as acute tubular necrosis (or diuretics, CKD)",
        ),
    ),
    synonyms=("FENa", "FE Na", "fractional excretion of sodium", "fractional sodium excretion"),
    indications=("acute kidney injury", "prerenal vs intrinsic AKI", "AKI", "acute tubular necrosis"),
    digits=2,
)

CALCULATORS = (CKD_EPI_2021, MDRD, COCKCROFT_GAULT, FENA)
