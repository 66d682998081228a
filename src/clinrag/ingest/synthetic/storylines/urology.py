"""Urology storylines: BPH with retention, obstructing ureteral stone and renal cell carcinoma."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

TAMSULOSIN = Medication("Tamsulosin", "0.4", "mg", "PO", "QHS", "CAP", "to relax the prostate and ureter")
OXYBUTYNIN_PRN = Medication("Oxybutynin", "5", "mg", "PO", "Q8H:PRN bladder spasm", "TAB", "for bladder spasms")
OXYCODONE_PRN = Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain")
ACETAMINOPHEN = Medication("Acetaminophen", "650", "mg", "PO", "Q6H", "TAB", "for pain")
DOCUSATE = Medication("Docusate Sodium", "100", "mg", "PO", "BID", "CAP", "stool softener")

BPH_URINARY_RETENTION = Storyline(
    key="bph_urinary_retention",
    title="BPH with urinary retention treated with TURP",
    service="GU",
    note_service="UROLOGY",
    ages=(55, 92),
    length_of_stay=(1, 3),
    admission_types=("SURGICAL SAME DAY ADMISSION", "ELECTIVE", "URGENT"),
    admission_locations=("PHYSICIAN REFERRAL", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("urinary retention", "BPH, indwelling Foley", "failed voiding trials"),
    diagnosis=Diagnosis(
        "N401",
        ("benign prostatic hyperplasia", "BPH with lower urinary tract symptoms", "symptomatic BPH"),
    ),
    secondary=(Diagnosis("R339", ("urinary retention", "chronic urinary retention")),),
    procedures=(
        Procedure(
            "0VB08ZZ",
            ("transurethral resection of the prostate (TURP)", "TURP", "bipolar transurethral resection of prostate"),
        ),
    ),
    medications=(
        Medication("Finasteride", "5", "mg", "PO", "DAILY", "TAB", "to shrink the prostate"),
        OXYBUTYNIN_PRN,
        Medication("Phenazopyridine", "200", "mg", "PO", "TID:PRN burning x 3 days", "TAB", "for burning"),
        DOCUSATE,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and years of weak stream, nocturia and incomplete "
        "emptying who presented to the ED ___ weeks ago in acute urinary retention with 1.1 L drained. {He} "
        "failed two voiding trials on tamsulosin and has had an indwelling Foley since. {He} now presents for "
        "elective TURP.",
        "{age} yo {man} w/ {history}, {diagnosis} (prostate ~60 g on TRUS), urinary retention since ___ with "
        "failed TOV x2 despite tamsulosin and finasteride. Admitted for TURP.",
        "This {age} year old {man} with {history} has progressive obstructive voiding symptoms (IPSS 26) and "
        "recurrent urinary retention requiring catheterization. Cystoscopy showed an obstructing trilobar "
        "prostate. {He} elected to proceed with surgery.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Foley catheter in place draining light pink urine on CBI; abdomen soft, nondistended.",
                "GU: three-way Foley with CBI, light pink effluent without clots.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Post-void residual 850 mL on initial presentation.", "Bladder scan PVR 850 mL at presentation."),
        ),
        Finding("Pertinent Results", ("PSA 3.1; creatinine 1.2.", "PSA 3.1 ng/mL, Cr 1.2.")),
        Finding(
            "Pertinent Results",
            ("Cystoscopy: trilobar prostatic hypertrophy with a high bladder neck and bladder trabeculation.",),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("Pathology: benign nodular prostatic hyperplasia, 18 g resected; no malignancy.",),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("Renal ultrasound: incidental 1.5 cm simple cyst of the right kidney; no hydronephrosis.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("R310", ("gross hematuria", "post-TURP hematuria")),
            probability=0.15,
            course=(
                "On POD#1 {he} developed {complication} with clot retention; the catheter was hand-irrigated and "
                "CBI was resumed until the urine cleared, without need for transfusion.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted for surgical management of {diagnosis} with refractory urinary retention.",
            "# {diagnosis}: failed medical therapy and voiding trials; admitted electively for TURP.",
        ),
        (
            "{He} underwent {procedure} without complication and was started on continuous bladder irrigation "
            "postoperatively.",
            "In the OR {he} underwent {procedure}; a three-way catheter was placed with CBI.",
        ),
        (
            "CBI was weaned off on POD#1 as the urine cleared. {He} passed a voiding trial with a post-void "
            "residual under 100 mL and was discharged without a catheter.",
            "Urine clear to light pink off CBI; Foley removed POD 1-2 and {he} voided with PVR 60 mL.",
        ),
    ),
    instructions=(
        "You had a TURP, an operation to remove prostate tissue that was blocking your urine flow. It is normal "
        "to see some blood in the urine for a few weeks. Drink plenty of fluids, avoid straining and heavy "
        "lifting for 2-4 weeks, and call for clots, inability to urinate or fever.",
        "You were admitted for prostate surgery (TURP) because you could not empty your bladder. You may feel "
        "burning and urgency for a few weeks. Take oxybutynin for bladder spasms as needed.",
    ),
    followup=("Follow up in urology clinic in 4-6 weeks with a post-void residual check.",),
    sexes="M",
    next_storylines=("urinary_tract_infection",),
)

OBSTRUCTING_URETERAL_STONE = Storyline(
    key="obstructing_ureteral_stone",
    title="Obstructing left ureteral stone treated with ureteroscopy, laser lithotripsy and stent",
    service="GU",
    note_service="UROLOGY",
    ages=(22, 80),
    length_of_stay=(1, 3),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME",),
    chief_complaints=("left flank pain", "renal colic", "L flank pain, nausea"),
    diagnosis=Diagnosis(
        "N132",
        (
            "left ureteral stone with hydronephrosis",
            "left proximal ureteral calculus with hydronephrosis",
            "left obstructing ureteral stone",
        ),
    ),
    procedures=(
        Procedure(
            "0TF78ZZ",
            (
                "left ureteroscopy with laser lithotripsy",
                "L URS/laser lithotripsy",
                "left ureteroscopic laser lithotripsy",
            ),
        ),
        Procedure("0T778DZ", ("left ureteral stent placement", "left double-J stent")),
    ),
    medications=(
        TAMSULOSIN,
        OXYBUTYNIN_PRN,
        OXYCODONE_PRN,
        Medication("Ibuprofen", "600", "mg", "PO", "Q6H:PRN pain", "TAB", "for pain"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with sudden-onset severe left flank pain "
        "radiating to the groin, with nausea and vomiting. {He} could not find a comfortable position. CT showed "
        "a 7 mm {diagnosis}.",
        "{age} yo {man} w/ {history}, prior nephrolithiasis, p/w 2 days of L renal colic refractory to toradol "
        "and morphine in the ED. CT: 7 mm obstructing stone with moderate hydro; Cr 1.4 from 0.9. Admitted to "
        "urology for {diagnosis}.",
        "This {age} year old {man} with {history} developed colicky left-sided pain and gross hematuria last "
        "night. {He} failed a trial of passage with tamsulosin over 2 weeks and presented with intractable pain.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            ("Left CVA tenderness; afebrile.", "Uncomfortable, writhing; L CVA tenderness; abdomen soft."),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT A/P without contrast: 7 mm obstructing left proximal ureteral stone with moderate left "
                "hydronephrosis and perinephric stranding.",
                "Stone-protocol CT: 7 mm L ureteral calculus, moderate L hydroureteronephrosis.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("UA: 50 RBC, 5 WBC, no bacteria; Cr 1.4 (baseline 0.9).", "Urinalysis with hematuria, no pyuria."),
        ),
        Finding("Pertinent Results", ("Stone analysis: calcium oxalate monohydrate.",), probability=0.5),
        Finding(
            "Pertinent Results",
            ("CT incidentally shows hepatic steatosis.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("N10", ("acute pyelonephritis", "post-ureteroscopy pyelonephritis")),
            probability=0.08,
            course=(
                "On POD#1 {he} spiked to 38.7 and was treated for {complication} with IV ceftriaxone, then oral "
                "ciprofloxacin once urine culture returned.",
            ),
            medications=(Medication("Ciprofloxacin HCl", "500", "mg", "PO", "Q12H", "TAB", "antibiotic"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with a {diagnosis} and intractable pain. Given the stone size and acute kidney "
            "injury, urology recommended definitive management.",
            "# {diagnosis}: pain uncontrolled on IV opioids/NSAIDs, with AKI; consented for ureteroscopy.",
        ),
        (
            "{He} underwent {procedure} with placement of a left ureteral stent on a string.",
            "In the OR {he} underwent {procedure}; stone fragments were basket-extracted and a stent was left in "
            "place.",
        ),
        (
            "Postoperatively pain was well controlled, creatinine returned to baseline, and {he} was voiding "
            "without difficulty. The stent will be removed in 7 days.",
            "Cr back to 0.9; tolerating PO; discharged with stent and instructions for removal in 1 week.",
        ),
    ),
    social=(SocialFact(("Drinks little water at work; 2-3 sodas per day.", "Works outdoors; no tobacco.")),),
    instructions=(
        "You had a kidney stone blocking your left ureter, which was broken up with a laser. A stent (small tube) "
        "was left in place and will be removed in 1 week. It is normal to have some blood in your urine and "
        "stent discomfort. Drink at least 2-3 liters of water a day.",
        "You were admitted for an obstructing kidney stone and had ureteroscopy with a stent placed. Call for "
        "fever over 101, inability to urinate, or pain not controlled with your medications.",
    ),
    followup=("Stent removal in urology clinic in 7 days; 24-hour urine stone risk study in 6 weeks.",),
    next_storylines=("obstructing_ureteral_stone",),
)

RENAL_CELL_CARCINOMA = Storyline(
    key="renal_cell_carcinoma",
    title="Right renal cell carcinoma treated with laparoscopic radical nephrectomy",
    service="GU",
    note_service="UROLOGY",
    ages=(42, 86),
    length_of_stay=(2, 5),
    admission_types=("ELECTIVE", "SURGICAL SAME DAY ADMISSION"),
    admission_locations=("PHYSICIAN REFERRAL", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("right renal mass", "kidney mass", "renal mass, elective nephrectomy"),
    diagnosis=Diagnosis(
        "C641",
        ("right renal cell carcinoma", "right-sided RCC", "right kidney RCC"),
    ),
    procedures=(
        Procedure(
            "0TT04ZZ",
            (
                "laparoscopic right radical nephrectomy",
                "right lap radical nephrectomy",
                "laparoscopic removal of the right kidney",
            ),
        ),
    ),
    medications=(OXYCODONE_PRN, ACETAMINOPHEN, DOCUSATE),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who was found to have a 5.4 cm enhancing right renal "
        "mass on a CT obtained for abdominal pain. Staging CT of the chest was negative. {He} presents for "
        "elective nephrectomy.",
        "{age} yo {man} w/ {history} p/w painless gross hematuria. CT urogram: 5.4 cm enhancing R renal lesion "
        "without renal vein involvement or adenopathy, c/w {diagnosis}. Admitted for lap radical nephrectomy.",
        "This {age} year old {man} with {history} had an incidentally discovered right kidney mass. After "
        "discussion of partial versus radical nephrectomy, given its central location, {he} elected radical "
        "nephrectomy.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Port sites clean, dry and intact; abdomen soft, appropriately tender.",
                "Incisions c/d/i, no erythema; abdomen soft, mildly tender near the extraction site.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT A/P: 5.4 cm enhancing solid mass in the lower pole of the right kidney; no renal vein "
                "involvement; no adenopathy.",
                "CT: 5.4 cm heterogeneously enhancing R renal mass, no IVC/renal vein thrombus, no lymphadenopathy.",
            ),
        ),
        Finding("Pertinent Results", ("Chest CT negative for metastatic disease.",), probability=0.7),
        Finding(
            "Pertinent Results",
            ("Pathology: clear cell renal cell carcinoma, ISUP grade 2, pT1b, margins negative.",),
            probability=0.7,
        ),
        Finding("Pertinent Results", ("Creatinine 1.0 preop, 1.4 at discharge.", "Cr 1.0 -> 1.4.")),
        Finding(
            "Pertinent Results",
            ("CT incidentally shows cholelithiasis without cholecystitis.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("D62", ("acute blood loss anemia", "postoperative anemia")),
            probability=0.1,
            course=(
                "Hgb fell to 7.3 on POD#1 and {he} received 1 unit PRBC for {complication}, with stable counts "
                "afterwards.",
            ),
        ),
        Complication(
            Diagnosis("K567", ("postoperative ileus", "ileus")),
            probability=0.1,
            course=(
                "Diet advancement was delayed by {complication}, which resolved with bowel rest and ambulation by "
                "POD 3.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted electively to urology for surgical management of a {diagnosis}.",
            "# {diagnosis}: cT1b, no metastases on staging; admitted for nephrectomy.",
        ),
        (
            "{He} underwent {procedure} without complication; estimated blood loss was 150 mL.",
            "On the day of admission {he} underwent {procedure}; the specimen was extracted intact.",
        ),
        (
            "Postoperatively {his} diet was advanced, the Foley was removed on POD#1, and {he} ambulated "
            "independently. Creatinine rose modestly to 1.4 as expected after nephrectomy.",
            "Ambulating, tolerating diet and voiding after Foley removal at discharge. Expected mild Cr bump.",
        ),
    ),
    instructions=(
        "You had your right kidney removed laparoscopically because of a kidney cancer. Avoid NSAIDs such as "
        "ibuprofen to protect your remaining kidney. No lifting more than 10 pounds for 6 weeks. Call for "
        "fever, wound redness, or decreased urine output.",
        "You were admitted for a right radical nephrectomy. Your pathology showed a kidney cancer that appears "
        "completely removed; your urologist will review surveillance imaging with you.",
    ),
    followup=("Follow up in urologic oncology clinic in 2-3 weeks to review pathology; labs at that visit.",),
    next_storylines=("acute_kidney_injury",),
)

STORYLINES: tuple[Storyline, ...] = (BPH_URINARY_RETENTION, OBSTRUCTING_URETERAL_STONE, RENAL_CELL_CARCINOMA)
