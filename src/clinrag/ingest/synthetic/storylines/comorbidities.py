"""Chronic conditions a synthetic patient carries across admissions, with their home medications."""

from clinrag.ingest.synthetic.model import Comorbidity, Diagnosis, Medication

ALBUTEROL_INHALER = Medication(
    "Albuterol Inhaler", "2", "PUFF", "IH", "Q4H:PRN wheeze/SOB", "INH", "rescue inhaler for wheezing"
)

HYPERTENSION = Comorbidity(
    key="hypertension",
    diagnosis=Diagnosis("I10", ("hypertension", "HTN", "essential hypertension")),
    medications=(
        Medication("Lisinopril", "10", "mg", "PO", "DAILY", "TAB", "for blood pressure"),
        Medication("amLODIPine", "5", "mg", "PO", "DAILY", "TAB", "for blood pressure"),
    ),
    prevalence=0.35,
    min_age=30,
)

TYPE_2_DIABETES = Comorbidity(
    key="type_2_diabetes",
    diagnosis=Diagnosis("E119", ("type 2 diabetes", "T2DM", "non-insulin-dependent diabetes mellitus")),
    medications=(Medication("MetFORMIN (Glucophage)", "500", "mg", "PO", "BID", "TAB", "for diabetes"),),
    prevalence=0.18,
    min_age=30,
)

HYPERLIPIDEMIA = Comorbidity(
    key="hyperlipidemia",
    diagnosis=Diagnosis("E785", ("hyperlipidemia", "HLD", "dyslipidemia")),
    medications=(Medication("Atorvastatin", "40", "mg", "PO", "QPM", "TAB", "for cholesterol"),),
    prevalence=0.3,
    min_age=30,
)

CHRONIC_KIDNEY_DISEASE = Comorbidity(
    key="ckd_stage_3",
    diagnosis=Diagnosis("N1831", ("CKD stage 3a", "chronic kidney disease stage 3a", "CKD III")),
    medications=(),
    prevalence=0.1,
    min_age=50,
)

COPD = Comorbidity(
    key="copd",
    diagnosis=Diagnosis("J449", ("COPD", "chronic obstructive pulmonary disease", "emphysema")),
    medications=(
        Medication("Tiotropium Bromide", "1", "CAP", "IH", "DAILY", "CAP", "maintenance inhaler"),
        ALBUTEROL_INHALER,
    ),
    prevalence=0.08,
    min_age=45,
)

GERD = Comorbidity(
    key="gerd",
    diagnosis=Diagnosis("K219", ("GERD", "gastroesophageal reflux disease", "acid reflux")),
    medications=(Medication("Omeprazole", "20", "mg", "PO", "DAILY", "CAP", "for acid reflux"),),
    prevalence=0.15,
    min_age=25,
)

HYPOTHYROIDISM = Comorbidity(
    key="hypothyroidism",
    diagnosis=Diagnosis("E039", ("hypothyroidism", "hypothyroid")),
    medications=(Medication("Levothyroxine Sodium", "75", "mcg", "PO", "DAILY", "TAB", "thyroid hormone"),),
    prevalence=0.1,
    min_age=25,
)

ATRIAL_FIBRILLATION = Comorbidity(
    key="atrial_fibrillation",
    diagnosis=Diagnosis("I480", ("paroxysmal atrial fibrillation", "pAF", "paroxysmal AF on apixaban")),
    medications=(
        Medication("Apixaban", "5", "mg", "PO", "BID", "TAB", "blood thinner to prevent stroke"),
        Medication("Metoprolol Succinate XL", "25", "mg", "PO", "DAILY", "TAB", "to control your heart rate"),
    ),
    prevalence=0.08,
    min_age=55,
)

OBSTRUCTIVE_SLEEP_APNEA = Comorbidity(
    key="obstructive_sleep_apnea",
    diagnosis=Diagnosis("G4733", ("obstructive sleep apnea", "OSA on CPAP", "OSA")),
    medications=(),
    prevalence=0.1,
    min_age=30,
)

OBESITY = Comorbidity(
    key="obesity",
    diagnosis=Diagnosis("E669", ("obesity", "obesity (BMI 34)")),
    medications=(),
    prevalence=0.2,
    min_age=18,
)

OSTEOARTHRITIS = Comorbidity(
    key="osteoarthritis",
    diagnosis=Diagnosis("M170", ("bilateral knee osteoarthritis", "OA of both knees", "osteoarthritis")),
    medications=(Medication("Acetaminophen", "500", "mg", "PO", "Q6H:PRN pain", "TAB", "for joint pain"),),
    prevalence=0.15,
    min_age=50,
)

ANXIETY = Comorbidity(
    key="anxiety",
    diagnosis=Diagnosis("F419", ("anxiety", "anxiety disorder", "generalized anxiety")),
    medications=(Medication("BusPIRone", "10", "mg", "PO", "BID", "TAB", "for anxiety"),),
    prevalence=0.1,
    min_age=18,
)

CHRONIC_LOW_BACK_PAIN = Comorbidity(
    key="chronic_low_back_pain",
    diagnosis=Diagnosis("M5450", ("chronic low back pain", "chronic LBP", "low back pain")),
    medications=(Medication("Gabapentin", "300", "mg", "PO", "TID", "CAP", "for nerve pain"),),
    prevalence=0.1,
    min_age=30,
)

GOUT = Comorbidity(
    key="gout",
    diagnosis=Diagnosis("M109", ("gout", "gouty arthritis")),
    medications=(Medication("Allopurinol", "100", "mg", "PO", "DAILY", "TAB", "to prevent gout attacks"),),
    prevalence=0.05,
    min_age=40,
)

ASTHMA = Comorbidity(
    key="asthma",
    diagnosis=Diagnosis("J45909", ("asthma", "mild persistent asthma")),
    medications=(
        Medication("Fluticasone Propionate 110mcg", "2", "PUFF", "IH", "BID", "INH", "controller inhaler"),
        ALBUTEROL_INHALER,
    ),
    prevalence=0.08,
    min_age=18,
)

BENIGN_PROSTATIC_HYPERPLASIA = Comorbidity(
    key="benign_prostatic_hyperplasia",
    diagnosis=Diagnosis("N400", ("BPH", "benign prostatic hyperplasia", "enlarged prostate")),
    medications=(Medication("Tamsulosin", "0.4", "mg", "PO", "QHS", "CAP", "for urinary symptoms"),),
    prevalence=0.25,
    min_age=50,
    sexes="M",
)

COMORBIDITIES: tuple[Comorbidity, ...] = (
    HYPERTENSION,
    TYPE_2_DIABETES,
    HYPERLIPIDEMIA,
    CHRONIC_KIDNEY_DISEASE,
    COPD,
    GERD,
    HYPOTHYROIDISM,
    ATRIAL_FIBRILLATION,
    OBSTRUCTIVE_SLEEP_APNEA,
    OBESITY,
    OSTEOARTHRITIS,
    ANXIETY,
    CHRONIC_LOW_BACK_PAIN,
    GOUT,
    ASTHMA,
    BENIGN_PROSTATIC_HYPERPLASIA,
)
