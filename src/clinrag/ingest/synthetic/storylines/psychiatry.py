"""Inpatient psychiatry storylines: depression, alcohol withdrawal, mania and psychosis."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    SocialFact,
    Storyline,
)

CITALOPRAM = Medication("Citalopram", "20", "mg", "PO", "DAILY", "TAB", "for depression")
TRAZODONE_PRN = Medication("TraZODone", "50", "mg", "PO", "QHS:PRN insomnia", "TAB", "for sleep")
THIAMINE = Medication("Thiamine", "100", "mg", "PO", "DAILY", "TAB", "vitamin B1")
FOLIC_ACID = Medication("Folic Acid", "1", "mg", "PO", "DAILY", "TAB", "vitamin supplement")
MULTIVITAMIN = Medication("Multivitamins", "1", "TAB", "PO", "DAILY", "TAB", "vitamin supplement")

MAJOR_DEPRESSION = Storyline(
    key="major_depression",
    title="Recurrent severe major depressive episode with suicidal ideation",
    service="PSYCH",
    note_service="PSYCHIATRY",
    ages=(18, 80),
    length_of_stay=(5, 21),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("depression, suicidal ideation", "worsening depression", "SI"),
    diagnosis=Diagnosis(
        "F332",
        (
            "major depressive disorder, recurrent, severe",
            "severe recurrent MDD without psychotic features",
            "recurrent major depression",
        ),
    ),
    secondary=(Diagnosis("R45851", ("suicidal ideation", "passive SI")),),
    medications=(CITALOPRAM, TRAZODONE_PRN),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and a history of depression who presents with 6 weeks "
        "of low mood, anhedonia, early morning awakening, poor appetite with a 10 lb weight loss, and "
        "worsening passive suicidal ideation. {He} stopped {his} antidepressant several months ago. {He} was "
        "brought in by a friend after disclosing thoughts that {he} would be better off dead.",
        "{age} yo {man} w/ {history}, prior MDE x2, no prior suicide attempts, p/w 2 months of depressed mood, "
        "hopelessness, guilt and SI without plan in the setting of job loss. Denies HI, AH/VH. Medically "
        "cleared in the ED and admitted to inpatient psychiatry for {diagnosis}.",
        "This {age} year old {man} with {history} was referred by {his} outpatient therapist for increasingly "
        "severe depressive symptoms, including staying in bed most of the day, not eating and thinking about "
        "overdosing on pills. {He} agreed to voluntary admission.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "MSE: disheveled, psychomotor slowing, mood 'empty', affect constricted and tearful; endorses "
                "passive SI without plan; no AH/VH; insight and judgment fair.",
                "Mental status: poor eye contact, slowed speech, mood 'hopeless', affect blunted; thought process "
                "linear; +passive SI, denies intent or plan.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Serum and urine toxicology screens negative.", "Utox and serum tox negative."),
        ),
        Finding(
            "Pertinent Results",
            ("TSH 2.3, B12 412, RPR nonreactive.", "TSH, B12 and folate within normal limits."),
            probability=0.8,
        ),
        Finding("Pertinent Results", ("ECG: sinus rhythm, QTc 426 ms.", "Baseline EKG QTc 426.")),
        Finding("Pertinent Results", ("PHQ-9 score 23 on admission, 11 at discharge.",), probability=0.5),
        Finding(
            "Pertinent Results",
            ("Incidental mild macrocytosis (MCV 101) without anemia.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E871", ("hyponatremia", "low serum sodium")),
            probability=0.08,
            course=(
                "Sodium drifted to 129 after citalopram was started, consistent with {complication} from SSRI-"
                "induced SIADH; it improved to 134 with fluid restriction and citalopram was continued with lab "
                "monitoring.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the inpatient psychiatric unit on a conditional voluntary for {diagnosis} "
            "with passive suicidal ideation. {He} was placed on 15-minute checks.",
            "# {diagnosis}: admitted on a CV. Unit safety maintained with Q15 checks; no restraints or "
            "seclusion required during the stay.",
        ),
        (
            "Citalopram was started at 10 mg daily and increased to 20 mg on day 4, which {he} tolerated without "
            "side effects. Trazodone was used as needed for sleep. {He} participated in groups and individual "
            "therapy, and mood, sleep and appetite gradually improved.",
            "Started citalopram 10 mg -> 20 mg daily (baseline QTc 426). Engaged in milieu, CBT-based groups and "
            "family meeting. By week 2 {he} was brighter, eating and sleeping 7 hours.",
        ),
        (
            "At discharge {he} denied suicidal ideation, intent or plan, was future-oriented, and collaborated on "
            "a safety plan. Risk factors were mitigated and {his} acute risk was assessed as low.",
            "Safety: denied SI for >72 hours before discharge; safety plan completed with family; firearms "
            "screened (none in home). Low acute risk at discharge.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives alone; recently lost {his} job as a ___. Denies alcohol or drug use.",
                "Divorced, lives with a roommate; drinks socially, denies illicit drugs.",
            )
        ),
    ),
    instructions=(
        "You were admitted to the psychiatric unit for severe depression with thoughts of suicide. You were "
        "started on citalopram 20 mg daily, which can take 4-6 weeks for its full effect. Do not stop it "
        "suddenly. If you have thoughts of harming yourself, call 988, go to the nearest emergency room, or call "
        "911.",
        "You were hospitalised for depression. Please take citalopram every morning, avoid alcohol, and keep "
        "your appointments with your psychiatrist and therapist. Use the safety plan you made with the team if "
        "your mood worsens.",
    ),
    followup=(
        "Follow up with your outpatient psychiatrist Dr. ___ on ___ and with your therapist within 1 week.",
        "Partial hospitalization program intake on ___; psychiatry follow-up within 7 days.",
    ),
    next_storylines=("major_depression", "alcohol_withdrawal"),
)

ALCOHOL_WITHDRAWAL = Storyline(
    key="alcohol_withdrawal",
    title="Alcohol use disorder with withdrawal managed with a benzodiazepine taper",
    service="PSYCH",
    note_service="PSYCHIATRY",
    ages=(24, 75),
    length_of_stay=(3, 7),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"),
    discharge_locations=("HOME", "AGAINST ADVICE"),
    chief_complaints=("alcohol withdrawal", "tremors, wants detox", "EtOH withdrawal"),
    diagnosis=Diagnosis(
        "F10230",
        ("alcohol withdrawal", "alcohol use disorder with withdrawal", "EtOH withdrawal"),
    ),
    secondary=(Diagnosis("D696", ("thrombocytopenia", "alcohol-related thrombocytopenia")),),
    medications=(
        THIAMINE,
        FOLIC_ACID,
        MULTIVITAMIN,
        Medication("Naltrexone", "50", "mg", "PO", "DAILY", "TAB", "to reduce alcohol cravings"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and severe alcohol use disorder who presents "
        "requesting detoxification. {He} drinks about a pint of vodka daily and had {his} last drink 14 hours "
        "before arrival. {He} now has tremor, sweats, anxiety and nausea, without hallucinations.",
        "{age} yo {man} w/ {history}, EtOH use disorder (12-18 beers/day), hx of withdrawal without seizures "
        "or DTs, p/w tremulousness and diaphoresis ~12 hrs after last drink. CIWA 18 in ED, given lorazepam 2 mg "
        "x2. Admitted for {diagnosis}.",
        "This {age} year old {man} with {history} was brought in by family after {he} tried to stop drinking "
        "on {his} own and became shaky, sweaty and unable to sleep. {He} reports daily heavy drinking for years "
        "and wants help to stop.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Tremulous and diaphoretic, HR 118, BP 162/98; oriented x3; no visual or tactile hallucinations.",
                "Coarse bilateral hand tremor, diaphoresis, anxious affect; alert and oriented; no asterixis.",
            ),
        ),
        Finding("Pertinent Results", ("Serum ethanol 212 on arrival.", "Serum EtOH 212.")),
        Finding(
            "Pertinent Results",
            ("AST 142, ALT 68; platelets 98; MCV 103.", "LFTs: AST 142 / ALT 68 (ratio >2); plt 98; MCV 103."),
        ),
        Finding("Pertinent Results", ("Peak CIWA-Ar score 22.", "Maximum CIWA 22 on hospital day 1.")),
        Finding(
            "Pertinent Results",
            ("ECG incidentally shows first-degree AV block (PR 224 ms).",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E8342", ("hypomagnesemia", "low magnesium")),
            probability=0.35,
            course=(
                "Admission magnesium was 1.2 ({complication}); it was repleted IV and {he} was discharged on oral "
                "magnesium oxide.",
                "{He} had {complication} requiring daily IV repletion; switched to PO magnesium at discharge.",
            ),
            medications=(Medication("Magnesium Oxide", "400", "mg", "PO", "BID", "TAB", "magnesium supplement"),),
        ),
        Complication(
            Diagnosis("R569", ("withdrawal seizure", "alcohol withdrawal seizure")),
            probability=0.08,
            course=(
                "Approximately 30 hours after {his} last drink {he} had a brief {complication} (generalized "
                "tonic-clonic), treated with IV lorazepam; head CT was negative and there was no recurrence on a "
                "higher benzodiazepine dose.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted for {diagnosis}. {He} was managed with symptom-triggered lorazepam per CIWA "
            "protocol, then transitioned to a fixed lorazepam taper over 4 days, completed prior to discharge.",
            "# {diagnosis}: CIWA-guided LORazepam with a requirement of 8 mg in the first 24 hours, followed by a "
            "scheduled benzodiazepine taper (2 mg q6h -> off over 4 days). No DTs.",
            "{Mr} ___ was treated for {diagnosis} with IV, then oral, lorazepam tapered by CIWA scores, which "
            "were consistently below 8 by hospital day 3.",
        ),
        (
            "{He} received high-dose IV thiamine for 3 days, then oral thiamine, folate and a multivitamin. "
            "Electrolytes were repleted.",
            "Wernicke prophylaxis with thiamine 500 mg IV TID x3 days, then PO. Nutrition consulted.",
        ),
        (
            "Addiction psychiatry and social work met with {him}; {he} was started on naltrexone (LFTs below 5x "
            "ULN) and referred to an intensive outpatient program.",
            "Motivational interviewing performed; pt interested in sobriety. Naltrexone 50 mg daily started. "
            "Given AA meeting list and IOP referral.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Drinks 1 pint of vodka daily for the past ___ years; prior withdrawal without seizures or DTs.",
                "Reports 12-18 beers daily; last drink the morning of admission. Smokes 1 ppd. Denies other drugs.",
            )
        ),
    ),
    instructions=(
        "You were admitted for alcohol withdrawal. You were treated with a tapering dose of lorazepam to keep "
        "you safe, and with vitamins. Drinking alcohol again after detox can be dangerous. Please take "
        "naltrexone daily to reduce cravings and attend the outpatient program.",
        "You were in the hospital to safely withdraw from alcohol. Continue thiamine, folic acid and a "
        "multivitamin. Do not take naltrexone with any opioid medicines. Call 911 for seizures, confusion or "
        "hallucinations.",
    ),
    followup=(
        "Intensive outpatient program intake on ___. Follow up with your PCP in 1-2 weeks for repeat LFTs and "
        "platelets.",
    ),
    next_storylines=("major_depression", "upper_gi_bleed", "alcohol_withdrawal"),
)

BIPOLAR_MANIA = Storyline(
    key="bipolar_mania",
    title="Bipolar I disorder, manic episode with psychotic features, treated with lithium",
    service="PSYCH",
    note_service="PSYCHIATRY",
    ages=(18, 65),
    length_of_stay=(7, 24),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("mania", "bizarre behavior, not sleeping", "agitation, grandiosity"),
    diagnosis=Diagnosis(
        "F312",
        (
            "bipolar I disorder, current episode manic with psychotic features",
            "acute mania with psychotic features",
            "bipolar mania",
        ),
    ),
    medications=(
        Medication("Lithium Carbonate", "300", "mg", "PO", "TID", "CAP", "to stabilize your mood"),
        Medication("OLANZapine", "10", "mg", "PO", "QHS", "TAB", "for mood and racing thoughts"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and bipolar I disorder who was brought in by police "
        "after family reported {he} had not slept for 4 nights, spent thousands of dollars online and believed "
        "{he} had been chosen to lead a new world government. {He} stopped lithium ___ months ago.",
        "{age} yo {man} w/ {history}, BPAD I with prior manic hospitalizations, off meds x3 months, BIB EMS for "
        "agitation and pressured speech in a public place. Grandiose and irritable in the ED, required IM "
        "olanzapine. Admitted for {diagnosis}.",
        "This {age} year old {man} with {history} presented with a week of decreased need for sleep, racing "
        "thoughts, hypersexuality and a belief that {he} has special powers. Family reports similar episodes "
        "in the past when off medication.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "MSE: pressured speech, flight of ideas, grandiose delusions, euphoric and irritable affect; "
                "denies SI/HI; insight and judgment poor.",
                "Mental status: hyperverbal and intrusive, labile affect, tangential thought process with "
                "grandiose content; no AH/VH reported.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Lithium level 0.9 on day 9.", "Steady-state lithium level 0.9 mEq/L."),
        ),
        Finding(
            "Pertinent Results",
            ("TSH 1.6, creatinine 0.8, calcium 9.4 prior to lithium.", "Pre-lithium labs: TSH, BUN/Cr, Ca WNL."),
        ),
        Finding("Pertinent Results", ("Urine toxicology negative.",), probability=0.8),
        Finding(
            "Pertinent Results",
            ("Incidental mild elevation of triglycerides (212).",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("G251", ("lithium-induced tremor", "drug-induced tremor")),
            probability=0.15,
            course=(
                "{He} developed a fine {complication} of the hands as lithium was titrated; level was "
                "therapeutic and low-dose propranolol was added with improvement.",
            ),
            medications=(Medication("Propranolol", "10", "mg", "PO", "BID", "TAB", "for tremor"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the inpatient psychiatric unit for {diagnosis}. {He} was initially "
            "intrusive and required PRN medications for agitation but no seclusion or restraints.",
            "# {diagnosis}: admitted under a 12(b) hold, later signing a conditional voluntary. Milieu "
            "management with low-stimulation environment.",
        ),
        (
            "Lithium was restarted and titrated to 300 mg three times daily with a therapeutic level of 0.9, and "
            "olanzapine 10 mg at bedtime was added for psychosis and sleep. Over two weeks {his} sleep normalised, "
            "speech slowed and grandiosity resolved.",
            "Lithium titrated to 900 mg/day (level 0.9); olanzapine 10 mg QHS. By discharge sleeping 7-8 hours, "
            "euthymic, no longer endorsing grandiose beliefs.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives with {his} parents; unemployed. Occasional cannabis use, denies alcohol.",
                "Lives with a partner; works in retail. Denies substance use.",
            )
        ),
    ),
    instructions=(
        "You were admitted for a manic episode of bipolar disorder. Please take lithium three times a day and "
        "olanzapine at bedtime. Drink plenty of water, and do not take ibuprofen or naproxen, which raise "
        "lithium levels. You need a lithium level checked in 1 week.",
        "You were hospitalised for mania. Staying on your medicines is the best way to prevent another episode. "
        "Call your doctor if you develop vomiting, diarrhea, confusion or a coarse tremor, which can be signs of "
        "a high lithium level.",
    ),
    followup=("Psychiatry follow-up within 1 week; lithium level, BMP and TSH in 5-7 days.",),
    next_storylines=("bipolar_mania",),
)

SCHIZOPHRENIA_EXACERBATION = Storyline(
    key="schizophrenia_exacerbation",
    title="Acute exacerbation of paranoid schizophrenia",
    service="PSYCH",
    note_service="PSYCHIATRY",
    ages=(18, 62),
    length_of_stay=(7, 28),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "PSYCH FACILITY", "HOME HEALTH CARE"),
    chief_complaints=("paranoia, auditory hallucinations", "psychosis", "bizarre behavior"),
    diagnosis=Diagnosis(
        "F200",
        ("paranoid schizophrenia", "schizophrenia with acute psychotic exacerbation", "decompensated schizophrenia"),
    ),
    medications=(
        Medication("RisperiDONE", "2", "mg", "PO", "BID", "TAB", "for psychosis"),
        TRAZODONE_PRN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and schizophrenia who was brought in by {his} case "
        "manager after {he} barricaded {his} apartment door, believing that neighbors were monitoring {him} "
        "through the walls. {He} reports hearing voices commenting on {his} actions and stopped risperidone "
        "about 2 months ago.",
        "{age} yo {man} w/ {history}, schizophrenia with multiple prior admissions, off antipsychotics, BIB "
        "police for yelling at strangers and responding to internal stimuli. Paranoid, guarded, poor self-care. "
        "Admitted for {diagnosis}.",
        "This {age} year old {man} with {history} was referred from {his} outpatient clinic for worsening "
        "paranoid delusions, command auditory hallucinations and not eating because {he} believes the food is "
        "poisoned.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "MSE: guarded, internally preoccupied and responding to internal stimuli; paranoid delusions; "
                "thought blocking; denies SI/HI; insight and judgment poor.",
                "Disheveled, poor eye contact; affect flat; thought process disorganized with persecutory "
                "content; endorses AH.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Urine toxicology positive for cannabinoids only.", "Utox: THC positive, otherwise negative."),
        ),
        Finding(
            "Pertinent Results",
            ("HbA1c 5.4%, fasting lipids within normal limits; ECG QTc 438 ms.",),
            probability=0.8,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental mild transaminase elevation (ALT 58), resolved on repeat.",),
            probability=0.12,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("G2402", ("acute dystonic reaction", "antipsychotic-induced acute dystonia")),
            probability=0.1,
            course=(
                "On day 3 {he} developed torticollis and jaw stiffness consistent with an {complication}, which "
                "resolved with IM benztropine; oral benztropine was continued.",
            ),
            medications=(Medication("Benztropine Mesylate", "1", "mg", "PO", "BID", "TAB", "for muscle stiffness"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the inpatient psychiatric unit for {diagnosis} in the setting of medication "
            "nonadherence. {He} was initially isolative and refused medications.",
            "# {diagnosis}: admitted involuntarily on a 12(b); court-ordered treatment was not needed as {he} "
            "eventually accepted oral medications.",
        ),
        (
            "Risperidone was restarted and titrated to 2 mg twice daily. Over the following two weeks {his} "
            "hallucinations decreased in intensity, paranoia lessened and {he} began attending groups and eating "
            "meals on the unit.",
            "Risperidone 1 mg -> 2 mg BID, well tolerated. Gradual reduction in AH and persecutory ideation; "
            "improved self-care. Discussed long-acting injectable for future adherence.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives alone in supported housing; has a case manager and receives disability benefits.",
                "Lives in a group residence; smokes 1 ppd; uses cannabis several times a week.",
            )
        ),
    ),
    instructions=(
        "You were admitted to the psychiatric unit because your symptoms of schizophrenia had returned after "
        "stopping your medication. Please take risperidone twice a day. Avoid marijuana, which can make voices "
        "and paranoia worse.",
        "You were hospitalised for psychosis. Continue risperidone every day and keep your appointments. Your "
        "case manager will check in with you this week.",
    ),
    followup=("Follow up with your outpatient psychiatrist and case manager within 7 days.",),
    next_storylines=("schizophrenia_exacerbation",),
)

STORYLINES: tuple[Storyline, ...] = (
    MAJOR_DEPRESSION,
    ALCOHOL_WITHDRAWAL,
    BIPOLAR_MANIA,
    SCHIZOPHRENIA_EXACERBATION,
)
