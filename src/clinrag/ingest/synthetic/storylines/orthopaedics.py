"""Orthopaedic storylines."""

from clinrag.ingest.synthetic.model import (
    Complication,
    Diagnosis,
    Finding,
    Medication,
    Procedure,
    SocialFact,
    Storyline,
)

ENOXAPARIN_PROPHYLAXIS = Medication("Enoxaparin Sodium", "40", "mg", "SC", "DAILY", "SYR", "to prevent blood clots")
OXYCODONE_PRN = Medication("OxyCODONE (Immediate Release)", "5", "mg", "PO", "Q4H:PRN pain", "TAB", "for pain")
ACETAMINOPHEN = Medication("Acetaminophen", "1000", "mg", "PO", "Q8H", "TAB", "for pain")
SENNA = Medication("Senna", "8.6", "mg", "PO", "BID:PRN constipation", "TAB", "for constipation")

HIP_FRACTURE = Storyline(
    key="hip_fracture",
    title="Hip fracture after a mechanical fall",
    service="ORTHO",
    note_service="ORTHOPAEDICS",
    ages=(66, 97),
    length_of_stay=(3, 9),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL"),
    discharge_locations=("REHAB", "SKILLED NURSING FACILITY", "HOME HEALTH CARE"),
    chief_complaints=("right hip pain after fall", "fall, right hip pain", "R hip pain s/p mechanical fall"),
    diagnosis=Diagnosis(
        "S72001A",
        ("right femoral neck fracture", "fracture of the right femoral neck", "right hip fracture"),
    ),
    secondary=(Diagnosis("W010XXA", ("mechanical fall", "fall from standing")),),
    procedures=(
        Procedure(
            "0SR9019",
            (
                "right hip hemiarthroplasty",
                "cemented right hip arthroplasty",
                "right hip replacement (cemented)",
            ),
        ),
    ),
    medications=(ENOXAPARIN_PROPHYLAXIS, OXYCODONE_PRN, ACETAMINOPHEN, SENNA),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who presents after a mechanical fall at home. "
        "{He} tripped over a rug while walking to the bathroom, landed on {his} right side and was unable to "
        "bear weight afterwards. {He} denies head strike, loss of consciousness, chest pain or palpitations "
        "before the fall. In the ED, imaging showed a {diagnosis}.",
        "{age} yo {man} with {history} who slipped at home and fell onto {his} right hip. No preceding "
        "dizziness, syncope or chest pain. {He} could not get up and was brought in by EMS. Found to have a "
        "{diagnosis} and admitted to orthopaedics for operative repair.",
        "This {age} year old {man} with {history} was found on the floor by family after a witnessed "
        "trip and fall. {He} reports severe right groin and hip pain and inability to walk since. Workup "
        "revealed a {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Right lower extremity shortened and externally rotated, pain with log roll.",
                "RLE shortened and externally rotated; exquisite tenderness over the right hip.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Hip x-ray: displaced subcapital fracture of the right femoral neck.",
                "Right hip radiographs demonstrate a displaced femoral neck fracture.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "CT head without contrast: no acute intracranial process.",
                "Head CT negative for hemorrhage or fracture.",
            ),
            probability=0.6,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental note is made of a 4 mm nodule in the right lower lobe on chest x-ray.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("D62", ("acute blood loss anemia", "postoperative acute blood loss anemia")),
            probability=0.3,
            course=(
                "Postoperatively {his} hemoglobin fell to 7.2 and {he} was treated for {complication} with one "
                "unit of packed red blood cells, with an appropriate rise.",
                "{He} developed {complication} after surgery, requiring transfusion of 1 unit PRBC; hematocrit "
                "remained stable thereafter.",
            ),
        ),
        Complication(
            Diagnosis("F05", ("postoperative delirium", "delirium")),
            probability=0.2,
            course=(
                "On postoperative day 1 {he} became confused overnight; this was felt to be {complication} and "
                "resolved with reorientation, sleep hygiene and minimising opioids.",
            ),
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the orthopaedic surgery service with a {diagnosis}. {He} was medically "
            "optimised and taken to the operating room for a {procedure} without complication.",
            "Admitted to orthopaedics for a {diagnosis}. After medicine consultation for preoperative risk "
            "assessment, {he} underwent {procedure} on hospital day 2.",
        ),
        (
            "{He} worked with physical therapy, was weight bearing as tolerated on the right lower extremity, and "
            "pain was controlled with oral medications. Enoxaparin was started for DVT prophylaxis for four weeks.",
            "Post-operatively {he} was seen by PT and was cleared for discharge to rehab; {he} remains weight "
            "bearing as tolerated. DVT prophylaxis with enoxaparin will continue for 4 weeks.",
        ),
    ),
    social=(
        SocialFact(
            (
                "Lives alone in a second-floor apartment; uses a cane outdoors.",
                "Lives with {his} spouse; ambulates with a walker at baseline.",
            )
        ),
    ),
    instructions=(
        "You were admitted after a fall in which you broke your right hip. You had surgery to repair it. You may "
        "put as much weight on your right leg as is comfortable. Please keep your incision clean and dry, and "
        "call your surgeon for fever, redness or drainage from the wound.",
        "You were in the hospital for a right hip fracture, which was fixed in the operating room. Continue "
        "physical therapy and the blood thinner injections for 4 weeks. Return for worsening pain, chest pain or "
        "shortness of breath.",
    ),
    followup=("Follow up in the orthopaedic clinic in 2 weeks for a wound check and staple removal.",),
    next_storylines=("pneumonia", "urinary_tract_infection"),
)

