"""General surgery storylines: gallbladder, appendix, bowel obstruction, diverticulitis and hernia."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

OXYCODONE_PRN = Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain")
ACETAMINOPHEN = Medication("Acetaminophen", "1000", "mg", "PO", "Q8H", "TAB", "for pain")
DOCUSATE = Medication("Docusate Sodium", "100", "mg", "PO", "BID", "CAP", "stool softener")
IBUPROFEN_PRN = Medication("Ibuprofen", "600", "mg", "PO", "Q6H:PRN pain", "TAB", "for pain")

POSTOPERATIVE_ILEUS = Complication(
    Diagnosis("K567", ("postoperative ileus", "ileus")),
    probability=0.15,
    course=(
        "Recovery was slowed by {complication}, with distension and emesis on POD#2; an NGT was placed for "
        "decompression and removed 2 days later once {he} was passing flatus.",
        "{He} developed {complication} with nausea and no flatus; managed with bowel rest, IV fluids and "
        "ambulation, and diet was re-advanced successfully by POD 4.",
    ),
)
POSTOPERATIVE_URINARY_RETENTION = Complication(
    Diagnosis("R339", ("postoperative urinary retention", "urinary retention")),
    probability=0.15,
    course=(
        "{He} failed to void after Foley removal with a bladder scan of 700 mL ({complication}); a Foley was "
        "replaced and tamsulosin started, and {he} passed a voiding trial the next day.",
    ),
    medications=(Medication("Tamsulosin", "0.4", "mg", "PO", "QHS", "CAP", "to help you urinate"),),
)

ACUTE_CHOLECYSTITIS = Storyline(
    key="acute_cholecystitis",
    title="Acute calculous cholecystitis treated with laparoscopic cholecystectomy",
    service="SURG",
    note_service="SURGERY",
    ages=(22, 88),
    length_of_stay=(1, 4),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME",),
    chief_complaints=("RUQ pain", "right upper quadrant pain, nausea", "abdominal pain, fever"),
    diagnosis=Diagnosis(
        "K8000", ("acute calculous cholecystitis", "acute cholecystitis with cholelithiasis", "acute cholecystitis")
    ),
    procedures=(
        Procedure(
            "0FT44ZZ",
            ("laparoscopic cholecystectomy", "lap chole", "laparoscopic removal of the gallbladder"),
        ),
    ),
    medications=(OXYCODONE_PRN, ACETAMINOPHEN, DOCUSATE),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with 24 hours of constant right upper "
        "quadrant pain radiating to the right shoulder, which began after a fatty meal. {He} has had nausea and "
        "two episodes of non-bloody emesis, and a temperature of 100.8 at home. Ultrasound in the ED was "
        "consistent with {diagnosis}.",
        "{age} yo {man} w/ {history} and known gallstones p/w RUQ pain x1 day, worse than {his} prior episodes "
        "of biliary colic and not resolving. + Murphy's. WBC 14. RUQ US: stones, GB wall thickening, "
        "pericholecystic fluid. Surgery consulted.",
        "This {age} year old {man} with {history} reports epigastric and right-sided abdominal pain since last "
        "night, with anorexia and chills. {He} had similar but shorter episodes over the past few months. "
        "Imaging and labs were consistent with {diagnosis} without choledocholithiasis.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "RUQ tenderness with a positive Murphy's sign; no rebound; no jaundice.",
                "Abdomen soft, focally tender in the right upper quadrant with inspiratory arrest on palpation.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "RUQ US: cholelithiasis with gallbladder wall thickening to 6 mm, pericholecystic fluid and a "
                "positive sonographic Murphy sign; CBD 4 mm.",
                "Ultrasound: distended gallbladder with an impacted stone at the neck, wall edema and "
                "pericholecystic fluid; no biliary dilation.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("WBC 14.1; T bili 1.0, alk phos 98, lipase 31.", "Leukocytosis to 14.1 with normal LFTs and lipase."),
        ),
        Finding(
            "Pertinent Results",
            ("Pathology: acute and chronic cholecystitis with cholelithiasis.",),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("RUQ ultrasound incidentally notes a 1.1 cm simple hepatic cyst.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("K9189", ("bile leak", "postoperative bile leak")),
            probability=0.05,
            course=(
                "On POD#1 the JP drain output became bilious, concerning for a {complication}; {he} remained "
                "well and the output tapered off over 3 days, after which the drain was removed.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the acute care surgery service with {diagnosis}. {He} was made NPO, given "
            "IV fluids and started on IV ceftriaxone and metronidazole.",
            "# {diagnosis}: admitted to ACS, started on IV antibiotics and resuscitated with IVF while awaiting "
            "the OR.",
        ),
        (
            "{He} was taken to the operating room on hospital day 1 for a {procedure}, which was uncomplicated. "
            "Please see the operative report for details.",
            "Underwent {procedure} within 24 hours of admission; the gallbladder was gangrenous at the fundus but "
            "was removed without spillage.",
        ),
        (
            "Postoperatively {his} diet was advanced to regular, pain was controlled on oral medications and {he} "
            "was voiding and ambulating independently. Antibiotics were stopped after surgery.",
            "Tolerated a regular diet after surgery; pain well controlled on PO meds at discharge.",
        ),
    ),
    instructions=(
        "You were admitted with an inflamed, infected gallbladder and had it removed laparoscopically. You may "
        "shower; let soapy water run over the incisions and pat them dry. No lifting more than 10 pounds for 4 "
        "weeks. Call for fevers over 101.5, yellowing of the skin or eyes, or worsening abdominal pain.",
        "You had your gallbladder removed. It is normal to feel tired and have some shoulder pain from the gas "
        "used during surgery. Avoid driving while taking oxycodone. Take the stool softener while on narcotics.",
    ),
    followup=("Follow up in acute care surgery clinic in 2 weeks.",),
)

APPENDICITIS = Storyline(
    key="appendicitis",
    title="Acute appendicitis treated with laparoscopic appendectomy",
    service="SURG",
    note_service="SURGERY",
    ages=(18, 70),
    length_of_stay=(1, 3),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"),
    discharge_locations=("HOME",),
    chief_complaints=("RLQ pain", "abdominal pain", "right lower quadrant pain, anorexia"),
    diagnosis=Diagnosis("K3580", ("acute appendicitis", "uncomplicated acute appendicitis", "appendicitis")),
    procedures=(
        Procedure(
            "0DTJ4ZZ",
            ("laparoscopic appendectomy", "lap appy", "laparoscopic removal of the appendix"),
        ),
    ),
    medications=(OXYCODONE_PRN, IBUPROFEN_PRN, DOCUSATE),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents with abdominal pain that began "
        "periumbilically yesterday and migrated to the right lower quadrant overnight. {He} has anorexia and "
        "one episode of emesis. CT in the ED demonstrated {diagnosis}.",
        "{age} yo {man} w/ {history} p/w ~18 hrs of RLQ pain, nausea and low-grade temp. Pain worse with "
        "walking and bumps in the car ride. WBC 13.6, CT c/w {diagnosis} without perforation.",
        "This {age} year old {man} with {history} developed vague midabdominal discomfort while at work that "
        "localised to the right lower quadrant over several hours. {He} denies diarrhea or urinary symptoms.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Tenderness at McBurney's point with voluntary guarding; positive Rovsing's sign.",
                "Focal RLQ tenderness with rebound; + psoas sign.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT A/P: dilated 11 mm appendix with periappendiceal fat stranding; no perforation or abscess.",
                "CT abdomen/pelvis: fluid-filled, thick-walled 11 mm appendix with surrounding inflammation, no "
                "free air.",
            ),
        ),
        Finding("Pertinent Results", ("WBC 13.6 with 82% neutrophils.", "WBC 13.6, PMN 82%.")),
        Finding("Pertinent Results", ("Pathology: acute appendicitis.",), probability=0.6),
        Finding(
            "Pertinent Results",
            ("CT incidentally shows a small fat-containing umbilical hernia.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(POSTOPERATIVE_ILEUS,),
    course=(
        (
            "{Mr} ___ was admitted to the surgery service with {diagnosis}. {He} received IV "
            "piperacillin-tazobactam and was taken to the operating room the same day.",
            "# {diagnosis}: made NPO, given IVF and IV antibiotics in the ED, consented for surgery.",
        ),
        (
            "{He} underwent an uncomplicated {procedure}. The appendix was inflamed but not perforated.",
            "Taken to the OR for {procedure}; findings of an acutely inflamed, non-perforated appendix.",
        ),
        (
            "Postoperatively {he} tolerated a regular diet, was ambulating and voiding, and pain was controlled "
            "with oral medications. No further antibiotics were required.",
            "Diet advanced as tolerated; discharged home on oral analgesics once eating and ambulating.",
        ),
    ),
    instructions=(
        "You had your appendix removed because it was inflamed (appendicitis). You may shower; do not soak in a "
        "bath for 2 weeks. No heavy lifting over 10 pounds for 4 weeks. Call for fever over 101.5, redness or "
        "drainage at the incisions, or vomiting.",
        "You underwent a laparoscopic appendectomy. Take ibuprofen for pain and use oxycodone only for severe "
        "pain. Do not drive while taking narcotic pain medicine.",
    ),
    followup=("Follow up in the acute care surgery clinic in 2 weeks.",),
)

SMALL_BOWEL_OBSTRUCTION = Storyline(
    key="small_bowel_obstruction",
    title="Adhesive partial small bowel obstruction managed nonoperatively",
    service="SURG",
    note_service="SURGERY",
    ages=(35, 92),
    length_of_stay=(3, 7),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE"),
    chief_complaints=("abdominal pain, vomiting", "nausea, vomiting, obstipation", "abdominal distension"),
    diagnosis=Diagnosis(
        "K5651",
        ("partial small bowel obstruction", "adhesive SBO", "partial SBO due to adhesions"),
    ),
    medications=(Medication("Acetaminophen", "650", "mg", "PO", "Q6H:PRN pain", "TAB", "for pain"),),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and a remote open abdominal operation who presents "
        "with 1 day of crampy periumbilical pain, abdominal distension and multiple episodes of bilious "
        "emesis. {He} last passed flatus yesterday morning. CT was consistent with {diagnosis}.",
        "{age} yo {man} w/ {history}, prior ex-lap (___), p/w colicky abd pain, n/v x4 and no BM x2 days. CT: "
        "dilated SB loops with transition point in RLQ. NGT placed in ED with 1.2 L bilious output.",
        "This {age} year old {man} with {history} developed nausea and crampy abdominal pain after dinner, "
        "followed by repeated vomiting overnight. {He} has had two similar episodes in the past that resolved "
        "with bowel rest.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Distended, tympanitic abdomen, diffusely tender without peritoneal signs; well-healed midline "
                "laparotomy scar.",
                "Abdomen distended, mildly tender, no rebound or guarding; old midline incision.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT A/P: dilated proximal small bowel loops to 3.6 cm with a transition point in the right lower "
                "quadrant and decompressed distal bowel; no pneumatosis or free air.",
                "CT: partial SBO with RLQ transition point, likely adhesive; contrast passes into the colon; no "
                "signs of ischemia.",
            ),
        ),
        Finding("Pertinent Results", ("Lactate 1.3; WBC 10.2; K 3.3.", "Normal lactate (1.3), WBC 10.2.")),
        Finding(
            "Pertinent Results",
            ("Gastrografin challenge: contrast reached the colon by 8 hours.",),
            probability=0.7,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E876", ("hypokalemia", "low potassium")),
            probability=0.3,
            course=("{He} had {complication} to 2.9 from NGT losses, repleted intravenously while NPO.",),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the acute care surgery service with {diagnosis}. {He} was made NPO, an "
            "NGT was placed to low intermittent suction and {he} received IV fluids; serial abdominal exams were "
            "benign.",
            "# {diagnosis}: managed nonoperatively with bowel rest, NGT decompression, IVF and serial exams. No "
            "indication for the OR.",
        ),
        (
            "A gastrografin challenge on hospital day 2 showed contrast in the colon at 8 hours. The NGT was "
            "removed, {his} diet was advanced and {he} had bowel movements prior to discharge.",
            "NGT output decreased and {he} began passing flatus on HD2; SBFT showed contrast in the colon. Diet "
            "advanced to regular, tolerated well, with return of bowel function.",
        ),
    ),
    instructions=(
        "You were admitted with a partial blockage of your small intestine, likely caused by scar tissue from "
        "prior surgery. It resolved with bowel rest and a tube in your stomach. Eat small, frequent meals for a "
        "few days. Return for vomiting, worsening belly pain or if you stop passing gas.",
        "You had a small bowel obstruction that improved without surgery. Please call the surgery clinic or come "
        "to the ED if you develop abdominal swelling, vomiting, or cannot have a bowel movement.",
    ),
    followup=("Follow up in the acute care surgery clinic in 2-3 weeks as needed.",),
    next_storylines=("small_bowel_obstruction",),
)

DIVERTICULITIS = Storyline(
    key="perforated_diverticulitis",
    title="Perforated sigmoid diverticulitis treated with Hartmann's procedure",
    service="SURG",
    note_service="SURGERY",
    ages=(38, 88),
    length_of_stay=(5, 12),
    admission_types=("EW EMER.",),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("HOME HEALTH CARE", "HOME", "REHAB"),
    chief_complaints=("LLQ pain, fever", "abdominal pain", "left lower quadrant pain"),
    diagnosis=Diagnosis(
        "K5720",
        (
            "perforated sigmoid diverticulitis with abscess",
            "complicated sigmoid diverticulitis",
            "perforated diverticulitis",
        ),
    ),
    procedures=(
        Procedure(
            "0DTN0ZZ",
            (
                "sigmoid colectomy with end colostomy (Hartmann's procedure)",
                "Hartmann's procedure",
                "open sigmoid colectomy and end colostomy",
            ),
        ),
        Procedure("0D1M0Z4", ("end descending colostomy", "end colostomy")),
    ),
    medications=(
        OXYCODONE_PRN,
        ACETAMINOPHEN,
        Medication("Enoxaparin Sodium", "40", "mg", "SC", "DAILY", "SYR", "to prevent blood clots"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and two prior episodes of diverticulitis treated as "
        "an outpatient who presents with 4 days of worsening left lower quadrant pain, fevers and anorexia. CT "
        "showed {diagnosis} with a pericolic abscess and extraluminal air.",
        "{age} yo {man} w/ {history} p/w LLQ pain x4d, fever to 38.6, WBC 18.9. CT: sigmoid diverticulitis with "
        "4 cm abscess and extraluminal gas. Started on pip-tazo and admitted to ACS.",
        "This {age} year old {man} with {history} was transferred from an outside hospital with {diagnosis}. "
        "{He} failed to improve despite 48 hours of IV antibiotics and developed worsening peritoneal signs.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Febrile to 38.6; LLQ tenderness with localized guarding and rebound.",
                "T 38.6, HR 108; left lower quadrant peritonitis.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT A/P: sigmoid diverticulitis with extraluminal gas and a 4.2 cm pericolic abscess.",
                "CT: perforated sigmoid diverticulitis, 4.2 cm rim-enhancing pericolic collection, small "
                "pneumoperitoneum.",
            ),
        ),
        Finding("Pertinent Results", ("WBC 18.9; lactate 2.4.", "WBC 18.9, lactate 2.4.")),
        Finding(
            "Pertinent Results",
            ("Pathology: sigmoid colon with acute diverticulitis, perforation and abscess; no malignancy.",),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("CT incidentally notes a 4 mm nonobstructing right renal stone.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        POSTOPERATIVE_ILEUS,
        Complication(
            Diagnosis("T8141XA", ("superficial surgical site infection", "wound infection", "superficial SSI")),
            probability=0.15,
            course=(
                "On POD#5 {he} developed erythema and purulent drainage from the inferior aspect of the midline "
                "wound, consistent with a {complication}; staples were removed, the wound was opened and packed, "
                "and cephalexin was started.",
            ),
            medications=(Medication("Cephalexin", "500", "mg", "PO", "Q6H", "CAP", "antibiotic for your wound"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the acute care surgery service with {diagnosis}. Given free air and "
            "peritonitis, {he} was consented for operative management.",
            "# {diagnosis}: not amenable to percutaneous drainage given extraluminal air and diffuse peritonitis; "
            "taken urgently to the OR after resuscitation.",
        ),
        (
            "{He} underwent {procedure}. {He} was transferred to the SICU postoperatively and then to the floor "
            "on POD#1.",
            "In the OR {he} underwent {procedure} for purulent peritonitis; the abscess was drained and the "
            "abdomen washed out.",
        ),
        (
            "The ostomy began functioning on POD 3 and diet was advanced. The WOCN nurse provided ostomy teaching "
            "and VNA services were arranged. Antibiotics were continued for 4 days after source control.",
            "Colostomy productive of gas and stool by POD 3; ostomy nurse completed teaching. Pain controlled on "
            "PO meds. Will discuss colostomy reversal in 3-6 months.",
        ),
    ),
    instructions=(
        "You were admitted with a perforated diverticulitis and had surgery to remove part of your colon. You "
        "now have a colostomy. The visiting nurse will help you care for it at home. Call for fevers, increasing "
        "abdominal pain, redness around the incision, or no output from the ostomy for 24 hours.",
        "You had a Hartmann's procedure (sigmoid colectomy with colostomy). Do not lift more than 10 pounds for "
        "6 weeks. Empty the ostomy bag when it is one-third full and keep track of the output.",
    ),
    followup=("Follow up in the colorectal surgery clinic in 2 weeks; discuss colostomy reversal in 3-6 months.",),
    next_storylines=("small_bowel_obstruction",),
)

INCARCERATED_INGUINAL_HERNIA = Storyline(
    key="incarcerated_inguinal_hernia",
    title="Incarcerated right inguinal hernia repaired with mesh",
    service="SURG",
    note_service="SURGERY",
    ages=(30, 92),
    length_of_stay=(1, 3),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME",),
    chief_complaints=("right groin pain and bulge", "painful groin bulge", "groin pain, vomiting"),
    diagnosis=Diagnosis(
        "K4030",
        ("incarcerated right inguinal hernia", "incarcerated R inguinal hernia", "obstructed right inguinal hernia"),
    ),
    procedures=(
        Procedure(
            "0YU50JZ",
            (
                "open right inguinal hernia repair with mesh",
                "right inguinal herniorrhaphy with mesh (Lichtenstein)",
                "open repair of the right inguinal hernia with mesh",
            ),
        ),
    ),
    medications=(OXYCODONE_PRN, ACETAMINOPHEN, DOCUSATE),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and a known reducible right groin bulge for a year "
        "who presents with 8 hours of pain in the bulge, which {he} can no longer push back in, and nausea. "
        "Reduction was attempted in the ED without success.",
        "{age} yo {man} w/ {history} p/w painful, irreducible R inguinal hernia since lifting boxes this AM. + "
        "nausea, 1x emesis, still passing flatus. CT: {diagnosis} containing small bowel without ischemia.",
        "This {age} year old {man} with {history} noticed a tender, firm lump in {his} right groin after "
        "coughing; it has remained hard and painful since. Bedside reduction failed and surgery was consulted.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Tender, firm, non-reducible right groin bulge extending into the scrotum; no overlying erythema.",
                "R inguinal hernia, firm and tender, not reducible; abdomen soft, mildly distended.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT: right inguinal hernia containing a loop of small bowel with mild upstream dilation; no signs "
                "of ischemia.",
            ),
        ),
        Finding("Pertinent Results", ("Lactate 1.1; WBC 9.8.", "Normal lactate, WBC 9.8.")),
        Finding(
            "Physical Exam",
            ("Small, asymptomatic, reducible umbilical hernia.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(POSTOPERATIVE_URINARY_RETENTION,),
    course=(
        (
            "{Mr} ___ was admitted with an {diagnosis} that could not be reduced at the bedside, and was taken to "
            "the operating room urgently.",
            "# {diagnosis}: failed reduction in the ED; consented for urgent repair.",
        ),
        (
            "{He} underwent {procedure}. The incarcerated small bowel was viable after reduction and no resection "
            "was required.",
            "In the OR {he} underwent {procedure}; the hernia sac contained pink, peristalsing small bowel, which "
            "was reduced.",
        ),
        (
            "Postoperatively {he} tolerated a regular diet, voided and ambulated, and pain was controlled on oral "
            "medications.",
            "At discharge {he} was tolerating a diet, voiding, and pain was controlled on oral medications.",
        ),
    ),
    social=(SocialFact(("Works in construction; lifts heavy objects daily.", "Retired mechanic; lives with family.")),),
    sexes="M",
    instructions=(
        "You had surgery to repair a hernia in your right groin that had become stuck. Do not lift anything heavier "
        "than 10 pounds for 6 weeks. Some bruising and swelling of the groin and scrotum is normal. Call for "
        "fever, increasing redness, or trouble urinating.",
        "Your right inguinal hernia was repaired with mesh. You may shower after 48 hours. Avoid straining; take "
        "the stool softener while on oxycodone.",
    ),
    followup=("Follow up in the general surgery clinic in 2-3 weeks.",),
)

STORYLINES: tuple[Storyline, ...] = (
    ACUTE_CHOLECYSTITIS,
    APPENDICITIS,
    SMALL_BOWEL_OBSTRUCTION,
    DIVERTICULITIS,
    INCARCERATED_INGUINAL_HERNIA,
)
