"""Neurology and neurosurgery storylines: stroke, TIA, seizure, subdural hematoma and meningioma."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

ASPIRIN = Medication("Aspirin", "81", "mg", "PO", "DAILY", "TAB", "to prevent stroke")
ATORVASTATIN = Medication("Atorvastatin", "80", "mg", "PO", "QPM", "TAB", "for cholesterol and stroke prevention")
LEVETIRACETAM_500 = Medication("LevETIRAcetam", "500", "mg", "PO", "BID", "TAB", "to prevent seizures")
ACETAMINOPHEN = Medication("Acetaminophen", "650", "mg", "PO", "Q6H:PRN pain or headache", "TAB", "for pain")
DOCUSATE = Medication("Docusate Sodium", "100", "mg", "PO", "BID", "CAP", "stool softener")

ASPIRATION_PNEUMONIA = Complication(
    Diagnosis("J690", ("aspiration pneumonia", "aspiration pneumonitis")),
    probability=0.12,
    course=(
        "On hospital day 3 {he} spiked a fever to 38.5 with a new right lower lobe opacity, consistent with "
        "{complication}; {he} was treated with IV ampicillin-sulbactam and transitioned to oral "
        "amoxicillin-clavulanate to complete 7 days.",
        "Course complicated by {complication} with new oxygen requirement and RLL infiltrate; treated with "
        "unasyn then augmentin, and speech therapy re-evaluated {his} swallow.",
    ),
    medications=(
        Medication(
            "Amoxicillin-Clavulanic Acid", "875", "mg", "PO", "Q12H", "TAB", "antibiotic for aspiration pneumonia"
        ),
    ),
)

ISCHEMIC_STROKE = Storyline(
    key="ischemic_stroke",
    title="Acute right MCA ischemic stroke with left hemiparesis",
    service="NMED",
    note_service="NEUROLOGY",
    ages=(50, 95),
    length_of_stay=(3, 9),
    admission_types=("EW EMER.", "DIRECT EMER."),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("REHAB", "SKILLED NURSING FACILITY", "HOME HEALTH CARE"),
    chief_complaints=("left-sided weakness", "L arm and leg weakness, slurred speech", "code stroke"),
    diagnosis=Diagnosis(
        "I63511",
        ("right MCA ischemic stroke", "right MCA territory infarct", "right middle cerebral artery stroke"),
    ),
    secondary=(
        Diagnosis("G8194", ("left hemiparesis", "left-sided weakness")),
        Diagnosis("R471", ("dysarthria", "slurred speech")),
    ),
    medications=(ASPIRIN, ATORVASTATIN),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who woke up with left arm and leg weakness and "
        "slurred speech. {He} was last known well at 10 pm the night before, which placed {him} outside the "
        "window for thrombolysis. Code stroke was called on arrival and the NIHSS was 9.",
        "{age} yo {man} w/ {history} p/w sudden-onset L face/arm/leg weakness and dysarthria noted by family at "
        "dinner. Arrived 6 hours after LKW; not a tPA candidate. CTA with distal R M2 occlusion, not amenable to "
        "thrombectomy. Admitted to stroke service for {diagnosis}.",
        "This {age} year old {man} with {history} was found by a neighbor leaning to the left in {his} chair, "
        "unable to lift {his} left arm, with a left facial droop. Last known well was uncertain. Imaging "
        "demonstrated a {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "NIHSS 9: left facial droop, left arm drift to the bed, left leg drift, left hemisensory loss, "
                "dysarthria and left-sided neglect.",
                "Neuro: L lower facial weakness, LUE 2/5, LLE 3/5, decreased sensation on the L, mild dysarthria, "
                "extinction to double simultaneous stimulation on the L.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "MRI brain: acute infarct in the right MCA territory involving the right frontal operculum, insula "
                "and corona radiata.",
                "MRI: restricted diffusion in the R insula, frontal operculum and corona radiata c/w acute R MCA "
                "infarct; no hemorrhage.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT head: no hemorrhage; early loss of gray-white differentiation in the right insula.",
                "Non-contrast head CT without hemorrhage; subtle R insular ribbon sign.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("CTA head and neck: occlusion of a distal right M2 branch; no significant carotid stenosis.",),
            probability=0.8,
        ),
        Finding(
            "Pertinent Results",
            ("TTE: LVEF 60%, no intracardiac thrombus, negative bubble study; telemetry without atrial fibrillation.",),
            probability=0.7,
        ),
        Finding("Pertinent Results", ("LDL 138, HbA1c 6.4%.", "Stroke risk labs: LDL 138, A1c 6.4%.")),
        Finding(
            "Pertinent Results",
            ("MRI incidentally notes a small left cerebellar developmental venous anomaly.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(ASPIRATION_PNEUMONIA,),
    course=(
        (
            "{Mr} ___ was admitted to the stroke service with a {diagnosis}. {He} was outside the window for IV "
            "thrombolysis and was not a thrombectomy candidate. Permissive hypertension was allowed for the "
            "first 24-48 hours.",
            "# {diagnosis}: no tPA given time from LKW. BP goal <220/120 for 48 hours, then gradual normalization. "
            "Neuro checks q4h; exam remained stable.",
        ),
        (
            "Stroke workup included MRI, CTA, echocardiogram and telemetry; etiology was felt most likely "
            "large-artery atherosclerosis versus cardioembolic. {He} was started on aspirin and high-intensity "
            "atorvastatin, with outpatient cardiac monitoring planned to look for atrial fibrillation.",
            "Secondary prevention: ASA 81 and atorvastatin 80. No AF on 72 hours of telemetry; will get a "
            "30-day event monitor as an outpatient.",
        ),
        (
            "{He} failed the initial bedside swallow screen and was evaluated by speech therapy, who recommended "
            "a soft solids diet with thin liquids. PT and OT recommended acute rehabilitation.",
            "S&S: dysphagia diet initially, advanced to regular by discharge. PT/OT: L hemiparesis, needs "
            "assistance for transfers; acute rehab recommended.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives with {his} spouse; independent at baseline; former smoker.",
                "Lives alone; drives; quit smoking ___ years ago; rare alcohol.",
            )
        ),
    ),
    instructions=(
        "You were admitted because you had a stroke in the right side of your brain, which caused weakness on "
        "the left side of your body. We started aspirin and atorvastatin to lower the risk of another stroke. "
        "Call 911 right away if you have new weakness, numbness, trouble speaking, facial droop or vision loss.",
        "You had an ischemic stroke, caused by a blocked blood vessel in the brain. Please take your medicines "
        "every day and continue therapy at rehab. Remember BE FAST: Balance, Eyes, Face, Arm, Speech, Time to "
        "call 911.",
    ),
    followup=("Follow up in stroke clinic with Dr. ___ in 6-8 weeks; 30-day cardiac event monitor to be arranged.",),
    next_storylines=("pneumonia", "hip_fracture", "urinary_tract_infection"),
)

TRANSIENT_ISCHEMIC_ATTACK = Storyline(
    key="transient_ischemic_attack",
    title="Transient ischemic attack with right hand weakness and aphasia",
    service="NMED",
    note_service="NEUROLOGY",
    ages=(50, 92),
    length_of_stay=(1, 3),
    admission_types=("OBSERVATION ADMIT", "EU OBSERVATION", "EW EMER."),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME",),
    chief_complaints=("transient right hand weakness", "word-finding difficulty, resolved", "TIA"),
    diagnosis=Diagnosis("G459", ("transient ischemic attack", "TIA", "left hemispheric TIA")),
    medications=(
        ASPIRIN,
        Medication("Clopidogrel", "75", "mg", "PO", "DAILY", "TAB", "to prevent stroke (for 21 days)"),
        ATORVASTATIN,
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who had a 20-minute episode of right hand weakness "
        "and difficulty finding words while at breakfast. Symptoms resolved completely by the time EMS arrived. "
        "{He} has never had a similar episode.",
        "{age} yo {man} w/ {history} p/w transient R hand clumsiness and expressive aphasia lasting ~20 min, "
        "fully resolved. NIHSS 0 on arrival. ABCD2 5. Admitted for expedited {diagnosis} workup.",
        "This {age} year old {man} with {history} noted that {he} could not button {his} shirt with {his} right "
        "hand and that {his} speech came out jumbled. The episode lasted about 15 minutes and fully resolved. "
        "{He} was admitted for evaluation of a {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            ("Neurologic exam nonfocal; NIHSS 0.", "Fluent speech, full strength, no drift; NIHSS 0."),
        ),
        Finding(
            "Pertinent Results",
            (
                "MRI brain with DWI: no acute infarct.",
                "MRI: no restricted diffusion; mild chronic small-vessel ischemic changes.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CTA head and neck: 50% stenosis at the left ICA origin; intracranial vessels patent.",
                "CTA: moderate (~50%) L ICA origin stenosis, no intracranial large-vessel occlusion.",
            ),
        ),
        Finding("Pertinent Results", ("Telemetry: sinus rhythm without atrial fibrillation.",), probability=0.8),
        Finding("Pertinent Results", ("LDL 129, HbA1c 5.9%.",), probability=0.6),
    ),
    course=(
        (
            "{Mr} ___ was admitted for workup of a {diagnosis} with high ABCD2 score.",
            "# {diagnosis}: symptoms fully resolved; admitted to the neurology observation unit for expedited "
            "vascular imaging and telemetry.",
        ),
        (
            "MRI showed no infarct and CTA showed moderate left ICA stenosis, not meeting criteria for "
            "revascularization. {He} was started on dual antiplatelet therapy with aspirin and clopidogrel for "
            "21 days, followed by aspirin alone, plus high-intensity atorvastatin.",
            "Imaging without stroke; L ICA ~50% stenosis to be followed with carotid duplex. DAPT x 21 days then "
            "ASA monotherapy; atorvastatin 80. No AF on telemetry.",
        ),
    ),
    instructions=(
        "You were admitted after a transient ischemic attack (TIA, or 'mini-stroke'). Your MRI did not show a "
        "stroke. Please take aspirin and clopidogrel together for 21 days, then aspirin alone, along with "
        "atorvastatin. Call 911 for any new weakness, numbness, trouble speaking or vision loss.",
        "You had a TIA, which is a warning sign for stroke. Taking your medicines, controlling your blood "
        "pressure and not smoking will lower your risk.",
    ),
    followup=("Follow up in stroke clinic in 4-6 weeks; carotid duplex in 6 months.",),
    next_storylines=("ischemic_stroke", "atrial_fibrillation_rvr"),
)

BREAKTHROUGH_SEIZURE = Storyline(
    key="breakthrough_seizure",
    title="Breakthrough generalized seizure in known epilepsy after missed doses",
    service="NMED",
    note_service="NEUROLOGY",
    ages=(18, 80),
    length_of_stay=(1, 4),
    admission_types=("EW EMER.", "OBSERVATION ADMIT"),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME",),
    chief_complaints=("seizure", "generalized tonic-clonic seizure", "witnessed seizure"),
    diagnosis=Diagnosis(
        "G40909", ("breakthrough seizure", "breakthrough seizure in known epilepsy", "breakthrough GTC seizure")
    ),
    secondary=(Diagnosis("Z91148", ("medication nonadherence", "missed antiseizure medication doses")),),
    medications=(Medication("LevETIRAcetam", "1000", "mg", "PO", "BID", "TAB", "to prevent seizures"),),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and epilepsy, usually well controlled on "
        "levetiracetam, who had a witnessed generalized tonic-clonic seizure at work lasting about 2 minutes, "
        "followed by confusion. {He} admits to missing several doses this week while traveling.",
        "{age} yo {man} w/ {history}, epilepsy on keppra, p/w GTC seizure at home witnessed by spouse, ~90 "
        "seconds, + tongue bite and urinary incontinence, postictal x30 min. Missed doses x3 days. Second seizure "
        "in the ED requiring lorazepam; admitted for {diagnosis}.",
        "This {age} year old {man} with {history} had a seizure while grocery shopping and was brought in by "
        "EMS. {He} has had poor sleep and ran out of {his} antiseizure medication ___ days ago.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Postictal drowsiness that resolved over 2 hours; lateral tongue bite; nonfocal neurologic exam "
                "thereafter.",
                "Initially somnolent, oriented x3 by the next morning; left lateral tongue laceration; no focal "
                "deficits.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("CT head: no acute intracranial abnormality.", "Head CT negative for bleed or mass."),
        ),
        Finding(
            "Pertinent Results",
            (
                "EEG: intermittent left temporal slowing without epileptiform discharges.",
                "Routine EEG with L temporal theta slowing; no electrographic seizures.",
            ),
            probability=0.7,
        ),
        Finding("Pertinent Results", ("CK 412; lactate 3.8 on arrival, normalised to 1.1.",), probability=0.6),
        Finding(
            "Pertinent Results",
            ("CT head incidentally shows a small right maxillary sinus mucous retention cyst.",),
            probability=0.2,
            noise=True,
        ),
    ),
    complications=(ASPIRATION_PNEUMONIA,),
    course=(
        (
            "{Mr} ___ was admitted to neurology with a {diagnosis} in the setting of missed levetiracetam doses. "
            "{He} was reloaded with IV levetiracetam and monitored on seizure precautions without further events.",
            "# {diagnosis}: provoked by nonadherence and sleep deprivation. Keppra reloaded and dose increased "
            "to 1000 mg BID; no further seizures on the floor.",
        ),
        (
            "An EEG showed no ongoing epileptiform activity. Adherence strategies, including a pill organizer and "
            "phone reminders, were reviewed.",
            "EEG unremarkable for seizures. Counselled on adherence and sleep hygiene, and on state driving "
            "restrictions.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Works as a ___. Drinks 1-2 beers on weekends. Not currently driving.",
                "Lives with {his} spouse; no alcohol or drug use.",
            )
        ),
    ),
    instructions=(
        "You were admitted after a seizure that happened because you missed doses of levetiracetam. We increased "
        "your dose to 1000 mg twice a day. Please do not miss doses, get enough sleep and avoid alcohol. By law "
        "you may not drive until you have been seizure-free for 6 months.",
        "You had a breakthrough seizure. Take levetiracetam every morning and evening; a pill box and phone alarm "
        "can help. Do not swim or bathe alone, or work at heights. Call 911 for a seizure lasting more than 5 "
        "minutes.",
    ),
    followup=("Follow up with your epileptologist in 4-6 weeks.",),
    next_storylines=("alcohol_withdrawal", "pneumonia", "breakthrough_seizure"),
)

SUBDURAL_HEMATOMA = Storyline(
    key="subdural_hematoma",
    title="Acute-on-chronic left subdural hematoma evacuated by craniotomy",
    service="NSURG",
    note_service="NEUROSURGERY",
    ages=(60, 96),
    length_of_stay=(3, 9),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("REHAB", "SKILLED NURSING FACILITY", "HOME HEALTH CARE"),
    chief_complaints=("headache, confusion after fall", "subdural hematoma", "right-sided weakness"),
    diagnosis=Diagnosis(
        "S065X0A",
        ("left acute-on-chronic subdural hematoma", "left SDH", "left-sided acute on chronic SDH"),
    ),
    secondary=(Diagnosis("W19XXXA", ("fall", "ground-level fall")),),
    procedures=(
        Procedure(
            "00C40ZZ",
            (
                "left craniotomy for evacuation of subdural hematoma",
                "left-sided craniotomy and SDH evacuation",
                "craniotomy with evacuation of the left subdural hematoma",
            ),
        ),
    ),
    medications=(LEVETIRACETAM_500, ACETAMINOPHEN, DOCUSATE),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who fell at home about 3 weeks ago, striking {his} "
        "head, without loss of consciousness. Over the past week {he} has had worsening headaches, confusion and "
        "new right arm weakness. CT head at an outside hospital showed a {diagnosis} with midline shift, and {he} "
        "was transferred.",
        "{age} yo {man} w/ {history}, on aspirin, p/w progressive HA, word-finding difficulty and R-sided "
        "weakness x5 days, s/p mechanical fall ___ weeks ago. No LOC. CT: 1.8 cm L holohemispheric "
        "mixed-density SDH with 8 mm MLS. Neurosurgery consulted.",
        "This {age} year old {man} with {history} was brought in by family for increasing sleepiness and "
        "dropping objects from {his} right hand. {He} had a minor fall last month. Imaging revealed a "
        "{diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Drowsy but arousable, oriented x2; right pronator drift; pupils equal and reactive.",
                "GCS 14 (E3V5M6); R drift, R hand grip 4/5; PERRL.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT head: 1.8 cm left holohemispheric mixed-density (acute on chronic) subdural hematoma with 8 mm "
                "rightward midline shift.",
                "NCHCT: L acute-on-chronic SDH measuring up to 18 mm with 8 mm left-to-right shift and effacement "
                "of the L lateral ventricle.",
            ),
        ),
        Finding("Pertinent Results", ("INR 1.1, platelets 212.", "Coags normal (INR 1.1); plt 212.")),
        Finding(
            "Pertinent Results",
            ("Post-op CT: interval evacuation with expected pneumocephalus; midline shift improved to 2 mm.",),
            probability=0.8,
        ),
        Finding(
            "Pertinent Results",
            ("CT cervical spine: multilevel degenerative disease without fracture.",),
            probability=0.3,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("E871", ("hyponatremia", "low serum sodium")),
            probability=0.2,
            course=(
                "Sodium fell to 129 on POD#2, consistent with {complication} due to SIADH; {he} was fluid "
                "restricted and started on sodium chloride tablets, with sodium 134 at discharge.",
            ),
            medications=(Medication("Sodium Chloride", "1", "g", "PO", "TID", "TAB", "to raise your sodium"),),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the neurosurgery service with a {diagnosis}. Aspirin was held, platelets "
            "were transfused for reversal, and {he} was loaded with levetiracetam for seizure prophylaxis.",
            "# {diagnosis}: admitted to the neuro ICU. Antiplatelet held; keppra started; SBP < 160.",
        ),
        (
            "{He} was taken to the operating room for {procedure}. Postoperatively a subdural drain was left in "
            "place and removed on POD#2 after a stable head CT.",
            "On hospital day 1 {he} underwent {procedure} without complication; subdural drain out on POD 2.",
        ),
        (
            "{His} mental status and right-sided weakness improved steadily. Levetiracetam will continue for 7 "
            "days. Aspirin may be restarted after follow-up imaging at the discretion of neurosurgery.",
            "Neuro exam improved to baseline by POD 3 with mild residual R hand weakness. PT/OT recommended "
            "rehab. Hold ASA until neurosurgery follow-up.",
        ),
    ),
    instructions=(
        "You were admitted with bleeding on the surface of the brain (subdural hematoma) and had surgery to "
        "remove it. Do not take aspirin, ibuprofen or other blood thinners until cleared by neurosurgery. Keep "
        "the incision dry for 3 days. Call for worsening headache, confusion, weakness or seizures.",
        "You had a craniotomy to drain a subdural hematoma. Take levetiracetam twice daily for 7 days to prevent "
        "seizures. No heavy lifting and no driving until cleared. Staples will be removed at your follow-up.",
    ),
    followup=("Follow up with neurosurgery in 4 weeks with a non-contrast head CT; staple removal in 10-14 days.",),
    next_storylines=("hip_fracture", "pneumonia", "urinary_tract_infection"),
)

MENINGIOMA = Storyline(
    key="meningioma_resection",
    title="Right frontal convexity meningioma resected via craniotomy",
    service="NSURG",
    note_service="NEUROSURGERY",
    ages=(35, 82),
    length_of_stay=(2, 6),
    admission_types=("ELECTIVE", "SURGICAL SAME DAY ADMISSION"),
    admission_locations=("PHYSICIAN REFERRAL", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "REHAB"),
    chief_complaints=("brain mass", "meningioma, elective resection", "headaches, frontal mass"),
    diagnosis=Diagnosis(
        "D320",
        ("right frontal convexity meningioma", "right frontal meningioma", "meningioma"),
    ),
    procedures=(
        Procedure(
            "00B10ZZ",
            (
                "right frontal craniotomy for resection of meningioma",
                "craniotomy and meningioma resection",
                "right frontal craniotomy with gross total tumor resection",
            ),
        ),
    ),
    medications=(
        Medication("Dexamethasone", "2", "mg", "PO", "Q12H (taper)", "TAB", "to reduce brain swelling"),
        LEVETIRACETAM_500,
        Medication("Famotidine", "20", "mg", "PO", "BID", "TAB", "to protect your stomach while on steroids"),
        ACETAMINOPHEN,
        Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who was found to have a right frontal extra-axial "
        "mass on MRI obtained for several months of headaches and subtle personality change noted by family. "
        "Imaging was consistent with a {diagnosis} with surrounding edema, and {he} presents for elective "
        "resection.",
        "{age} yo {man} w/ {history} and an enlarging R frontal convexity meningioma (3.8 cm, up from 2.9 cm "
        "last year) with new vasogenic edema, presenting for elective craniotomy.",
        "This {age} year old {man} with {history} had a first-time focal seizure ___ months ago; workup revealed "
        "a {diagnosis}. After discussion in tumor board, surgical resection was recommended.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Alert and oriented x3, fluent speech, no pronator drift; incision clean, dry and intact with staples.",
                "Neuro intact, full strength; R frontal incision c/d/i.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Preoperative MRI: 3.8 cm extra-axial, homogeneously enhancing right frontal convexity mass with a "
                "dural tail and mild surrounding vasogenic edema.",
                "MRI brain w/wo: 3.8 cm dural-based enhancing R frontal lesion c/w meningioma, mild edema, 3 mm MLS.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Post-op MRI: gross total resection without residual enhancement.",),
            probability=0.8,
        ),
        Finding("Pertinent Results", ("Pathology: meningioma, WHO grade 1.",), probability=0.7),
        Finding(
            "Pertinent Results",
            ("Preoperative chest x-ray incidentally shows a healed right clavicle fracture.",),
            probability=0.12,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("G936", ("cerebral edema", "postoperative cerebral edema")),
            probability=0.1,
            course=(
                "On POD#2 {he} had increased lethargy and CT showed worsening {complication} around the resection "
                "bed; dexamethasone was increased and {his} exam returned to baseline over 48 hours.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted electively to neurosurgery for resection of a {diagnosis}.",
            "# {diagnosis}: elective admission for craniotomy; dexamethasone started preoperatively.",
        ),
        (
            "{He} underwent {procedure} without complication and was monitored overnight in the neuro ICU.",
            "On the day of admission {he} underwent {procedure}; EBL 300 mL. Post-op neuro ICU course was uneventful.",
        ),
        (
            "Post-op MRI showed a gross total resection. {He} transferred to the floor on POD#1, ambulated with "
            "PT, and was discharged on a dexamethasone taper and levetiracetam.",
            "GTR on post-op MRI. Transferred to the floor POD 1; dexamethasone tapering over 1 week; keppra to "
            "continue until clinic follow-up.",
        ),
    ),
    instructions=(
        "You had surgery (craniotomy) to remove a meningioma, a usually benign tumor of the lining of the brain. "
        "Take dexamethasone exactly as the taper directs; do not stop it suddenly. Do not drive until cleared by "
        "your surgeon. You may shower after 3 days but do not soak the incision.",
        "You were admitted for removal of a brain tumor (meningioma). Call for fever, wound drainage, worsening "
        "headache, new weakness or a seizure. Take levetiracetam twice a day until you are told to stop.",
    ),
    followup=("Follow up in the neurosurgery brain tumor clinic in 2 weeks; MRI brain in 3 months.",),
    next_storylines=("urinary_tract_infection", "pneumonia"),
)

STORYLINES: tuple[Storyline, ...] = (
    ISCHEMIC_STROKE,
    TRANSIENT_ISCHEMIC_ATTACK,
    BREAKTHROUGH_SEIZURE,
    SUBDURAL_HEMATOMA,
    MENINGIOMA,
)
