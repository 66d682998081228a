"""Cardiology and cardiac surgery storylines: myocardial infarction, heart failure, arrhythmia, CABG and AVR."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

ASPIRIN = Medication("Aspirin", "81", "mg", "PO", "DAILY", "TAB", "to prevent heart attack and stroke")
ATORVASTATIN = Medication("Atorvastatin", "80", "mg", "PO", "QPM", "TAB", "for cholesterol")
CLOPIDOGREL = Medication("Clopidogrel", "75", "mg", "PO", "DAILY", "TAB", "to keep your stent open")
TICAGRELOR = Medication("Ticagrelor", "90", "mg", "PO", "BID", "TAB", "to keep your stent open")
METOPROLOL_SUCCINATE = Medication(
    "Metoprolol Succinate XL", "50", "mg", "PO", "DAILY", "TAB", "for your heart rate and blood pressure"
)
METOPROLOL_TARTRATE = Medication(
    "Metoprolol Tartrate", "25", "mg", "PO", "BID", "TAB", "for your heart rate and blood pressure"
)
LISINOPRIL = Medication("Lisinopril", "5", "mg", "PO", "DAILY", "TAB", "to protect your heart")
NITROGLYCERIN_SL = Medication("Nitroglycerin SL", "0.4", "mg", "SL", "Q5MIN:PRN chest pain", "TAB", "for chest pain")
FUROSEMIDE = Medication("Furosemide", "40", "mg", "PO", "DAILY", "TAB", "water pill")
FUROSEMIDE_POSTOP = Medication("Furosemide", "20", "mg", "PO", "DAILY", "TAB", "water pill for 1 week")
POTASSIUM_CHLORIDE = Medication("Potassium Chloride", "20", "mEq", "PO", "DAILY", "TAB", "potassium supplement")
APIXABAN = Medication("Apixaban", "5", "mg", "PO", "BID", "TAB", "blood thinner to prevent stroke")
OXYCODONE_PRN = Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain")
ACETAMINOPHEN = Medication("Acetaminophen", "650", "mg", "PO", "Q6H", "TAB", "for pain")

CORONARY_ARTERY_DISEASE = Diagnosis("I2510", ("coronary artery disease", "CAD"))
ACUTE_KIDNEY_INJURY = Diagnosis("N179", ("acute kidney injury", "AKI"))
POSTOP_ATRIAL_FIBRILLATION = Complication(
    Diagnosis("I4891", ("postoperative atrial fibrillation", "post-op AF", "new atrial fibrillation")),
    probability=0.3,
    course=(
        "On POD#2 {he} developed {complication} with rates in the 130s; {he} was loaded with amiodarone and "
        "beta-blockade was uptitrated, with conversion to sinus rhythm within 24 hours.",
        "Course complicated by {complication} on POD 3, treated with IV then PO amiodarone; {he} remained in "
        "sinus rhythm thereafter. Given the brief duration, anticoagulation was not started.",
    ),
    medications=(Medication("Amiodarone", "200", "mg", "PO", "BID", "TAB", "to keep a normal heart rhythm"),),
)
POSTOP_BLOOD_LOSS_ANEMIA = Complication(
    Diagnosis("D62", ("acute blood loss anemia", "postoperative anemia")),
    probability=0.3,
    course=(
        "Hct drifted to 22 postoperatively and {he} was transfused 2 units PRBC for {complication}, with an "
        "appropriate response.",
        "{He} required 1 unit PRBC on POD#1 for {complication}; counts were stable afterwards.",
    ),
)
CONTRAST_AKI = Complication(
    ACUTE_KIDNEY_INJURY,
    probability=0.1,
    course=(
        "Creatinine rose from 1.0 to 1.7 after catheterization, consistent with contrast-associated "
        "{complication}; lisinopril was held briefly and it returned to baseline with IV hydration.",
    ),
)

NSTEMI = Storyline(
    key="nstemi",
    title="NSTEMI treated with PCI and a drug-eluting stent",
    service="CMED",
    note_service="CARDIOLOGY",
    ages=(42, 90),
    length_of_stay=(2, 5),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("chest pain", "chest pressure", "substernal chest pain, dyspnea"),
    diagnosis=Diagnosis("I214", ("NSTEMI", "non-ST elevation MI", "non-ST elevation myocardial infarction")),
    secondary=(CORONARY_ARTERY_DISEASE,),
    procedures=(
        Procedure(
            "027034Z",
            (
                "PCI with a drug-eluting stent to the mid LAD",
                "cardiac catheterization with DES x1 to the LAD",
                "percutaneous coronary intervention with one drug-eluting stent to the LAD",
            ),
        ),
    ),
    medications=(ASPIRIN, CLOPIDOGREL, ATORVASTATIN, METOPROLOL_SUCCINATE, LISINOPRIL, NITROGLYCERIN_SL),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with substernal chest pressure radiating "
        "to the left arm. It began with exertion 3 days ago, and this morning occurred at rest for 2 hours with "
        "diaphoresis and nausea. Initial troponin was elevated and the ECG showed lateral ST depressions.",
        "{age} yo {man} w/ {history} p/w intermittent exertional chest tightness x1 week, now at rest. ECG with "
        "1-2 mm ST depressions V4-V6, TnT 0.12. Given full-dose aspirin, heparin gtt and admitted to "
        "cardiology for {diagnosis}.",
        "This {age} year old {man} with {history} was transferred from an outside hospital where {he} presented "
        "with chest pain and shortness of breath and was found to have a rising troponin, concerning for "
        "{diagnosis}. {He} was chest pain free on arrival on a heparin drip.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "No JVD, lungs clear, regular rhythm without murmurs; right radial access site without hematoma.",
                "RRR, no m/r/g; lungs CTAB; R radial site soft, 2+ radial pulse.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Troponin T 0.12 on arrival, peaked at 0.45.", "TnT: 0.12 -> 0.31 -> 0.45 (peak) -> 0.38."),
        ),
        Finding(
            "Pertinent Results",
            (
                "ECG: sinus rhythm with 1-2 mm ST depressions in V4-V6, no ST elevations.",
                "EKG NSR 78, horizontal ST depressions in the lateral leads.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Cardiac catheterization: 90% mid LAD stenosis, mild non-obstructive disease of the LCx and RCA.",
                "Cath: culprit 90% mid-LAD lesion; otherwise mild luminal irregularities.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("TTE: LVEF 50% with mild anterior hypokinesis.", "Echo: EF 50%, mild anteroseptal hypokinesis."),
            probability=0.7,
        ),
        Finding("Pertinent Results", ("LDL 142, HbA1c 6.1%.",), probability=0.5),
        Finding(
            "Pertinent Results",
            ("Chest x-ray incidentally shows a calcified granuloma in the left upper lobe.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(CONTRAST_AKI,),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}. {He} was loaded with aspirin and clopidogrel, started on "
            "a heparin drip and high-intensity atorvastatin, and taken for cardiac catheterization on hospital "
            "day 2.",
            "# {diagnosis}: TIMI risk score 4. Managed with ASA, plavix load, heparin gtt, atorvastatin 80 and "
            "metoprolol, with plan for early invasive strategy.",
        ),
        (
            "{He} underwent {procedure} via the right radial artery without complication, with TIMI 3 flow afterwards.",
            "Cath showed a culprit mid-LAD lesion and {he} underwent {procedure}. Radial band was removed per "
            "protocol without bleeding.",
        ),
        (
            "Post-PCI {he} remained chest pain free. {He} will continue dual antiplatelet therapy with aspirin and "
            "clopidogrel for at least 12 months and was referred to cardiac rehabilitation.",
            "DAPT (ASA + clopidogrel) x 12 months minimum -- do not interrupt. Beta-blocker and ACE inhibitor "
            "started; cardiac rehab referral placed.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Former smoker, 30 pack-years, quit 5 years ago. Drinks socially.",
                "Smokes half a pack per day; counselled on cessation. Works as a ___.",
            )
        ),
    ),
    instructions=(
        "You were admitted because you had a heart attack (NSTEMI). A blockage in one of the arteries of your "
        "heart was opened and a stent was placed. It is very important that you take aspirin and clopidogrel "
        "every day and do not stop them unless your cardiologist tells you to.",
        "You had a heart attack caused by a narrowed heart artery, which was treated with a stent. Do not lift "
        "more than 10 pounds with your right arm for 1 week. Call 911 if you have chest pain that does not go "
        "away with one nitroglycerin tablet.",
    ),
    followup=(
        "Follow up with cardiology in 2-4 weeks and your PCP within 1 week. Cardiac rehab will contact you to "
        "schedule.",
    ),
    next_storylines=("heart_failure", "nstemi", "atrial_fibrillation_rvr"),
)

STEMI = Storyline(
    key="stemi",
    title="Anterior STEMI treated with primary PCI",
    service="CMED",
    note_service="CARDIOLOGY",
    ages=(38, 88),
    length_of_stay=(3, 6),
    admission_types=("EW EMER.", "DIRECT EMER."),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("chest pain", "STEMI", "crushing chest pain, diaphoresis"),
    diagnosis=Diagnosis("I2102", ("anterior STEMI", "anterior ST elevation MI", "anterior STEMI involving the LAD")),
    secondary=(CORONARY_ARTERY_DISEASE,),
    procedures=(
        Procedure(
            "027034Z",
            (
                "primary PCI with a drug-eluting stent to the proximal LAD",
                "emergent cardiac catheterization and DES to the proximal LAD",
                "PCI/DES x1 to the pLAD",
            ),
        ),
    ),
    medications=(
        ASPIRIN,
        TICAGRELOR,
        ATORVASTATIN,
        Medication("Metoprolol Succinate XL", "25", "mg", "PO", "DAILY", "TAB", "to protect your heart"),
        Medication("Lisinopril", "2.5", "mg", "PO", "DAILY", "TAB", "to protect your heart"),
        NITROGLYCERIN_SL,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who developed sudden crushing substernal chest pain "
        "with diaphoresis while shoveling snow. EMS ECG showed ST elevations in V1-V4 and a code STEMI was "
        "activated from the field. {He} was taken directly to the cath lab.",
        "{age} yo {man} w/ {history} p/w 1 hr of 10/10 chest pressure radiating to the jaw. ECG: 3-4 mm STE "
        "V1-V4 with reciprocal inferior depressions. Given ASA 325, ticagrelor 180 and heparin, and went "
        "emergently to the cath lab for {diagnosis}.",
        "This {age} year old {man} with {history} awoke with severe chest pain and shortness of breath and "
        "presented to an outside hospital, where the ECG showed an {diagnosis}. {He} was transferred for "
        "primary PCI.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Diaphoretic and uncomfortable on arrival; HR 98, BP 142/88; lungs with faint bibasilar crackles.",
                "JVP 8 cm; regular rhythm, S4 present; trace crackles at the bases.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "ECG: 3-4 mm ST elevations in V1-V4 with reciprocal ST depressions in II, III and aVF.",
                "EKG with anterior ST elevations V1-V4 and inferior reciprocal changes.",
            ),
        ),
        Finding("Pertinent Results", ("Troponin T peaked at 6.8.", "Peak TnT 6.8, CK-MB 312.")),
        Finding(
            "Pertinent Results",
            (
                "TTE: LVEF 40% with anterior and apical akinesis; no LV thrombus.",
                "Post-MI echo: EF 40%, akinetic apex and anterior wall, no thrombus.",
            ),
        ),
        Finding("Pertinent Results", ("LDL 156, HbA1c 5.9%.",), probability=0.5),
    ),
    complications=(
        Complication(
            Diagnosis("I4720", ("ventricular tachycardia", "VT")),
            probability=0.15,
            course=(
                "On HD2 {he} had a 20-beat run of {complication} on telemetry, hemodynamically stable; "
                "electrolytes were repleted and beta-blockade uptitrated, with no further events.",
            ),
        ),
        Complication(
            Diagnosis("I5021", ("acute systolic heart failure", "acute HFrEF")),
            probability=0.2,
            course=(
                "{He} developed {complication} after the infarct, with pulmonary edema on CXR; {he} was diuresed "
                "with IV furosemide and discharged on a low oral dose.",
            ),
            medications=(Medication("Furosemide", "20", "mg", "PO", "DAILY", "TAB", "water pill"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ presented with an {diagnosis}. Door-to-balloon time was 62 minutes.",
            "# {diagnosis}: code STEMI activated on arrival; taken emergently to the cath lab.",
        ),
        (
            "{He} underwent {procedure}, with restoration of TIMI 3 flow. There were no complications and {he} "
            "was monitored in the CCU overnight.",
            "Cath revealed a thrombotic 100% proximal LAD occlusion treated with {procedure}; post-procedure "
            "monitoring in the CCU was uneventful.",
        ),
        (
            "{He} was started on aspirin, ticagrelor, high-intensity atorvastatin, metoprolol and lisinopril. "
            "Repeat echo showed an EF of 40%, to be reassessed in 3 months to evaluate for ICD candidacy.",
            "GDMT initiated post-MI. Given EF 40%, will repeat TTE in ~90 days. Cardiac rehab referral placed.",
        ),
    ),
    social=(SocialFact(("Current smoker, 1 ppd x 25 years.", "Smokes about 1 pack a day; drinks 2-3 beers daily.")),),
    instructions=(
        "You had a large heart attack (STEMI) caused by a blocked artery in the front of your heart. The artery "
        "was opened with a stent. Take aspirin and ticagrelor every day and never stop them without talking to "
        "your cardiologist. Please stop smoking.",
        "You were treated for a heart attack. The heart muscle was weakened, so we started several medicines "
        "that help it recover. Weigh yourself every morning and call your doctor if you gain more than 3 lbs.",
    ),
    followup=("Follow up with cardiology in 2 weeks; repeat echocardiogram in 3 months.",),
    next_storylines=("heart_failure", "atrial_fibrillation_rvr"),
)

HEART_FAILURE = Storyline(
    key="heart_failure",
    title="Acute on chronic systolic heart failure exacerbation",
    service="CMED",
    note_service="MEDICINE",
    ages=(48, 96),
    length_of_stay=(3, 9),
    admission_types=("EW EMER.", "URGENT", "DIRECT EMER."),
    admission_locations=("EMERGENCY ROOM", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY"),
    chief_complaints=("shortness of breath", "dyspnea, leg swelling", "weight gain, orthopnea"),
    diagnosis=Diagnosis(
        "I5023",
        ("acute on chronic systolic heart failure", "acute on chronic HFrEF", "CHF exacerbation"),
    ),
    medications=(
        FUROSEMIDE,
        METOPROLOL_SUCCINATE,
        Medication("Sacubitril-Valsartan", "24-26", "mg", "PO", "BID", "TAB", "for your heart"),
        Medication("Spironolactone", "25", "mg", "PO", "DAILY", "TAB", "for your heart"),
        Medication("Empagliflozin", "10", "mg", "PO", "DAILY", "TAB", "for your heart"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and chronic systolic heart failure (EF 25-30%) who "
        "presents with 1 week of progressive dyspnea on exertion, 3-pillow orthopnea and leg swelling. {He} "
        "reports an 8 lb weight gain and admits to eating more salty food over the holidays.",
        "{age} yo {man} w/ HFrEF (EF 25%), {history}, p/w worsening SOB, PND and LE edema after running out of "
        "furosemide ___ days ago. Weight up 6 kg from dry weight. BNP elevated, CXR w/ pulmonary edema. "
        "Given IV lasix 80 in ED and admitted for {diagnosis}.",
        "This {age} year old {man} with {history} and ischemic cardiomyopathy was sent in from cardiology "
        "clinic for volume overload refractory to increased oral diuretics. {He} now becomes short of breath "
        "walking 10 feet and sleeps in a recliner.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "JVP to the angle of the jaw, bibasilar crackles, 2+ pitting edema to the knees.",
                "JVD to 14 cm; crackles halfway up both lung fields; 2+ bilateral LE edema.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("NT-proBNP 8,420 (prior 2,100).", "proBNP 8420, Cr 1.3, Na 134."),
        ),
        Finding(
            "Pertinent Results",
            (
                "CXR: pulmonary vascular congestion with small bilateral pleural effusions.",
                "Chest film: interstitial edema, cardiomegaly and small bilateral effusions.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("TTE: LVEF 25-30%, global hypokinesis, moderate functional MR.",),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Admission weight 92.4 kg; discharge (dry) weight 86.1 kg.", "Weight 92.4 kg -> 86.1 kg."),
        ),
        Finding(
            "Physical Exam",
            ("Well-healed right inguinal hernia repair scar.",),
            probability=0.1,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            ACUTE_KIDNEY_INJURY,
            probability=0.2,
            course=(
                "Creatinine rose to 1.9 with aggressive diuresis ({complication}, likely cardiorenal); diuretics "
                "were held for a day and it improved to 1.4.",
            ),
        ),
        Complication(
            Diagnosis("E876", ("hypokalemia", "low potassium")),
            probability=0.25,
            course=(
                "Diuresis was complicated by {complication} to 3.1, repleted aggressively; {he} will take a "
                "potassium supplement at home.",
            ),
            medications=(POTASSIUM_CHLORIDE,),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}, likely precipitated by dietary indiscretion. {He} was "
            "diuresed with IV furosemide 80 mg twice daily, net negative about 6 L over the admission.",
            "# {diagnosis}: triggered by medication nonadherence and high sodium intake. Diuresed with IV lasix "
            "boluses, then a drip, with improvement in orthopnea and edema.",
            "{Mr} ___ was admitted to the cardiology service with {diagnosis}. Troponins were flat, ruling out an "
            "ischemic trigger; {he} was diuresed to near dry weight with IV loop diuretics.",
        ),
        (
            "Once euvolemic, {he} was transitioned to oral furosemide 40 mg daily. Guideline-directed therapy was "
            "optimised with metoprolol succinate, sacubitril-valsartan, spironolactone and empagliflozin.",
            "GDMT: continued Toprol XL, started Entresto after a 36-hour ACE inhibitor washout, added "
            "spironolactone and empagliflozin. Discharge diuretic furosemide 40 mg PO daily.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives with {his} daughter; admits to frequently eating takeout and canned soup.",
                "Lives alone; independent; quit smoking ___ years ago. No alcohol.",
            )
        ),
    ),
    instructions=(
        "You were admitted for a heart failure exacerbation, which means fluid built up in your lungs and legs "
        "because your heart is weak. We removed the fluid with IV water pills. Weigh yourself every morning; "
        "call your cardiologist if your weight goes up more than 3 lbs in a day or 5 lbs in a week.",
        "You were in the hospital because of fluid overload from heart failure. Keep salt under 2 grams a day and "
        "fluids under 2 liters a day. Your discharge weight is 86.1 kg. Take all of your heart medicines every "
        "day.",
    ),
    followup=(
        "Follow up in heart failure clinic within 7 days with labs (chem-7) to check kidney function and potassium.",
    ),
    next_storylines=("heart_failure", "atrial_fibrillation_rvr", "acute_kidney_injury"),
)

ATRIAL_FIBRILLATION_RVR = Storyline(
    key="atrial_fibrillation_rvr",
    title="Atrial fibrillation with rapid ventricular response",
    service="CMED",
    note_service="MEDICINE",
    ages=(52, 95),
    length_of_stay=(1, 4),
    admission_types=("EW EMER.", "OBSERVATION ADMIT"),
    admission_locations=("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("palpitations", "afib with RVR", "palpitations, lightheadedness"),
    diagnosis=Diagnosis(
        "I4891", ("atrial fibrillation with RVR", "afib with rapid ventricular response", "new-onset AF with RVR")
    ),
    medications=(
        Medication("Metoprolol Succinate XL", "100", "mg", "PO", "DAILY", "TAB", "to control your heart rate"),
        APIXABAN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 1 day of palpitations, fatigue and "
        "mild dyspnea on exertion. {He} has no prior history of arrhythmia. In the ED the ECG showed atrial "
        "fibrillation with ventricular rates in the 140s-150s.",
        "{age} yo {man} w/ {history} p/w racing heart since last evening after drinking at a wedding. HR 146 "
        "irregularly irregular in ED, BP stable. Given IV dilt 10 mg x2 with partial rate control; admitted for "
        "{diagnosis}.",
        "This {age} year old {man} with {history} noted a heart rate of 150 on {his} home blood pressure cuff "
        "and felt lightheaded. No chest pain or syncope. ECG confirmed {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Irregularly irregular rhythm at 140s, no murmurs; lungs clear; no edema.",
                "Tachycardic, irregularly irregular; JVP not elevated; lungs CTAB.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "ECG: atrial fibrillation with rapid ventricular response at 146, no acute ST changes.",
                "EKG AF @ 146, normal axis, no ischemic changes.",
            ),
        ),
        Finding("Pertinent Results", ("TSH 1.8; troponin T <0.01 x2.", "TSH normal, troponins negative x2.")),
        Finding(
            "Pertinent Results",
            ("TTE: LVEF 55%, moderately dilated left atrium, no significant valvular disease.",),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Chest x-ray: old healed left-sided rib fractures.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("I959", ("hypotension", "transient hypotension")),
            probability=0.1,
            course=(
                "After IV diltiazem {his} blood pressure fell to 82/50 ({complication}), which responded to a "
                "500 cc fluid bolus; further rate control was achieved with oral metoprolol.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}. Rate control was achieved with IV diltiazem followed by "
            "oral metoprolol, with heart rates in the 70s-90s by hospital day 2.",
            "# {diagnosis}: new diagnosis. Rate controlled with IV then PO metoprolol; TSH and troponins "
            "unremarkable. Spontaneously converted to sinus rhythm overnight on telemetry.",
        ),
        (
            "{His} CHA2DS2-VASc score is at least 2, and after discussion of risks and benefits {he} was started "
            "on apixaban for stroke prevention.",
            "Anticoagulation: CHA2DS2-VASc >= 2; apixaban 5 mg BID started after shared decision-making. Plan "
            "for outpatient rhythm-control discussion with cardiology.",
        ),
    ),
    instructions=(
        "You were admitted with atrial fibrillation, an irregular and fast heart rhythm. Your heart rate was "
        "controlled with metoprolol. You were started on apixaban, a blood thinner that lowers the risk of "
        "stroke; do not miss doses. Call your doctor for any bleeding.",
        "You were in the hospital because your heart was beating fast in an irregular rhythm called atrial "
        "fibrillation. Take metoprolol and apixaban every day. Return for chest pain, fainting or signs of "
        "stroke such as weakness or trouble speaking.",
    ),
    followup=("Follow up with cardiology in 2-4 weeks; an ambulatory heart monitor may be arranged.",),
    next_storylines=("atrial_fibrillation_rvr", "heart_failure", "ischemic_stroke"),
)

CABG = Storyline(
    key="cabg",
    title="Three-vessel coronary artery disease treated with CABG",
    service="CSURG",
    note_service="CARDIOTHORACIC",
    ages=(48, 85),
    length_of_stay=(5, 11),
    admission_types=("SURGICAL SAME DAY ADMISSION", "URGENT", "ELECTIVE"),
    admission_locations=("PHYSICIAN REFERRAL", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME HEALTH CARE", "HOME", "REHAB"),
    chief_complaints=("exertional chest pain", "unstable angina", "chest pain, abnormal stress test"),
    diagnosis=Diagnosis(
        "I25110",
        ("three-vessel CAD with unstable angina", "multivessel coronary artery disease", "3VD with unstable angina"),
    ),
    procedures=(
        Procedure(
            "02100Z9",
            (
                "CABG x3 (LIMA-LAD, SVG-OM, SVG-PDA)",
                "coronary artery bypass grafting x3",
                "three-vessel coronary artery bypass",
            ),
        ),
        Procedure("021109W", ("saphenous vein grafts to the OM and PDA", "SVG-OM and SVG-PDA")),
        Procedure("06BQ4ZZ", ("endoscopic left greater saphenous vein harvest", "EVH of the left GSV")),
    ),
    medications=(
        ASPIRIN,
        ATORVASTATIN,
        METOPROLOL_TARTRATE,
        FUROSEMIDE_POSTOP,
        POTASSIUM_CHLORIDE,
        OXYCODONE_PRN,
        ACETAMINOPHEN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who developed progressive exertional chest pressure "
        "over several months, now occurring with walking one block. A stress test was positive and cardiac "
        "catheterization showed severe three-vessel disease. {He} was referred for surgical revascularization.",
        "{age} yo {man} w/ {history} p/w crescendo angina; cath at OSH showed LM/3VD not amenable to PCI. "
        "Transferred for CT surgery evaluation and CABG.",
        "This {age} year old {man} with {history} presented with chest pain at rest and dynamic ECG changes. "
        "Catheterization revealed {diagnosis}, and after heart team discussion {he} was accepted for bypass "
        "surgery.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Sternal incision clean, dry and intact, sternum stable; left leg EVH site with mild ecchymosis.",
                "Sternum stable, incision healing well without erythema; LLE harvest site c/d/i.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Cardiac cath: 80% proximal LAD, 70% OM1 and 90% RCA/PDA stenoses.",
                "Cath: severe 3VD (pLAD 80%, OM1 70%, RCA 90%).",
            ),
        ),
        Finding("Pertinent Results", ("Pre-op TTE: LVEF 50%, no significant valvular disease.",)),
        Finding(
            "Pertinent Results",
            (
                "Post-op CXR: small left pleural effusion and basilar atelectasis; no pneumothorax after chest tube "
                "removal.",
            ),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Carotid duplex: <40% stenosis of both internal carotid arteries.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(POSTOP_ATRIAL_FIBRILLATION, POSTOP_BLOOD_LOSS_ANEMIA),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis} for surgical revascularization. Preoperative workup, "
            "including carotid duplex and dental clearance, was completed.",
            "# {diagnosis}: accepted for CABG after heart team review; plavix was held 5 days prior to surgery.",
        ),
        (
            "On ___ {he} was taken to the operating room and underwent {procedure}. {He} was transferred to the "
            "CVICU in stable condition on low-dose neosynephrine and propofol, and was extubated that evening.",
            "{He} underwent {procedure} with an uncomplicated cardiopulmonary bypass run and was extubated on "
            "POD#0 in the CVICU.",
        ),
        (
            "Pressors were weaned by POD#1. Chest tubes and epicardial pacing wires were removed per protocol, "
            "and {he} was diuresed toward {his} preoperative weight. {He} was cleared by PT for discharge.",
            "Transferred to the step-down floor on POD 1; CTs and wires d/c'd without issue. Beta-blocker and "
            "statin resumed, gentle diuresis. Ambulating independently by POD 4.",
        ),
    ),
    instructions=(
        "You had coronary artery bypass surgery. Please shower daily and gently wash your incisions with mild "
        "soap; no baths or swimming for 6 weeks. Do not lift more than 10 pounds and do not drive for at least "
        "one month. Weigh yourself every morning and call for a gain of more than 2 lbs in a day.",
        "You were admitted for heart bypass surgery. Sternal precautions: no pushing, pulling or lifting over 10 "
        "lbs for 8 weeks. Call the cardiac surgery office for fever over 101.5, redness or drainage from your "
        "incisions, or a clicking sensation in your breastbone.",
    ),
    followup=("Follow up with your cardiac surgeon in 4 weeks and cardiology in 1-2 weeks. Wound check in 1 week.",),
    next_storylines=("atrial_fibrillation_rvr", "heart_failure"),
)

AORTIC_VALVE_REPLACEMENT = Storyline(
    key="aortic_valve_replacement",
    title="Severe aortic stenosis treated with surgical aortic valve replacement",
    service="CSURG",
    note_service="CARDIOTHORACIC",
    ages=(58, 88),
    length_of_stay=(4, 10),
    admission_types=("SURGICAL SAME DAY ADMISSION", "ELECTIVE"),
    admission_locations=("PHYSICIAN REFERRAL",),
    discharge_locations=("HOME HEALTH CARE", "HOME", "REHAB"),
    chief_complaints=("dyspnea on exertion", "aortic stenosis", "exertional dyspnea, presyncope"),
    diagnosis=Diagnosis("I350", ("severe aortic stenosis", "severe AS", "critical calcific aortic stenosis")),
    procedures=(
        Procedure(
            "02RF08Z",
            (
                "aortic valve replacement with a 23 mm bovine pericardial valve",
                "tissue AVR",
                "surgical AVR with a bioprosthetic valve",
            ),
        ),
    ),
    medications=(
        ASPIRIN,
        Medication("Metoprolol Tartrate", "12.5", "mg", "PO", "BID", "TAB", "for your heart rate"),
        FUROSEMIDE_POSTOP,
        POTASSIUM_CHLORIDE,
        ACETAMINOPHEN,
        OXYCODONE_PRN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and a long-standing murmur who reports progressive "
        "dyspnea on exertion and an episode of near-syncope while climbing stairs. Echocardiogram showed "
        "{diagnosis}, and catheterization showed no significant coronary disease. {He} presents for elective "
        "valve replacement.",
        "{age} yo {man} w/ {history}, known AS followed with serial echos, now symptomatic with DOE and chest "
        "tightness. AVA 0.7 cm2, mean gradient 48. Clean coronaries on cath. Admitted for AVR.",
        "This {age} year old {man} with {history} was found to have {diagnosis} during a workup for fatigue and "
        "reduced exercise tolerance. After evaluation by the structural heart team, surgical replacement was "
        "recommended.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Harsh III/VI crescendo-decrescendo systolic murmur at the RUSB radiating to the carotids; "
                "diminished S2.",
                "III/VI late-peaking SEM at RUSB with radiation to both carotids.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Pre-op TTE: severe aortic stenosis, valve area 0.7 cm2, peak velocity 4.6 m/s, mean gradient "
                "48 mmHg, LVEF 60%.",
                "Echo: AVA 0.7 cm2, mean gradient 48 mmHg, Vmax 4.6 m/s; normal LV function.",
            ),
        ),
        Finding("Pertinent Results", ("Cardiac catheterization: no angiographically significant CAD.",)),
        Finding(
            "Pertinent Results",
            ("Post-op TTE: well-seated bioprosthetic aortic valve, mean gradient 11 mmHg, no paravalvular leak.",),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("CT chest incidentally noted a 5 mm right middle lobe nodule.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        POSTOP_ATRIAL_FIBRILLATION,
        Complication(
            Diagnosis("I442", ("complete heart block", "transient complete heart block", "CHB")),
            probability=0.1,
            course=(
                "{He} had {complication} on POD#1 requiring epicardial pacing; conduction recovered by POD 4 and "
                "EP felt a permanent pacemaker was not needed.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted for surgical management of {diagnosis}.",
            "# {diagnosis}: symptomatic, referred for valve replacement after structural heart evaluation.",
        ),
        (
            "On ___ {he} underwent {procedure}. {He} was transferred to the CVICU intubated and was extubated "
            "later that day.",
            "{He} was brought to the OR for {procedure} without complication; cross-clamp time 68 minutes. "
            "Extubated the evening of surgery.",
        ),
        (
            "Chest tubes and pacing wires were removed on schedule. {He} was gently diuresed, started on aspirin "
            "and low-dose metoprolol, and cleared by physical therapy.",
            "Floor course after POD 1: CTs/wires out, diuresed to pre-op weight, ambulating with PT.",
        ),
    ),
    instructions=(
        "You had your aortic valve replaced with a tissue valve. Follow sternal precautions: no lifting more than "
        "10 pounds and no driving for one month. You will need antibiotics before dental work for the rest of "
        "your life; please tell your dentist you have an artificial heart valve.",
        "You were admitted for aortic valve replacement surgery. Shower daily, no lotions or powders on your "
        "incision. Call the cardiac surgery office for fever, wound drainage, or weight gain over 2 lbs in a "
        "day.",
    ),
    followup=("Follow up with cardiac surgery in 4 weeks and cardiology in 2 weeks; echo in 6 weeks.",),
    next_storylines=("heart_failure", "atrial_fibrillation_rvr"),
)

STORYLINES: tuple[Storyline, ...] = (
    NSTEMI,
    STEMI,
    HEART_FAILURE,
    ATRIAL_FIBRILLATION_RVR,
    CABG,
    AORTIC_VALVE_REPLACEMENT,
)