ASPIRIN_DVT_PROPHYLAXIS = Medication("Aspirin", "81", "mg", "PO", "BID", "TAB", "to prevent blood clots")
POSTOPERATIVE_BLOOD_LOSS_ANEMIA = Complication(
    Diagnosis("D62", ("acute blood loss anemia", "postoperative acute blood loss anemia")),
    probability=0.15,
    course=(
        "Hemoglobin drifted to 7.4 on POD#2 and {he} was transfused 1 unit PRBC for symptomatic {complication}, "
        "with resolution of orthostatic dizziness.",
        "{His} post-operative course was notable for {complication} (Hgb 10.9 -> 7.6); {he} received one unit of "
        "PRBC with an appropriate response.",
    ),
)
POSTOPERATIVE_URINARY_RETENTION = Complication(
    Diagnosis("R339", ("postoperative urinary retention", "urinary retention")),
    probability=0.15,
    course=(
        "After Foley removal on POD#1 {he} was unable to void, with a bladder scan of 650 mL, consistent with "
        "{complication}; {he} was straight-cathed twice and then voided spontaneously.",
        "{He} had {complication} requiring replacement of the Foley for 24 hours; the subsequent voiding trial "
        "was passed.",
    ),
)

TOTAL_KNEE_ARTHROPLASTY = Storyline(
    key="total_knee_arthroplasty",
    title="Elective right total knee arthroplasty for osteoarthritis",
    service="ORTHO",
    note_service="ORTHOPAEDICS",
    ages=(50, 88),
    length_of_stay=(1, 4),
    admission_types=("SURGICAL SAME DAY ADMISSION", "ELECTIVE"),
    admission_locations=("PHYSICIAN REFERRAL", "CLINIC REFERRAL"),
    discharge_locations=("HOME HEALTH CARE", "HOME", "REHAB"),
    chief_complaints=("right knee pain", "R knee osteoarthritis", "right knee pain and stiffness"),
    diagnosis=Diagnosis(
        "M1711",
        ("right knee osteoarthritis", "primary osteoarthritis of the right knee", "end-stage R knee OA"),
    ),
    procedures=(
        Procedure(
            "0SRC0J9",
            ("right total knee arthroplasty", "R TKA", "cemented right total knee replacement"),
        ),
    ),
    medications=(ASPIRIN_DVT_PROPHYLAXIS, OXYCODONE_PRN, ACETAMINOPHEN, SENNA),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} and long-standing right knee pain from {diagnosis} "
        "that has failed physical therapy, NSAIDs and intra-articular steroid injections. {He} now has pain with "
        "every step and can walk less than one block. {He} presents for elective total knee replacement.",
        "{age} yo {man} w/ {history}, end-stage R knee OA refractory to conservative management (PT, "
        "injections x3, bracing), presenting for elective R TKA.",
        "This {age} year old {man} with {history} has had progressive right knee pain, stiffness and night pain "
        "for several years, now limiting {his} ability to shop and climb stairs. After discussion of the risks "
        "and benefits, {he} elected to proceed with arthroplasty.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Right knee dressing clean, dry and intact; foot warm with 2+ DP pulse; SILT in all distributions; "
                "fires EHL/FHL/TA/GSC.",
                "R knee incision c/d/i, mild effusion; neurovascularly intact distally.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Preoperative right knee radiographs: severe medial compartment joint space narrowing with "
                "subchondral sclerosis and osteophytes.",
                "Knee x-rays: bone-on-bone medial joint space, large osteophytes, varus alignment.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Postoperative x-ray: right TKA components in good alignment without periprosthetic fracture.",),
            probability=0.8,
        ),
        Finding("Pertinent Results", ("POD1 Hgb 10.9 (preop 13.4).", "Hgb 13.4 -> 10.9 on POD#1.")),
        Finding(
            "Pertinent Results",
            ("Preoperative chest x-ray: mild tortuosity of the thoracic aorta.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(POSTOPERATIVE_BLOOD_LOSS_ANEMIA, POSTOPERATIVE_URINARY_RETENTION),
    course=(
        (
            "{Mr} ___ was admitted to the orthopaedic surgery service for {diagnosis}.",
            "# {diagnosis}: elective admission for arthroplasty after failing conservative treatment.",
        ),
        (
            "{He} underwent an uncomplicated {procedure} under spinal anesthesia with an adductor canal block.",
            "On the day of admission {he} underwent {procedure}; there were no intraoperative complications.",
        ),
        (
            "Postoperatively {he} worked with physical therapy starting on POD 0 and progressed to ambulating "
            "with a walker and climbing stairs. Aspirin 81 mg twice daily was started for DVT prophylaxis for 4 "
            "weeks. Pain was controlled with acetaminophen and oxycodone.",
            "PT cleared {him} for discharge after stair training; ROM 5-90 degrees at discharge. WBAT RLE. DVT ppx "
            "with ASA 81 BID x 4 weeks.",
        ),
    ),
    social=(
        SocialFact(("Lives with {his} spouse in a two-story home with 12 stairs.", "Retired teacher; lives alone.")),
    ),
    instructions=(
        "You had a right total knee replacement. You may put as much weight on your leg as is comfortable and "
        "should continue the exercises taught by physical therapy. Take aspirin twice daily for 4 weeks to "
        "prevent blood clots. Keep the dressing on until your follow-up unless it becomes saturated.",
        "You were admitted for knee replacement surgery. Ice and elevate the knee, but do not put a pillow "
        "directly under the knee. Call your surgeon for fevers, increasing redness or drainage, or calf pain and "
        "swelling.",
    ),
    followup=("Follow up with your surgeon in 2 weeks for a wound check and staple removal.",),
)

ANKLE_FRACTURE = Storyline(
    key="ankle_fracture",
    title="Right trimalleolar ankle fracture treated with ORIF",
    service="ORTHO",
    note_service="ORTHOPAEDICS",
    ages=(18, 85),
    length_of_stay=(1, 4),
    admission_types=("EW EMER.", "URGENT"),
    admission_locations=("EMERGENCY ROOM",),
    discharge_locations=("HOME", "HOME HEALTH CARE", "REHAB"),
    chief_complaints=("right ankle pain after fall", "R ankle injury", "ankle deformity after slip on ice"),
    diagnosis=Diagnosis(
        "S82851A",
        ("right trimalleolar ankle fracture", "displaced trimalleolar fracture of the right ankle", "right trimal fx"),
    ),
    secondary=(Diagnosis("W000XXA", ("fall on ice", "slip on ice")),),
    procedures=(
        Procedure(
            "0QSJ04Z",
            (
                "ORIF of the right trimalleolar ankle fracture",
                "open reduction internal fixation of the right ankle",
                "right ankle ORIF",
            ),
        ),
        Procedure("0QSG04Z", ("medial malleolus screw fixation", "fixation of the medial malleolus")),
    ),
    medications=(ENOXAPARIN_PROPHYLAXIS, OXYCODONE_PRN, ACETAMINOPHEN, SENNA),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who slipped on ice outside {his} home and twisted "
        "{his} right ankle, with immediate pain, swelling and deformity. {He} could not bear weight. The ankle was "
        "reduced and splinted in the ED and {he} was admitted for operative fixation.",
        "{age} yo {man} w/ {history} s/p slip and fall on ice with an inversion injury to the R ankle. No head "
        "strike or LOC. X-rays: {diagnosis} with talar subluxation; closed reduction and splinting in ED.",
        "This {age} year old {man} with {history} fell on an icy sidewalk and heard a pop in {his} right ankle. "
        "{He} denies other injuries. Imaging demonstrated a {diagnosis}.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Right ankle swollen and ecchymotic, tender over the medial and lateral malleoli; skin intact; "
                "foot warm with a palpable DP pulse.",
                "RLE: gross deformity at the ankle, skin tented but intact; SILT; toes warm and well perfused.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "Right ankle x-rays: trimalleolar fracture with lateral talar subluxation.",
                "Ankle radiographs: displaced bimalleolar fracture with a posterior malleolar fragment and "
                "lateral talar shift.",
            ),
        ),
        Finding(
            "Pertinent Results",
            ("Post-op films: anatomic reduction with a lateral fibular plate and medial malleolar screws in place.",),
            probability=0.8,
        ),
        Finding(
            "Pertinent Results",
            ("Incidental small plantar calcaneal spur on ankle radiographs.",),
            probability=0.2,
            noise=True,
        ),
    ),
    course=(
        (
            "{Mr} ___ was admitted to the orthopaedic service with a {diagnosis}. {He} was kept in a well-padded "
            "splint with elevation until the swelling allowed surgery.",
            "# {diagnosis}: closed reduction and splinting in the ED; admitted for pain control, elevation and "
            "ORIF once soft tissues permitted.",
        ),
        (
            "{He} underwent {procedure} on hospital day 2 without complication.",
            "Taken to the OR for {procedure}; the syndesmosis was stable on intraoperative stress testing.",
        ),
        (
            "Postoperatively {he} was placed in a splint and was non-weight bearing on the right lower extremity. "
            "{He} was cleared by PT for crutches. Enoxaparin was started for 2 weeks of DVT prophylaxis.",
            "NWB RLE in a posterior splint; PT cleared for discharge with crutches/walker. Lovenox ppx x 2 weeks.",
        ),
    ),
    social=(SocialFact(("Lives with {his} partner in a house with 3 steps to enter.", "Works as a ___; non-smoker.")),),
    instructions=(
        "You had surgery to fix a broken right ankle. Do not put any weight on your right leg until your surgeon "
        "tells you it is safe. Keep the splint clean, dry and intact, and keep the leg elevated above the level "
        "of your heart as much as possible.",
        "You were admitted with a right ankle fracture that was repaired with a plate and screws. Non-weight "
        "bearing right leg. Inject enoxaparin once daily for 2 weeks. Call for numbness of the toes, pain that "
        "is not controlled, or fevers.",
    ),
    followup=("Follow up in orthopaedic trauma clinic in 2 weeks for a wound check and splint change.",),
)

