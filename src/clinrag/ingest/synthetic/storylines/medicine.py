"""General medicine storylines: infections, GI bleeding, metabolic and renal admissions."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

ACETAMINOPHEN_PRN = Medication("Acetaminophen", "650", "mg", "PO", "Q6H:PRN pain or fever", "TAB", "for pain or fever")
AZITHROMYCIN = Medication("Azithromycin", "250", "mg", "PO", "DAILY", "TAB", "antibiotic for your lung infection")
CIPROFLOXACIN = Medication("Ciprofloxacin HCl", "500", "mg", "PO", "Q12H", "TAB", "antibiotic for your infection")
VANCOMYCIN_ORAL = Medication("Vancomycin", "125", "mg", "PO", "Q6H", "CAP", "antibiotic for C. diff colitis")
POTASSIUM_CHLORIDE = Medication("Potassium Chloride", "20", "mEq", "PO", "DAILY", "TAB", "to replace potassium")
PANTOPRAZOLE_BID = Medication("Pantoprazole", "40", "mg", "PO", "Q12H", "TAB", "to heal the ulcer")
ONDANSETRON_PRN = Medication("Ondansetron", "4", "mg", "PO", "Q8H:PRN nausea", "TAB", "for nausea")

ACUTE_KIDNEY_INJURY = Diagnosis("N179", ("acute kidney injury", "AKI", "acute renal failure"))
DELIRIUM = Diagnosis("F05", ("delirium", "hospital delirium", "acute toxic-metabolic encephalopathy"))
C_DIFF_COLITIS = Diagnosis("A0472", ("C. difficile colitis", "Clostridioides difficile infection", "C. diff colitis"))

PNEUMONIA = Storyline(
    key="pneumonia",
    title="Community-acquired pneumonia",
    service="MED",
    note_service="MEDICINE",
    ages=(40, 96),
    length_of_stay=(2, 7),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM SKILLED NURSING FACILITY"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY"),
    chief_complaints=("cough, fever", "shortness of breath, productive cough", "fever and dyspnea"),
    diagnosis=Diagnosis(
        "J189",
        (
            "community-acquired pneumonia",
            "right lower lobe pneumonia",
            "community-acquired pneumonia of the right lower lobe",
        ),
    ),
    medications=(
        Medication("Cefpodoxime Proxetil", "200", "mg", "PO", "Q12H", "TAB", "antibiotic for your pneumonia"),
        AZITHROMYCIN,
        Medication("Benzonatate", "100", "mg", "PO", "TID:PRN cough", "CAP", "for cough"),
        ACETAMINOPHEN_PRN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 4 days of productive cough with "
        "yellow-green sputum, subjective fevers and worsening dyspnea on exertion. {He} also notes right-sided "
        "pleuritic chest pain. In the ED {he} was febrile to 38.9 and hypoxic to 89% on room air, and a chest "
        "x-ray showed a {diagnosis}.",
        "{age} yo {man} w/ {history} p/w several days of cough, rigors and malaise. Family noted {he} was more "
        "fatigued and eating poorly. Sats 90% RA on EMS arrival, improved on 2L NC. CXR c/w {diagnosis}; "
        "given CTX/azithro in the ED and admitted to medicine.",
        "This {age} year old {man} with {history} was in {his} usual state of health until about a week ago, "
        "when {he} developed a sore throat followed by a cough productive of rust-colored sputum. Over the last "
        "2 days {he} has had fevers to 102 at home and shortness of breath walking across the room. Workup in "
        "the ED was notable for leukocytosis and a right lower lobe opacity.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Crackles and egophony at the right base; RR 24, SpO2 90% on room air.",
                "Lungs: rhonchi and bronchial breath sounds over the right lower lung field; tachypneic to the 20s.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CXR: dense right lower lobe consolidation without pleural effusion.",
                "Chest x-ray demonstrates a new right lower lobe opacity concerning for pneumonia; no effusion.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("WBC 15.2 with 86% neutrophils; lactate 1.8.", "Admission labs notable for WBC 15.2 with left shift."),
        ),
        Finding(
            "Pertinent Results",
            (
                "Blood cultures x2 no growth to date; urine Legionella and strep pneumoniae antigens negative.",
                "Urine Legionella antigen negative; blood cultures without growth at 48 hours.",
            ),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental mild degenerative changes of the thoracic spine on chest radiograph.",),
            probability=0.1,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("J9601", ("acute hypoxemic respiratory failure", "acute hypoxic respiratory failure")),
            probability=0.25,
            course=(
                "On hospital day 2 {his} oxygen requirement increased to 5L NC with saturations in the high 80s, "
                "consistent with {complication}. {He} did not require ICU transfer and was weaned to room air by "
                "the day prior to discharge.",
                "{He} developed {complication} overnight on HD1 requiring high-flow nasal cannula briefly; this "
                "improved with antibiotics and diuresis, and ambulatory saturations were 93% on RA at discharge.",
            ),
        ),
        Complication(
            C_DIFF_COLITIS,
            probability=0.08,
            course=(
                "Course was complicated by watery diarrhea on day 4; stool C. diff PCR was positive and {he} was "
                "treated for {complication} with oral vancomycin, to complete a 10-day course.",
            ),
            medications=(VANCOMYCIN_ORAL,),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with a {diagnosis}. {He} was started on IV ceftriaxone and azithromycin, with "
            "defervescence within 48 hours and steady improvement in cough and oxygenation.",
            "Admitted for {diagnosis}. Treated empirically with ceftriaxone and azithromycin for CAP coverage; "
            "blood cultures remained negative and {he} was afebrile after hospital day 2.",
            "# {diagnosis}: CURB-65 of 2 on admission. Covered with CTX/azithro; sputum culture grew normal "
            "flora only. Fever curve and leukocytosis trended down over the first 2 days.",
        ),
        (
            "Once afebrile and tolerating PO, {he} was transitioned to oral cefpodoxime and azithromycin to "
            "complete a 5-day course of antibiotics. Ambulatory saturations were above 92% on room air.",
            "Antibiotics were narrowed to PO cefpodoxime plus azithromycin to finish a total of 5 days. {He} "
            "ambulated with PT without desaturation prior to discharge.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Former smoker, quit ___ years ago; drinks 1-2 glasses of wine per week.",
                "Never smoker. Retired, lives with {his} spouse; independent in ADLs.",
            )
        ),
    ),
    instructions=(
        "You were admitted to the hospital with a pneumonia, an infection of the lungs. You were treated with "
        "antibiotics and your breathing improved. Please finish all of your antibiotics as prescribed, even if "
        "you feel better, and return for fevers, worsening shortness of breath or chest pain.",
        "You were in the hospital because of a lung infection (pneumonia). We treated you with IV antibiotics and "
        "then switched you to pills. Your cough may last a few more weeks. Call your doctor if you have a fever "
        "over 100.4, trouble breathing, or cannot keep down fluids.",
    ),
    followup=(
        "Please follow up with your PCP within 1 week. A repeat chest x-ray in 6-8 weeks is recommended to "
        "document resolution of the pneumonia.",
        "Follow up with your primary care physician in 5-7 days; repeat CXR in 6 weeks.",
    ),
    next_storylines=("sepsis", "pneumonia"),
)

URINARY_TRACT_INFECTION = Storyline(
    key="urinary_tract_infection",
    title="Complicated urinary tract infection with E. coli",
    service="MED",
    note_service="MEDICINE",
    ages=(55, 98),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "EU OBSERVATION"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM SKILLED NURSING FACILITY"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY"),
    chief_complaints=("dysuria, fever", "confusion", "fever, urinary frequency"),
    diagnosis=Diagnosis("N390", ("urinary tract infection", "complicated UTI", "UTI due to E. coli")),
    secondary=(Diagnosis("B9620", ("E. coli", "Escherichia coli")),),
    medications=(CIPROFLOXACIN, ACETAMINOPHEN_PRN),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 3 days of dysuria, urinary frequency "
        "and suprapubic discomfort, followed by fevers and chills since last night. {He} denies flank pain, "
        "nausea or vomiting. UA in the ED was grossly positive and {he} was admitted for a {diagnosis}.",
        "{age} yo {man} with {history} sent in from home after family noted new confusion and decreased PO "
        "intake over 2 days. Per family {he} had complained of burning with urination earlier in the week. In "
        "the ED T 38.4, HR 104, UA with pyuria and bacteriuria.",
        "This is a {age} year old {man} with {history} brought in by EMS with fever to 101.8 and increased "
        "urinary frequency. No cough, no diarrhea, no rash. Exam notable for suprapubic tenderness. Started on "
        "ceftriaxone in the ED for presumed {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Suprapubic tenderness to palpation; no CVA tenderness.",
                "Abdomen soft, mildly tender in the suprapubic region, no costovertebral angle tenderness.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "UA: >182 WBC, large leukocyte esterase, nitrite positive, many bacteria.",
                "Urinalysis with large leuk esterase, positive nitrites and >100 WBC/hpf.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Urine culture: >100,000 CFU/mL E. coli, sensitive to ceftriaxone and ciprofloxacin.",
                "URINE CULTURE (Final): ESCHERICHIA COLI >100,000 CFU/mL, pan-sensitive except ampicillin.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("WBC 13.4; creatinine 1.3 (baseline 0.9).", "Leukocytosis to 13.4 on admission, Cr 1.3."),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Renal ultrasound incidentally notes a 1.2 cm simple cyst in the left kidney.",),
            probability=0.12,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            ACUTE_KIDNEY_INJURY,
            probability=0.2,
            course=(
                "{His} creatinine peaked at 1.9 on admission, felt to be {complication} from poor PO intake and "
                "infection; it improved to 1.1 with IV fluids and holding nephrotoxic medications.",
                "Course complicated by {complication} (Cr 1.8 from baseline 0.9), prerenal by FENa, which resolved "
                "with 2 L of IV fluids.",
            ),
        ),
        Complication(
            DELIRIUM,
            probability=0.2,
            course=(
                "{He} had waxing and waning attention with nighttime agitation, consistent with {complication} "
                "in the setting of infection; this improved with treatment of the UTI and delirium precautions.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with a {diagnosis} and started on IV ceftriaxone. Blood cultures showed no "
            "growth and {he} defervesced within 24 hours.",
            "# {diagnosis}: Presented febrile with pyuria. Treated with ceftriaxone 1 g IV daily pending "
            "cultures; fevers resolved by HD2.",
        ),
        (
            "Urine culture grew pan-sensitive E. coli and {he} was transitioned to PO ciprofloxacin to complete a "
            "7-day course of antibiotics.",
            "Once the urine culture returned E. coli sensitive to fluoroquinolones, antibiotics were changed to "
            "oral ciprofloxacin for a total 7-day course.",
        ),
    ),
    instructions=(
        "You were admitted to the hospital with a urinary tract infection. You were treated with IV antibiotics "
        "and then switched to an antibiotic pill (ciprofloxacin). Please take it twice daily until the course is "
        "complete and drink plenty of fluids.",
        "You came to the hospital with a fever from a bladder infection. The bacteria were sensitive to the "
        "antibiotic you are going home on. Return to the ED if you develop fevers, back pain, vomiting or "
        "confusion.",
    ),
    next_storylines=("urinary_tract_infection", "sepsis", "acute_kidney_injury"),
)

COPD_EXACERBATION = Storyline(
    key="copd_exacerbation",
    title="Acute exacerbation of COPD",
    service="MED",
    note_service="MEDICINE",
    ages=(50, 92),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("shortness of breath", "dyspnea, wheezing", "SOB, increased sputum"),
    diagnosis=Diagnosis("J441", ("COPD exacerbation", "acute exacerbation of COPD", "AECOPD")),
    secondary=(Diagnosis("F17210", ("tobacco use", "active smoking", "nicotine dependence")),),
    medications=(
        Medication("PredniSONE", "40", "mg", "PO", "DAILY", "TAB", "steroid for your lungs"),
        AZITHROMYCIN,
        Medication("Albuterol Inhaler", "2", "PUFF", "IH", "Q4H:PRN wheeze/SOB", "INH", "rescue inhaler"),
        Medication("Tiotropium Bromide", "1", "CAP", "IH", "DAILY", "CAP", "maintenance inhaler"),
        Medication("Fluticasone-Salmeterol Diskus (250/50)", "1", "INH", "IH", "BID", "INH", "maintenance inhaler"),
        Medication("Nicotine Patch", "21", "mg", "TD", "DAILY", "PTCH", "to help you quit smoking"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 3 days of worsening shortness of "
        "breath, wheezing and increased sputum production, now yellow. {He} has been using {his} albuterol "
        "inhaler every 2 hours without relief. {He} denies fevers or chest pain. In the ED {he} received "
        "nebulizers, methylprednisolone and azithromycin for {diagnosis}.",
        "{age} yo {man} with {history} and active tobacco use p/w progressive dyspnea after a viral URI last "
        "week. Now SOB with minimal exertion, unable to complete sentences. Sat 86% RA in the ED; VBG with "
        "mild hypercarbia. Treated with duonebs x3 and solumedrol 125 mg.",
        "This {age} year old {man} with {history} reports increased cough and chest tightness for several days "
        "and ran out of {his} maintenance inhalers ___ weeks ago. {He} presented when {he} could no longer walk "
        "to the mailbox without stopping. Admitted for {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Diffuse expiratory wheezes with prolonged expiratory phase; speaking in short sentences.",
                "Poor air movement bilaterally with scattered wheezes; using accessory muscles.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("ABG 7.33/58/62 on 2L NC.", "VBG on arrival: pH 7.32, pCO2 61."),
        ),
        Finding(
            "Pertinent Results",
            (
                "CXR: hyperinflated lungs with flattened diaphragms; no focal consolidation.",
                "Chest radiograph shows emphysematous changes without infiltrate or effusion.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Respiratory viral panel negative.", "Influenza A/B and RSV PCR negative."),
            probability=0.5,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental 6 mm left upper lobe ground-glass nodule; outpatient CT follow-up recommended.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("J9602", ("acute hypercapnic respiratory failure", "hypercarbic respiratory failure")),
            probability=0.2,
            course=(
                "On the first night {he} became somnolent with a pCO2 of 74, consistent with {complication}; "
                "{he} was placed on BiPAP overnight in the ICU step-down unit and was weaned to nasal cannula the "
                "next morning.",
                "{He} developed {complication} requiring BiPAP for 18 hours, after which mental status and "
                "blood gas normalised.",
            ),
        ),
        Complication(
            Diagnosis("R739", ("steroid-induced hyperglycemia", "hyperglycemia")),
            probability=0.25,
            course=(
                "Blood sugars rose to the 250s on high-dose steroids ({complication}) and were covered with an "
                "insulin sliding scale; they normalised as prednisone was tapered.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}, likely triggered by a viral infection. {He} was treated "
            "with scheduled duonebs, prednisone 40 mg daily and azithromycin.",
            "# {diagnosis}: treated with a 5-day steroid burst (prednisone 40 mg), azithromycin x 5 days and "
            "standing nebulizers, with gradual improvement in air movement.",
        ),
        (
            "By discharge {he} was on room air at rest with saturations of 91-93%, which is {his} baseline, and "
            "ambulated without desaturation below 88%. {His} home inhalers were resumed and {he} was counselled "
            "on inhaler technique.",
            "Nebulizers were spaced to every 4 hours as needed. Home maintenance inhalers were restarted and "
            "smoking cessation was discussed at length; {he} accepted a nicotine patch.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Smokes 1 ppd, 50 pack-year history. Drinks 2-3 beers on weekends.",
                "Current smoker, about half a pack per day; 40+ pack-years. No illicit drug use.",
            )
        ),
    ),
    instructions=(
        "You were admitted with a flare of your COPD. You were treated with steroids, an antibiotic and "
        "breathing treatments. Please take prednisone for the remaining days as prescribed and use your "
        "inhalers every day. Quitting smoking is the most important thing you can do for your lungs.",
        "You were in the hospital for a COPD exacerbation. Continue your daily inhalers (Spiriva and Advair) "
        "and use albuterol as needed. Call your doctor or return if you need your rescue inhaler more than "
        "every 4 hours or have fevers or chest pain.",
    ),
    followup=("Follow up with your PCP in 1 week and with pulmonology in 4-6 weeks for pulmonary function testing.",),
    next_storylines=("copd_exacerbation", "pneumonia"),
)

UPPER_GI_BLEED = Storyline(
    key="upper_gi_bleed",
    title="Upper GI bleed from a duodenal ulcer treated endoscopically",
    service="MED",
    note_service="MEDICINE",
    ages=(35, 92),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("melena", "black stools, lightheadedness", "coffee-ground emesis"),
    diagnosis=Diagnosis("K264", ("bleeding duodenal ulcer", "UGIB from a duodenal ulcer", "duodenal ulcer hemorrhage")),
    secondary=(
        Diagnosis("D62", ("acute blood loss anemia", "ABLA")),
        Diagnosis("B9681", ("H. pylori infection", "Helicobacter pylori")),
    ),
    procedures=(
        Procedure(
            "0W3P8ZZ",
            (
                "EGD with epinephrine injection and clip placement",
                "upper endoscopy with endoscopic hemostasis",
                "EGD with hemoclips to a visible vessel",
            ),
        ),
    ),
    medications=(
        PANTOPRAZOLE_BID,
        Medication("Amoxicillin", "1000", "mg", "PO", "Q12H", "CAP", "for H. pylori"),
        Medication("Clarithromycin", "500", "mg", "PO", "Q12H", "TAB", "for H. pylori"),
        Medication("Ferrous Sulfate", "325", "mg", "PO", "DAILY", "TAB", "iron for anemia"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 2 days of black, tarry stools and "
        "lightheadedness on standing. {He} has been taking ibuprofen 800 mg several times a day for back pain. "
        "In the ED {he} was tachycardic to 115 with a hemoglobin of 7.1, down from a baseline of 12.8.",
        "{age} yo {man} w/ {history}, heavy NSAID use, p/w melena x2 days and one episode of coffee-ground "
        "emesis this AM. Near-syncopal at home. Hgb 7.1 in ED; started on IV PPI and transfused 1u PRBC. GI "
        "consulted for suspected {diagnosis}.",
        "This {age} year old {man} with {history} presented after passing several large black stools and "
        "feeling dizzy. {He} reports epigastric burning for weeks, worse with meals, and has been taking "
        "naproxen daily. Rectal exam in the ED showed melena.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Tachycardic to 112, pale conjunctivae; black, guaiac-positive stool on rectal exam.",
                "Orthostatic; mild epigastric tenderness; rectal: melena.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Hgb 7.1 (baseline 12.8); BUN 48, Cr 0.9.", "Admission hemoglobin 7.1 with BUN/Cr ratio > 50."),
        ),
        Finding(
            "Pertinent Results",
            (
                "EGD: 1.5 cm clean-based duodenal bulb ulcer with a visible vessel, treated with epinephrine "
                "injection and two clips.",
                "EGD showed a 15 mm duodenal bulb ulcer with a non-bleeding visible vessel; hemostasis achieved.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Gastric biopsies positive for H. pylori.", "H. pylori stool antigen positive."),
        ),
        Finding(
            "Pertinent Results",
            ("EGD also incidentally noted a small sliding hiatal hernia.",),
            probability=0.2,
            noise=True,
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted for {diagnosis} in the setting of NSAID use. {He} was started on a "
            "pantoprazole drip, made NPO and kept on two large-bore IVs.",
            "# {diagnosis}: presented with melena and a 5-point hemoglobin drop. Received IV PPI and was "
            "monitored closely for hemodynamic instability.",
        ),
        (
            "GI performed {procedure} on hospital day 1. No further bleeding was seen afterwards.",
            "{He} underwent {procedure} within 24 hours of admission, with good hemostasis.",
        ),
        (
            "{He} received a total of 2 units PRBC with an appropriate rise in hemoglobin to 8.9, which remained "
            "stable for 48 hours. Biopsies showed H. pylori and triple therapy was started. NSAIDs were stopped.",
            "Hgb stabilised around 9 after 2u PRBC. PPI was changed to oral pantoprazole BID; H. pylori treatment "
            "started with amoxicillin and clarithromycin for 14 days. Counselled to avoid NSAIDs.",
        ),
    ),
    instructions=(
        "You were admitted because you were bleeding from an ulcer in your small intestine. The ulcer was "
        "treated during an endoscopy and you received blood transfusions. Please do not take ibuprofen, "
        "naproxen or aspirin-containing products. Take pantoprazole twice a day and finish the antibiotics for "
        "H. pylori.",
        "You had a bleeding ulcer that was treated with clips. Return to the ED right away if you have black or "
        "bloody stools, vomit blood or feel faint. Avoid NSAIDs such as Advil, Motrin and Aleve.",
    ),
    followup=(
        "Follow up with gastroenterology in 8 weeks; H. pylori eradication testing 4 weeks after finishing "
        "antibiotics. Check CBC with your PCP within 1 week.",
    ),
    next_storylines=("upper_gi_bleed", "acute_kidney_injury"),
)

DIABETIC_KETOACIDOSIS = Storyline(
    key="diabetic_ketoacidosis",
    title="Diabetic ketoacidosis in type 1 diabetes",
    service="MED",
    note_service="MEDICINE",
    ages=(18, 45),
    length_of_stay=(2, 5),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"),
    discharge_locations=("HOME",),
    chief_complaints=("nausea, vomiting, hyperglycemia", "abdominal pain, vomiting", "high blood sugar"),
    diagnosis=Diagnosis("E1010", ("diabetic ketoacidosis", "DKA", "DKA in type 1 diabetes")),
    secondary=(Diagnosis("Z794", ("insulin-dependent", "long-term insulin use")),),
    medications=(
        Medication("Insulin Glargine", "22", "UNIT", "SC", "QHS", "VIAL", "long-acting insulin"),
        Medication("Insulin Lispro", "0-12", "UNIT", "SC", "TID W/MEALS per sliding scale", "VIAL", "mealtime insulin"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and type 1 diabetes since childhood who presents with "
        "2 days of nausea, vomiting and diffuse abdominal pain. {He} ran out of insulin glargine ___ days ago "
        "because of insurance problems. Fingersticks at home read 'HI'. In the ED {he} was found to be in "
        "{diagnosis}.",
        "{age} yo {man} w/ T1DM on glargine/lispro, {history}, p/w polyuria, polydipsia and vomiting after a "
        "gastroenteritis-like illness; {he} skipped basal insulin while not eating. Glucose 486, AG 28, pH "
        "7.12. Started on insulin gtt in the ED.",
        "This {age} year old {man} with {history} and poorly controlled type 1 diabetes presented with "
        "malaise, Kussmaul breathing and abdominal pain. {He} admits to missing insulin doses over the past "
        "week. Labs were consistent with severe {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Dry mucous membranes, deep rapid (Kussmaul) respirations, fruity odor; abdomen mildly tender.",
                "Tachycardic to 118, tachypneic, dry MM; diffuse mild abdominal tenderness without rebound.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Glucose 486, bicarbonate 9, anion gap 28; serum beta-hydroxybutyrate 6.2.",
                "Admission chem: Na 131, K 5.6, HCO3 9, glucose 486, AG 28.",
            ),
        ),
        Finding("Pertinent Results", ("VBG pH 7.12.", "Venous pH 7.12, pCO2 22.")),
        Finding("Pertinent Results", ("HbA1c 11.4%.",), probability=0.7),
        Finding(
            "Pertinent Results",
            ("Lipase mildly elevated at 72, felt to be nonspecific in the setting of DKA.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E876", ("hypokalemia", "low potassium")),
            probability=0.3,
            course=(
                "During the insulin drip {his} potassium fell to 2.9 ({complication}), requiring aggressive IV and "
                "oral repletion; it was 4.0 at discharge.",
                "Insulin therapy was complicated by {complication} to a nadir of 3.0, repleted per protocol.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the ICU with {diagnosis}, precipitated by missed insulin. {He} was treated "
            "with an insulin infusion, aggressive IV fluids and electrolyte repletion per DKA protocol; the anion "
            "gap closed after 14 hours.",
            "# {diagnosis}: managed with insulin gtt, 5 L IVF and q2h chemistries. Gap closed overnight and {he} "
            "was transitioned to SC insulin with a 2-hour overlap before stopping the drip.",
        ),
        (
            "{He} was seen by the diabetes educator and restarted on glargine 22 units nightly with a lispro "
            "sliding scale. Social work assisted with insurance coverage so that {he} can afford insulin.",
            "Basal-bolus insulin was resumed and titrated with fingersticks in the 120-200 range. {He} received "
            "sick-day teaching and a glucometer prescription; social work helped resolve the coverage issue.",
        ),
    ),
    instructions=(
        "You were admitted with diabetic ketoacidosis (DKA), a dangerous condition that happens when the body "
        "does not have enough insulin. Never stop your long-acting insulin (glargine), even if you are not "
        "eating. Check your blood sugar before meals and at bedtime.",
        "You were in the hospital for DKA. Continue glargine 22 units every night and lispro with meals as per "
        "your sliding scale. If you are vomiting and cannot keep fluids down, or your sugars stay above 300, "
        "call the diabetes clinic or come to the ED.",
    ),
    followup=("Follow up with ___ Diabetes Center within 1-2 weeks; bring your glucose log.",),
    next_storylines=("diabetic_ketoacidosis",),
)

CELLULITIS = Storyline(
    key="cellulitis",
    title="Cellulitis of the left lower extremity",
    service="MED",
    note_service="MEDICINE",
    ages=(30, 92),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "OBSERVATION ADMIT"),
    admission_locations=("EMERGENCY ROOM", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("left leg redness and swelling", "LLE erythema, pain", "leg redness, fever"),
    diagnosis=Diagnosis("L03116", ("left lower extremity cellulitis", "cellulitis of the left leg", "LLE cellulitis")),
    medications=(
        Medication("Cephalexin", "500", "mg", "PO", "Q6H", "CAP", "antibiotic for your skin infection"),
        ACETAMINOPHEN_PRN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 3 days of spreading redness, "
        "warmth and pain of the left shin. {He} recalls a small scrape on {his} ankle from gardening last week. "
        "{He} had a temperature of 100.9 at home and was admitted from the ED for {diagnosis}.",
        "{age} yo {man} w/ {history} p/w worsening L leg erythema despite 2 days of PO cephalexin prescribed by "
        "PCP. Now with fevers and difficulty ambulating. Borders marked in ED; given IV vanc and admitted for "
        "{diagnosis}.",
        "This {age} year old {man} with {history} noticed a painful red area above {his} left ankle that has "
        "expanded rapidly over 48 hours. {He} denies trauma, IV drug use or prior similar episodes. Seen in "
        "clinic and referred in for IV antibiotics.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Left lower extremity with a 15 x 10 cm area of erythema, warmth and tenderness extending from the "
                "ankle to the mid-shin; borders marked; no fluctuance or crepitus.",
                "LLE: well-demarcated erythema and induration from the dorsum of the foot to the mid-calf, no "
                "purulence, no bullae.",
            ),
        ),
        Finding("Pertinent Results", ("WBC 12.8; lactate 1.4.", "Mild leukocytosis to 12.8, CRP 88.")),
        Finding(
            "Pertinent Results",
            ("LLE venous duplex negative for DVT.", "Left leg ultrasound: no deep venous thrombosis."),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Blood cultures no growth at 48 hours.",),
            probability=0.6,
        ),
        Finding(
            "Physical Exam",
            ("Onychomycosis of the bilateral toenails.",),
            probability=0.25,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            ACUTE_KIDNEY_INJURY,
            probability=0.1,
            course=(
                "{His} creatinine rose from 0.8 to 1.6 on vancomycin, consistent with {complication}; vancomycin "
                "was stopped and it improved with IV fluids.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}. {He} was started on IV cefazolin with one dose of vancomycin, "
            "and the affected leg was elevated. Erythema receded from the marked borders by hospital day 2.",
            "# {diagnosis}: non-purulent, so treated with IV cefazolin. Leg elevation and marking of borders; "
            "fevers resolved within 24 hours and erythema steadily regressed.",
        ),
        (
            "{He} was transitioned to oral cephalexin to complete a 10-day total course. Tinea pedis, a likely "
            "portal of entry, was treated with topical antifungal.",
            "Changed to PO cephalexin once clinically improving, to finish 10 days of therapy. Counselled on "
            "skin care and compression once healed.",
        ),
    ),
    instructions=(
        "You were admitted with a skin infection of your left leg (cellulitis). It improved with IV antibiotics. "
        "Please take cephalexin four times a day until finished and keep the leg elevated when sitting.",
        "You had cellulitis, a bacterial skin infection. The redness should keep fading over the next few days. "
        "If it spreads past the marked lines, or you have fevers or chills, please call your doctor.",
    ),
    followup=("Follow up with your PCP in 3-5 days to make sure the infection is improving.",),
    next_storylines=("cellulitis", "sepsis"),
)

ACUTE_KIDNEY_INJURY_STORYLINE = Storyline(
    key="acute_kidney_injury",
    title="Prerenal acute kidney injury from volume depletion",
    service="MED",
    note_service="MEDICINE",
    ages=(55, 95),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "PHYSICIAN REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY"),
    chief_complaints=("abnormal labs", "weakness, diarrhea", "elevated creatinine"),
    diagnosis=ACUTE_KIDNEY_INJURY,
    secondary=(Diagnosis("E860", ("dehydration", "volume depletion")),),
    medications=(ONDANSETRON_PRN,),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who was referred in by {his} PCP after routine labs "
        "showed a creatinine of 3.2, up from a baseline of 1.0. {He} reports 5 days of watery diarrhea and poor "
        "oral intake after a sick contact, but continued all of {his} home medications including ibuprofen.",
        "{age} yo {man} with {history} p/w several days of vomiting, diarrhea and lightheadedness. Found to "
        "have Cr 3.2 (b/l 1.0) and K 5.4 in the ED. Admitted for {diagnosis}, likely prerenal.",
        "This {age} year old {man} with {history} presented with generalized weakness and decreased urine "
        "output. {He} had a GI illness last week and has been drinking very little. Labs in the ED were notable "
        "for {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Dry mucous membranes, flat JVP; orthostatic with HR 88 lying and 114 standing.",
                "Appears dry; JVP not visible; skin tenting; positive orthostatics.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Creatinine 3.2 (baseline 1.0), BUN 62; K 5.4, bicarbonate 18.",
                "Admission BUN/Cr 62/3.2, from a baseline creatinine of 1.0.",
            ),
        ),
        Finding("Pertinent Results", ("FENa 0.4%, consistent with a prerenal etiology.",), probability=0.8),
        Finding(
            "Pertinent Results",
            ("Renal ultrasound: no hydronephrosis; kidneys normal in size.",),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("Renal ultrasound incidentally notes a 9 mm nonobstructing left renal calculus.",),
            probability=0.12,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E875", ("hyperkalemia", "high potassium")),
            probability=0.3,
            course=(
                "Initial potassium was 6.1 with peaked T waves ({complication}); {he} was treated with IV calcium "
                "gluconate, insulin with dextrose and sodium zirconium cyclosilicate, with normalisation by the "
                "next morning.",
                "Course notable for {complication} to 6.0 without ECG changes, which resolved with fluids and a "
                "single dose of a potassium binder.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis} in the setting of volume depletion from gastroenteritis and "
            "continued ACE inhibitor, diuretic and NSAID use. These medications were held and {he} received IV "
            "fluids.",
            "# {diagnosis}: prerenal by history and FENa. Received 3 L of LR over 24 hours; lisinopril, "
            "diuretics and NSAIDs held. Urine output recovered promptly.",
        ),
        (
            "Creatinine improved daily, to 1.3 on the day of discharge. Diarrhea had resolved and {he} was "
            "tolerating a regular diet.",
            "Cr downtrended 3.2 -> 2.1 -> 1.4 with hydration; renally dosed all medications. Blood pressure "
            "remained normal off antihypertensives.",
        ),
    ),
    instructions=(
        "You were admitted because your kidneys were not working well (acute kidney injury) after you became "
        "dehydrated. Your kidney function improved with IV fluids. Some of your blood pressure medicines were "
        "held; do not restart them until your doctor checks your labs. Avoid ibuprofen and naproxen.",
        "Your kidney function dropped because you were dehydrated. It is now much better. Please drink plenty of "
        "fluids, avoid NSAIDs, and have your blood work rechecked this week.",
    ),
    followup=("Please have labs (chem-7) checked in 2-3 days and see your PCP within 1 week.",),
    next_storylines=("acute_kidney_injury", "hyponatremia", "urinary_tract_infection"),
)

HYPONATREMIA = Storyline(
    key="hyponatremia",
    title="Symptomatic hyponatremia from a thiazide diuretic",
    service="MED",
    note_service="MEDICINE",
    ages=(60, 97),
    length_of_stay=(2, 6),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "PHYSICIAN REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("confusion, low sodium", "fatigue, nausea", "hyponatremia"),
    diagnosis=Diagnosis("E871", ("hyponatremia", "symptomatic hyponatremia", "thiazide-associated hyponatremia")),
    secondary=(Diagnosis("T502X5A", ("adverse effect of hydrochlorothiazide", "thiazide adverse effect")),),
    medications=(Medication("amLODIPine", "5", "mg", "PO", "DAILY", "TAB", "for blood pressure, instead of HCTZ"),),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with a week of fatigue, nausea and "
        "unsteady gait. Hydrochlorothiazide was started ___ weeks ago for blood pressure. Family reports {he} "
        "has been drinking large amounts of water and tea. Sodium in the ED was 118.",
        "{age} yo {man} w/ {history} sent in by PCP for Na 119 on routine labs after recent initiation of HCTZ. "
        "Pt endorses mild confusion, anorexia and two near-falls. No seizures. Admitted for {diagnosis}.",
        "This {age} year old {man} with {history} was brought in by family for increasing forgetfulness and "
        "lethargy over several days. {He} is on a thiazide diuretic and eats little besides toast and tea. "
        "Labs were notable for a sodium of 118.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Mildly confused, oriented x2; no asterixis; euvolemic on exam with moist mucous membranes.",
                "Slow to respond but following commands; JVP flat-normal, no edema.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Sodium 118 on admission; serum osm 248, urine osm 390, urine Na 62.",
                "Na 118, serum osmolality 248; urine osmolality 390 and urine sodium 62.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("TSH 2.1 and AM cortisol 16.8, both normal.",),
            probability=0.6,
        ),
        Finding("Pertinent Results", ("Sodium 131 on the day of discharge.", "Na 131 at discharge.")),
        Finding("Physical Exam", ("Seborrheic keratoses over the back.",), probability=0.2, noise=True),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}, felt to be due to hydrochlorothiazide combined with low "
            "solute intake. HCTZ was stopped and {he} was placed on a 1.2 L fluid restriction with sodium checks "
            "every 4-6 hours.",
            "# {diagnosis}: likely thiazide-induced plus tea-and-toast physiology. Held HCTZ, gave cautious "
            "normal saline and liberalised dietary solute, with a correction goal of <8 mEq/L per 24 hours.",
        ),
        (
            "Sodium corrected gradually to 131 without overcorrection, and {his} mental status returned to "
            "baseline. Amlodipine was started in place of hydrochlorothiazide for blood pressure control.",
            "Na rose 118 -> 124 -> 128 -> 131; confusion resolved. BP managed with amlodipine; HCTZ added to "
            "allergy/intolerance list.",
        ),
    ),
    instructions=(
        "You were admitted with a low sodium level, which was likely caused by your water pill "
        "(hydrochlorothiazide). We stopped that medicine and started amlodipine for your blood pressure. Please "
        "do not take hydrochlorothiazide again and limit your fluids to about 1.5 liters a day until your "
        "doctor rechecks your sodium.",
        "Your sodium was dangerously low. It improved after stopping hydrochlorothiazide and limiting fluids. "
        "Please eat regular meals with some protein and salt, and have your blood checked in a few days.",
    ),
    followup=("Check sodium level in 2-3 days; PCP follow-up within 1 week.",),
    next_storylines=("hyponatremia", "hip_fracture"),
)

SEPSIS = Storyline(
    key="sepsis",
    title="E. coli sepsis from acute pyelonephritis",
    service="MED",
    note_service="MEDICINE",
    ages=(45, 95),
    length_of_stay=(4, 10),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM SKILLED NURSING FACILITY"),
    discharge_locations=("HOME HEALTH CARE", "SKILLED NURSING FACILITY", "HOME"),
    chief_complaints=("fever, rigors", "flank pain, fever", "hypotension, altered mental status"),
    diagnosis=Diagnosis("A4151", ("E. coli sepsis", "sepsis due to E. coli bacteremia", "gram-negative sepsis")),
    secondary=(Diagnosis("N10", ("acute pyelonephritis", "right pyelonephritis")),),
    medications=(CIPROFLOXACIN, ACETAMINOPHEN_PRN),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with shaking chills, fever to 103 and "
        "right flank pain for 2 days. On arrival {he} was hypotensive to 84/46 with a lactate of 4.1. {He} "
        "received 30 cc/kg of IV fluids and broad-spectrum antibiotics.",
        "{age} yo {man} w/ {history} BIBEMS from home with fevers, rigors, R CVA pain and confusion. In ED "
        "T 39.4, HR 122, BP 88/50, lactate 4.1. UA grossly positive. Given 3L IVF, cefepime, blood cx drawn; "
        "admitted for {diagnosis}.",
        "This {age} year old {man} with {history} developed dysuria several days ago, followed by right back "
        "pain, vomiting and high fevers. {He} was found by family to be lethargic and was brought to the ED, "
        "where {he} met sepsis criteria with a urinary source.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "T 39.4, HR 122, BP 84/46; right CVA tenderness; lethargic but arousable.",
                "Febrile and tachycardic, ill-appearing; marked right costovertebral angle tenderness.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Lactate 4.1, WBC 19.6 with 12% bands.", "WBC 19.6 (12% bands), lactate 4.1 -> 1.7 after fluids."),
        ),
        Finding(
            "Pertinent Results",
            (
                "Blood cultures 2/2 bottles E. coli, pan-sensitive except ampicillin.",
                "BLOOD CULTURE x2: ESCHERICHIA COLI, resistant to ampicillin only.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT abdomen/pelvis: right perinephric stranding consistent with pyelonephritis, no abscess or "
                "obstructing stone.",
            ),
            probability=0.7,
        ),
        Finding(
            "Pertinent Results",
            ("CT incidentally shows sigmoid diverticulosis without diverticulitis.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("R6521", ("septic shock", "distributive (septic) shock")),
            probability=0.25,
            course=(
                "{He} remained hypotensive despite 4 L of fluid and was transferred to the MICU for {complication}, "
                "requiring norepinephrine for 30 hours before pressors were weaned off.",
                "Course complicated by {complication} on HD1 requiring a right IJ central line and levophed; "
                "weaned off by HD3 and called out to the floor.",
            ),
        ),
        Complication(
            ACUTE_KIDNEY_INJURY,
            probability=0.3,
            course=(
                "Creatinine peaked at 2.4 from a baseline of 0.9, consistent with {complication} from sepsis; it "
                "recovered to 1.1 with volume resuscitation.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis} from a right-sided pyelonephritis. {He} was treated with IV "
            "cefepime, narrowed to ceftriaxone once sensitivities returned, and received aggressive fluid "
            "resuscitation.",
            "# {diagnosis}: source was right pyelonephritis on CT. Started on cefepime, narrowed to CTX when "
            "blood cultures speciated; lactate cleared after fluids.",
        ),
        (
            "Surveillance blood cultures from hospital day 2 were negative. {He} was transitioned to oral "
            "ciprofloxacin to complete a 14-day course of antibiotics from the first negative culture.",
            "Repeat blood cx NGTD. Switched to PO cipro once afebrile x 48h, to complete 14 days total. PT "
            "evaluated for deconditioning after the ICU stay.",
        ),
    ),
    instructions=(
        "You were admitted with a severe blood infection (sepsis) that came from a kidney infection. You "
        "were treated with IV fluids and antibiotics and improved. Please complete the full course of "
        "ciprofloxacin and drink plenty of fluids.",
        "You had an infection of the kidney that spread to your bloodstream. Return to the ED for fevers, "
        "shaking chills, dizziness or vomiting that prevents you from taking your antibiotic.",
    ),
    followup=("Follow up with your PCP within 1 week; repeat labs at that visit.",),
    next_storylines=("urinary_tract_infection", "acute_kidney_injury"),
)

C_DIFFICILE_COLITIS = Storyline(
    key="c_difficile_colitis",
    title="Clostridioides difficile colitis after antibiotics",
    service="MED",
    note_service="MEDICINE",
    ages=(40, 95),
    length_of_stay=(2, 7),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM SKILLED NURSING FACILITY"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY"),
    chief_complaints=("diarrhea", "abdominal pain, diarrhea", "watery stools, fever"),
    diagnosis=C_DIFF_COLITIS,
    medications=(VANCOMYCIN_ORAL,),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who completed a course of antibiotics for a "
        "urinary tract infection 2 weeks ago and now presents with 5 days of 8-10 watery bowel movements daily, "
        "crampy lower abdominal pain and low-grade fevers.",
        "{age} yo {man} w/ {history}, recent clindamycin for a dental infection, p/w profuse watery diarrhea, "
        "lower abd cramping and anorexia. WBC 18 in the ED; C. diff PCR sent and positive. Admitted for "
        "{diagnosis} with dehydration.",
        "This {age} year old {man} with {history} was recently treated with antibiotics for pneumonia. Over "
        "the past week {he} has had worsening foul-smelling diarrhea, weakness and poor oral intake, and was "
        "found to have {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Abdomen mildly distended with diffuse lower abdominal tenderness, no rebound or guarding; "
                "hyperactive bowel sounds.",
                "Diffusely tender lower abdomen without peritoneal signs.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Stool C. difficile PCR positive, toxin EIA positive.", "C. diff toxin B PCR positive."),
        ),
        Finding(
            "Pertinent Results",
            ("WBC 18.1; creatinine 1.4 (baseline 0.9); albumin 2.9.", "WBC 18.1, Cr 1.4, albumin 2.9."),
        ),
        Finding(
            "Pertinent Results",
            ("CT A/P: pancolonic wall thickening consistent with colitis; no megacolon or free air.",),
            probability=0.5,
        ),
        Finding(
            "Pertinent Results",
            ("CT incidentally shows a 2.1 cm left adrenal adenoma.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E876", ("hypokalemia", "low potassium")),
            probability=0.35,
            course=(
                "{He} had {complication} to 2.8 from GI losses, repleted IV and PO; {he} will continue potassium "
                "supplementation for 5 days.",
            ),
            medications=(POTASSIUM_CHLORIDE,),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}, classified as severe given WBC >15. {He} was started on oral "
            "vancomycin 125 mg four times daily, received IV fluids and was placed on contact precautions.",
            "# {diagnosis}: severe by leukocytosis and AKI. Treated with PO vancomycin, IVF for volume depletion; "
            "unnecessary antibiotics and PPI were discontinued.",
        ),
        (
            "Stool frequency decreased to 2-3 semi-formed stools per day and the leukocytosis resolved. {He} was "
            "tolerating a regular diet at discharge and will complete 10 days of oral vancomycin.",
            "Diarrhea and abdominal pain improved steadily; WBC normalised to 9. Discharged to finish a 10-day "
            "vancomycin course.",
        ),
    ),
    instructions=(
        "You were admitted with an infection of the colon called C. difficile, which can happen after "
        "antibiotics. Please take oral vancomycin four times a day for the full course. Wash your hands with "
        "soap and water, as hand sanitizer does not kill C. diff.",
        "You had C. diff colitis. Keep drinking fluids. Call your doctor if diarrhea returns after you finish "
        "vancomycin, or if you have severe belly pain, fever or blood in your stool.",
    ),
    next_storylines=("c_difficile_colitis", "acute_kidney_injury"),
)

STORYLINES: tuple[Storyline, ...] = (
    PNEUMONIA,
    URINARY_TRACT_INFECTION,
    COPD_EXACERBATION,
    UPPER_GI_BLEED,
    DIABETIC_KETOACIDOSIS,
    CELLULITIS,
    ACUTE_KIDNEY_INJURY_STORYLINE,
    HYPONATREMIA,
    SEPSIS,
    C_DIFFICILE_COLITIS,
)
