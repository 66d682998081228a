"""Obstetric and early-pregnancy storylines: preeclampsia, perineal laceration, hyperemesis and ectopic pregnancy."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

IBUPROFEN = Medication("Ibuprofen", "600", "mg", "PO", "Q6H:PRN pain", "TAB", "for pain")
ACETAMINOPHEN = Medication("Acetaminophen", "650", "mg", "PO", "Q6H:PRN pain", "TAB", "for pain")
DOCUSATE = Medication("Docusate Sodium", "100", "mg", "PO", "BID", "CAP", "stool softener")
PRENATAL_VITAMINS = Medication("Prenatal Vitamins", "1", "TAB", "PO", "DAILY", "TAB", "prenatal vitamin")
FERROUS_SULFATE = Medication("Ferrous Sulfate", "325", "mg", "PO", "DAILY", "TAB", "iron for anemia")
OXYCODONE_PRN = Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain")

OBSTETRIC_ADMISSION_TYPES = ("EW EMER.", "URGENT")
OBSTETRIC_AGES = (18, 44)

POSTPARTUM_PREECLAMPSIA = Storyline(
    key="postpartum_preeclampsia",
    title="Postpartum preeclampsia with severe features treated with magnesium",
    service="OBS",
    note_service="OBSTETRICS/GYNECOLOGY",
    ages=OBSTETRIC_AGES,
    length_of_stay=(2, 4),
    admission_types=OBSTETRIC_ADMISSION_TYPES,
    admission_locations=("EMERGENCY ROOM", "PHYSICIAN REFERRAL"),
    discharge_locations=("HOME",),
    chief_complaints=("headache, elevated blood pressure postpartum", "severe headache", "postpartum hypertension"),
    diagnosis=Diagnosis(
        "O1415",
        (
            "postpartum preeclampsia with severe features",
            "severe preeclampsia, postpartum",
            "postpartum preE with severe features",
        ),
    ),
    medications=(
        Medication("NIFEdipine (Extended Release)", "30", "mg", "PO", "DAILY", "TAB", "for blood pressure"),
        Medication("Labetalol", "200", "mg", "PO", "BID", "TAB", "for blood pressure"),
        IBUPROFEN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old G2P2 {man} with {history} who is postpartum day 5 after an uncomplicated "
        "vaginal delivery at term. {He} presents with a severe frontal headache unrelieved by acetaminophen and "
        "seeing spots. A visiting nurse measured a blood pressure of 172/108.",
        "{age} yo G1P1 w/ {history}, PPD#6 s/p primary LTCS, p/w headache, blurry vision and BPs 160s/100s at "
        "home. Normotensive throughout pregnancy. Admitted to L&D for {diagnosis} and magnesium.",
        "This {age} year old {man} with {history}, now one week postpartum, presented to triage with a "
        "pounding headache, epigastric discomfort and swelling of {his} hands and face. Blood pressures were "
        "persistently above 160/110.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "BP 168/104 on arrival; 2+ bilateral lower extremity edema; 3+ reflexes without clonus.",
                "BPs 160-172/100-110; brisk DTRs, no clonus; fundus firm below the umbilicus.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Urine protein/creatinine ratio 0.8; platelets 182; AST 38, ALT 41; creatinine 0.7.",
                "Preeclampsia labs: UPC 0.8, plt 182, LFTs and Cr within normal limits.",
            ),
        ),
        Finding("Pertinent Results", ("Magnesium level 5.6 on infusion.",), probability=0.5),
        Finding(
            "Pertinent Results",
            ("CT head without contrast: no acute intracranial process.",),
            probability=0.3,
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to labor and delivery with {diagnosis}, given severe-range blood pressures and "
            "headache. {He} received magnesium sulfate for 24 hours for seizure prophylaxis and IV labetalol for "
            "acute blood pressure control.",
            "# {diagnosis}: started on magnesium sulfate 2 g/hr x 24 hrs; severe-range BPs treated with IV "
            "labetalol and hydralazine per protocol. Headache resolved within 12 hours.",
        ),
        (
            "Nifedipine ER and oral labetalol were started, with blood pressures 130s-140s/80s-90s off IV "
            "medications for more than 24 hours prior to discharge.",
            "Transitioned to nifedipine ER 30 daily plus labetalol 200 BID; BPs stable in the 130s/80s. "
            "Breastfeeding compatible regimen reviewed with lactation.",
        ),
    ),
    instructions=(
        "You were admitted with high blood pressure after your delivery (postpartum preeclampsia). You received "
        "magnesium to prevent seizures and started blood pressure medicines. Check your blood pressure twice a "
        "day and call if it is above 150/100. Come in right away for a severe headache, vision changes, "
        "shortness of breath or abdominal pain.",
        "You had preeclampsia after giving birth. Continue nifedipine and labetalol; both are safe with "
        "breastfeeding. Keep a log of your blood pressures and bring it to your appointment.",
    ),
    followup=("Blood pressure check with your OB within 3-5 days; postpartum visit in 4-6 weeks.",),
    sexes="F",
)

VAGINAL_DELIVERY_PERINEAL_LACERATION = Storyline(
    key="vaginal_delivery_perineal_laceration",
    title="Spontaneous vaginal delivery complicated by a third-degree perineal laceration",
    service="OBS",
    note_service="OBSTETRICS/GYNECOLOGY",
    ages=OBSTETRIC_AGES,
    length_of_stay=(2, 3),
    admission_types=OBSTETRIC_ADMISSION_TYPES,
    admission_locations=("WALK-IN/SELF REFERRAL", "PHYSICIAN REFERRAL"),
    discharge_locations=("HOME",),
    chief_complaints=("contractions", "labor", "painful contractions, leakage of fluid"),
    diagnosis=Diagnosis(
        "O7022",
        ("third-degree perineal laceration", "3b perineal laceration", "third-degree laceration (3b)"),
    ),
    secondary=(
        Diagnosis("Z370", ("single live birth", "liveborn infant")),
        Diagnosis("Z3A39", ("39 weeks gestation", "39w")),
    ),
    procedures=(
        Procedure(
            "0DQR0ZZ",
            (
                "repair of the third-degree laceration including the external anal sphincter",
                "3rd degree laceration repair with end-to-end EAS repair",
                "anal sphincter repair",
            ),
        ),
        Procedure("0KQM0ZZ", ("perineal body repair", "perineal muscle repair")),
    ),
    medications=(IBUPROFEN, ACETAMINOPHEN, DOCUSATE, PRENATAL_VITAMINS),
    hpi=(
        "{Mr} ___ is a {age} year old G1P0 {man} at 39 weeks with {history} who presented in spontaneous labor "
        "with regular painful contractions every 3 minutes. Prenatal course was uncomplicated; GBS negative. "
        "{He} progressed to complete dilation and delivered a liveborn infant.",
        "{age} yo G1P0 @ 39w0d, {history}, uncomplicated PNC, p/w SROM and ctx. Epidural placed, progressed "
        "to full; 2nd stage 2h45m. SVD of liveborn infant c/b {diagnosis}.",
        "This {age} year old {man} with {history}, G2P1 at 39 weeks, was admitted in active labor. Delivery was "
        "notable for a macrosomic infant and a {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Fundus firm at the umbilicus, lochia appropriate; perineum with intact repair and mild edema.",
                "Uterus firm, nontender; perineal repair well approximated; lochia scant.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Admission Hct 36.1; postpartum day 1 Hct 30.2.", "Hct 36.1 -> 30.2 on PPD#1."),
        ),
        Finding(
            "Pertinent Results",
            ("Blood type O+, antibody screen negative, rubella immune, GBS negative.",),
            probability=0.8,
        ),
        Finding("Pertinent Results", ("Quantitative blood loss 450 mL.",), probability=0.6),
    ),
    complications=(
        Complication(
            Diagnosis("O9081", ("postpartum anemia", "anemia of the puerperium")),
            probability=0.25,
            course=(
                "Hct fell to 24.8 on PPD#1, consistent with {complication}; {he} was asymptomatic and started on "
                "oral iron.",
                "{He} had {complication} (Hgb 8.1) and was discharged on ferrous sulfate.",
            ),
            medications=(FERROUS_SULFATE,),
        ),
    ),
    course=(
        (
            "{Mr} ___ had a spontaneous vaginal delivery of a liveborn infant complicated by a {diagnosis}.",
            "# {diagnosis}: sustained at the time of spontaneous vaginal delivery; identified on careful "
            "rectovaginal examination.",
        ),
        (
            "{He} underwent {procedure} in the delivery room under epidural anesthesia, with one dose of "
            "cefazolin given.",
            "The attending obstetrician performed {procedure} in the labor room; a single dose of IV "
            "antibiotics was given.",
        ),
        (
            "On the postpartum floor {he} was voiding, ambulating and breastfeeding, and pain was "
            "controlled with ibuprofen and acetaminophen. A bowel regimen was started.",
            "Routine postpartum care. Stool softeners, sitz baths and ice packs for perineal care. Tolerating "
            "regular diet, pain well controlled on PO meds.",
        ),
    ),
    social=(
        SocialFact(("Lives with {his} partner; plans to breastfeed.", "Married, works as a ___; no tobacco or EtOH.")),
    ),
    instructions=(
        "Congratulations on the birth of your baby. You had a tear that involved the muscle around the anus, "
        "which was repaired. Take the stool softener every day to avoid straining, use sitz baths, and nothing "
        "in the vagina (tampons, intercourse) for 6 weeks. Call for fever, heavy bleeding or loss of control of "
        "gas or stool.",
        "You had a vaginal delivery with a third-degree tear that was repaired. Pelvic rest for 6 weeks. Call "
        "your doctor for increasing perineal pain, foul-smelling discharge or soaking more than one pad an hour.",
    ),
    followup=(
        "Postpartum visit with your OB in 2 weeks for a perineal check and at 6 weeks; pelvic floor physical "
        "therapy referral provided.",
    ),
    sexes="F",
    next_storylines=("postpartum_preeclampsia",),
)

HYPEREMESIS_GRAVIDARUM = Storyline(
    key="hyperemesis_gravidarum",
    title="Hyperemesis gravidarum with dehydration and hypokalemia",
    service="OBS",
    note_service="OBSTETRICS/GYNECOLOGY",
    ages=(18, 42),
    length_of_stay=(1, 4),
    admission_types=OBSTETRIC_ADMISSION_TYPES,
    admission_locations=("EMERGENCY ROOM", "CLINIC REFERRAL"),
    discharge_locations=("HOME",),
    chief_complaints=("nausea and vomiting in pregnancy", "intractable vomiting", "vomiting, unable to keep down PO"),
    diagnosis=Diagnosis(
        "O211",
        ("hyperemesis gravidarum", "hyperemesis gravidarum with hypokalemia", "HEG with metabolic derangement"),
    ),
    secondary=(Diagnosis("Z3A10", ("10 weeks gestation", "10w")),),
    medications=(
        Medication("Ondansetron ODT", "4", "mg", "PO", "Q8H:PRN nausea", "TAB", "for nausea"),
        Medication("Pyridoxine", "25", "mg", "PO", "TID", "TAB", "vitamin B6 for nausea"),
        PRENATAL_VITAMINS,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old G1P0 {man} at 10 weeks gestation with {history} who presents with 1 week "
        "of persistent nausea and vomiting, now more than 10 times daily, with inability to keep down liquids "
        "and a 4 kg weight loss. Outpatient doxylamine-pyridoxine did not help.",
        "{age} yo G2P1 @ 10w by early US, {history}, p/w intractable n/v x5 days, lightheadedness and dark "
        "urine. 3+ ketones, K 3.1 in ED. Failed ondansetron at home. Admitted for {diagnosis}.",
        "This {age} year old {man} with {history}, approximately 10 weeks pregnant, was referred from the "
        "prenatal clinic for worsening vomiting and inability to tolerate fluids, with orthostatic dizziness.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            ("Dry mucous membranes, HR 112; abdomen soft and nontender.", "Tachycardic, dry MM, nontender abdomen."),
        ),
        Finding(
            "Pertinent Results",
            ("Urinalysis: 4+ ketones, specific gravity 1.030.", "UA: ketones 4+, SG 1.030."),
        ),
        Finding(
            "Pertinent Results",
            (
                "K 3.1, bicarbonate 30, Cr 0.6; AST 48, ALT 62.",
                "Hypokalemic (3.1) metabolic alkalosis; mild transaminitis.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Transvaginal ultrasound: single live intrauterine pregnancy at 10w2d; no molar features.",),
        ),
        Finding(
            "Pertinent Results",
            ("TSH 0.3 with normal free T4, consistent with gestational transient thyrotoxicosis.",),
            probability=0.4,
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted with {diagnosis}. {He} received IV fluids with dextrose and thiamine, "
            "scheduled IV antiemetics and potassium repletion.",
            "# {diagnosis}: treated with D5LR, thiamine before dextrose, IV ondansetron and metoclopramide PRN; "
            "electrolytes repleted.",
        ),
        (
            "Ketonuria cleared and {he} was tolerating a bland diet and oral medications by the day of discharge. "
            "Ultrasound confirmed a viable intrauterine pregnancy.",
            "Diet advanced as tolerated; off IV fluids for 24 hours prior to discharge with stable weight and "
            "normal potassium.",
        ),
    ),
    instructions=(
        "You were admitted with severe nausea and vomiting of pregnancy (hyperemesis gravidarum). Eat small, "
        "frequent bland meals and sip fluids throughout the day. Use ondansetron as needed. Return if you cannot "
        "keep fluids down for 12 hours, feel faint, or have bleeding or abdominal pain.",
        "You were treated with IV fluids and anti-nausea medicine for hyperemesis. Continue vitamin B6 and your "
        "prenatal vitamin. Your baby looked healthy on ultrasound.",
    ),
    followup=("Follow up in the prenatal clinic within 1 week.",),
    sexes="F",
    next_storylines=("vaginal_delivery_perineal_laceration",),
)

ECTOPIC_PREGNANCY = Storyline(
    key="ectopic_pregnancy",
    title="Left tubal ectopic pregnancy treated with laparoscopic salpingectomy",
    service="OBS",
    note_service="OBSTETRICS/GYNECOLOGY",
    ages=(18, 42),
    length_of_stay=(1, 2),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME",),
    chief_complaints=("abdominal pain, vaginal bleeding", "LLQ pain, positive pregnancy test", "pelvic pain"),
    diagnosis=Diagnosis(
        "O00102",
        ("left tubal ectopic pregnancy", "left ectopic pregnancy", "left tubal pregnancy"),
    ),
    procedures=(
        Procedure(
            "0UT64ZZ",
            ("laparoscopic left salpingectomy", "diagnostic laparoscopy with left salpingectomy", "L salpingectomy"),
        ),
    ),
    medications=(IBUPROFEN, OXYCODONE_PRN),
    hpi=(
        "{Mr} ___ is a {age} year old G2P1 {man} with {history} whose last menstrual period was about 7 weeks "
        "ago, who presents with 2 days of left lower abdominal pain and vaginal spotting. A home pregnancy test "
        "was positive. Transvaginal ultrasound showed no intrauterine pregnancy and a left adnexal mass.",
        "{age} yo G3P1 w/ {history}, LMP ~6.5 wks ago, p/w LLQ pain and spotting. Quant hCG 2,840; TVUS: empty "
        "uterus, 2.6 cm L adnexal mass, moderate free fluid. Hemodynamically stable. Dx {diagnosis}; consented "
        "for laparoscopy.",
        "This {age} year old {man} with {history} presented with sudden sharp left pelvic pain and "
        "lightheadedness. {He} had a positive pregnancy test last week. Workup in the ED was consistent with a "
        "{diagnosis} with hemoperitoneum.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Lower abdominal tenderness, worse on the left, with voluntary guarding; left adnexal tenderness on "
                "bimanual exam; scant blood in the vault.",
                "Abdomen tender in LLQ, mild rebound; L adnexal fullness and tenderness; os closed.",
            ),
        ),
        Finding("Pertinent Results", ("Quantitative beta-hCG 2,840.", "Serum hCG 2840 mIU/mL.")),
        Finding(
            "Pertinent Results",
            (
                "Transvaginal ultrasound: no intrauterine pregnancy; 2.6 cm left adnexal mass with a tubal ring "
                "and moderate free fluid in the pelvis.",
            ),
        ),
        Finding("Pertinent Results", ("Pre-op Hct 32.4.", "Hematocrit 32.4 on arrival.")),
        Finding(
            "Pertinent Results",
            ("Pathology: products of conception within the left fallopian tube.",),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental 2 cm right ovarian corpus luteum cyst on ultrasound.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("D62", ("acute blood loss anemia", "ABLA")),
            probability=0.2,
            course=(
                "With a postoperative hematocrit of 24 after the hemoperitoneum, {he} was treated for "
                "{complication} with oral iron; transfusion was not required.",
            ),
            medications=(FERROUS_SULFATE,),
        ),
    ),
    course=(
        (
            "{Mr} ___ presented with a {diagnosis} and was hemodynamically stable. Given the adnexal mass size "
            "and free fluid, surgical management was recommended over methotrexate.",
            "# {diagnosis}: not a methotrexate candidate given free fluid and pain; consented for laparoscopy.",
        ),
        (
            "{He} underwent {procedure}, with about 400 mL of hemoperitoneum evacuated. The right tube and ovary "
            "appeared normal.",
            "In the OR {he} underwent {procedure} without complication; right adnexa normal.",
        ),
        (
            "Postoperatively {he} tolerated a regular diet, ambulated and voided. Rh status was reviewed and "
            "RhoGAM was given as indicated. hCG will be followed to zero.",
            "Tolerating diet and ambulating post-op; discharged with weekly hCG until negative.",
        ),
    ),
    instructions=(
        "You were admitted with an ectopic pregnancy in your left fallopian tube and had surgery to remove the "
        "tube. We are very sorry for your loss. Nothing in the vagina for 2 weeks. Call for fever, heavy "
        "bleeding, worsening pain or dizziness.",
        "You had a laparoscopic removal of the left fallopian tube for an ectopic pregnancy. You will need blood "
        "tests to make sure your pregnancy hormone level goes to zero. You can still become pregnant with your "
        "remaining tube.",
    ),
    followup=("Follow up in the gynecology clinic in 2 weeks; weekly hCG until undetectable.",),
    sexes="F",
    next_storylines=("hyperemesis_gravidarum",),
)

STORYLINES: tuple[Storyline, ...] = (
    POSTPARTUM_PREECLAMPSIA,
    VAGINAL_DELIVERY_PERINEAL_LACERATION,
    HYPEREMESIS_GRAVIDARUM,
    ECTOPIC_PREGNANCY,
)