LUMBAR_SPINAL_STENOSIS = Storyline(
    key="lumbar_spinal_stenosis",
    title="Lumbar spinal stenosis with neurogenic claudication treated with laminectomy",
    service="ORTHO",
    note_service="ORTHOPAEDICS",
    ages=(55, 88),
    length_of_stay=(1, 4),
    admission_types=("SURGICAL SAME DAY ADMISSION", "ELECTIVE"),
    admission_locations=("PHYSICIAN REFERRAL", "CLINIC REFERRAL"),
    discharge_locations=("HOME", "HOME HEALTH CARE", "REHAB"),
    chief_complaints=("low back and leg pain", "neurogenic claudication", "bilateral leg pain with walking"),
    diagnosis=Diagnosis(
        "M48062",
        (
            "lumbar spinal stenosis with neurogenic claudication",
            "L3-L5 lumbar stenosis",
            "lumbar canal stenosis",
        ),
    ),
    procedures=(
        Procedure(
            "00NY0ZZ",
            ("L3-L5 decompressive laminectomy", "lumbar laminectomy at L3-5", "decompressive lumbar laminectomy"),
        ),
    ),
    medications=(
        OXYCODONE_PRN,
        ACETAMINOPHEN,
        SENNA,
        Medication("Methocarbamol", "500", "mg", "PO", "QID:PRN muscle spasm", "TAB", "for muscle spasm"),
    ),
    hpi=(
        "{Mr} ___ is a {age} year old {man} with {history} who has had 2 years of low back pain and bilateral "
        "buttock and thigh pain brought on by walking and relieved by sitting or leaning forward. {He} can now "
        "walk only half a block. Symptoms persisted despite PT and two epidural steroid injections.",
        "{age} yo {man} w/ {history} and progressive neurogenic claudication, walking tolerance <1 block, leans "
        "on the shopping cart. MRI: severe central stenosis L3-4, L4-5. Failed conservative tx; presents for "
        "elective decompression.",
        "This {age} year old {man} with {history} reports heaviness and numbness in both legs when standing or "
        "walking, which resolves with rest. Imaging confirmed {diagnosis}. {He} elected to proceed with surgery.",
    ),
    findings=(
        Finding(
            "Physical Exam",
            (
                "Strength 5/5 in bilateral lower extremities; sensation intact to light touch; negative straight "
                "leg raise.",
                "BLE full strength, reflexes 1+ symmetric, SILT L2-S1; incision c/d/i.",
            ),
        ),
        Finding(
            "Pertinent Results",
            (
                "MRI L-spine: severe central canal stenosis at L3-4 and L4-5 due to disc bulge, facet arthropathy "
                "and ligamentum flavum hypertrophy.",
                "Lumbar MRI: severe L3-4 and L4-5 central stenosis with crowding of the cauda equina.",
            ),
        ),
        Finding("Pertinent Results", ("Post-op Hct 36.2.",), probability=0.6),
        Finding(
            "Pertinent Results",
            ("MRI incidentally notes a 2 cm T2-hyperintense right renal cyst.",),
            probability=0.15,
            noise=True,
        ),
    ),
    complications=(
        Complication(
            Diagnosis("G9741", ("incidental durotomy", "incidental dural tear")),
            probability=0.1,
            course=(
                "An {complication} was identified intraoperatively and repaired primarily with sealant; {he} was "
                "kept flat for 24 hours and had no postural headache or wound drainage afterwards.",
            ),
        ),
        POSTOPERATIVE_URINARY_RETENTION,
    ),
    course=(
        (
            "{Mr} ___ was admitted electively for surgical management of {diagnosis}.",
            "# {diagnosis}: failed conservative management; admitted for decompression.",
        ),
        (
            "{He} underwent {procedure} without complication. A hemovac drain was placed and removed on POD#1.",
            "{He} was taken to the OR for {procedure}; estimated blood loss was 150 mL.",
        ),
        (
            "Postoperatively {his} leg symptoms were markedly improved. {He} ambulated with PT, pain was "
            "controlled on oral medications, and {he} was discharged in good condition.",
            "Leg pain resolved post-op. Mobilised with PT POD 0-1; cleared for home. Activity as tolerated, no "
            "bending, lifting or twisting.",
        ),
    ),
    instructions=(
        "You had a lumbar laminectomy to relieve pressure on the nerves in your lower back. Do not lift more than "
        "10 pounds and avoid bending or twisting for 6 weeks. Walking is encouraged. You may shower but do not "
        "soak the incision.",
        "You had back surgery (laminectomy). Call your surgeon for new weakness or numbness in the legs, loss "
        "of bladder or bowel control, fever, or drainage from the incision.",
    ),
    followup=("Follow up in the spine clinic in 2 weeks for a wound check.",),
)

STORYLINES: tuple[Storyline, ...] = (HIP_FRACTURE, TOTAL_KNEE_ARTHROPLASTY, ANKLE_FRACTURE, LUMBAR_SPINAL_STENOSIS)
