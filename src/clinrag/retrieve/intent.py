"""Which discharge-summary sections a question is about, from the way clinicians and patients ask.

"What was she sent home on?" is answered by the Discharge Medications section, "Why did he come in?" by the
Chief Complaint and the History of Present Illness. The retriever uses these sections as a soft preference: it
adds a section-focused ranking to the fusion, so the right section rises while every other chunk stays eligible
(a discharge diagnosis can still answer a question about a history). An explicit section filter always wins.

The cues are everyday and clinical phrasings, matched case-insensitively on word boundaries; a question may match
several, and then prefers the union of their sections.

Example:
    >>> section_intent("Which patients were discharged on clarithromycin?")
    ('Discharge Medications',)
    >>> section_intent("Does Betty Henry smoke, and who does she live with?")
    ('Social History',)
    >>> section_intent("Summarise the note")
    ()
"""

from __future__ import annotations

import re
from typing import Final

from clinrag.index.abbreviations import expand_abbreviations
from clinrag.index.lexical import STOPWORDS, tokenize
from clinrag.retrieve.patient_mentions import census_surnames, given_names
from clinrag.retrieve.shorthand import QUESTION_SHORTHAND
from clinrag.retrieve.vocabulary import RARE_ZIPF, is_drug_name, zipf

_ADMITTED = (
    r"(?:being |getting |he was |she was |they were |the patient was )?"
    r"(?:admitted|admission|admit|hospitali[sz]ed|confined)"
    r"|(?:coming|came|being brought|arriving|going|went|getting|got) (?:in)?to (?:the |your |our )?hospital"
)
_DRUGS = (
    r"(?:meds?|medications?|medicines?|drugs?|pills|prescriptions?|scripts|tablets|(?:medication |drug )?regimens?)"
)
_STAY = r"(?:(?:hospital )?stay|admission|hospitali[sz]ation|confinement|inpatient|in hospital|on the ward)"
_TESTS = (
    r"(?:tests?|labs?|bloods?|blood (?:tests?|work|levels?)|(?:drug )?levels?|imaging|scans?|x-?rays?|cxr|ct|mri"
    r"|ultrasound|echo\w*|ecg|ekg|films?)"
)
_PLANNED = (
    r"(?:arranged|booked|due|planned|scheduled|requested|ordered for|needed|needs? (?:doing|checking|repeating|to be)"
    r"|to be (?:done|checked|repeated|rechecked)|(?:does|do|did|will|would) (?:he|she|they|the patient) need)"
)

SECTION_CUES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        rf"discharge {_DRUGS}|discharged (?:on|with|taking)"
        r"|(?:sent|send|went|go|going|gone) (?:\w+ ){0,3}?(?:home|out) (?:on|with|taking)"
        rf"|(?:came|come|comes|coming|got|get|gets) home with (?:\w+ ){{0,4}}?{_DRUGS}\b"
        rf"|{_DRUGS}\b[^?.]{{0,40}}\b(?:sent|send) (?:\w+ ){{0,2}}?home\b"
        rf"|{_DRUGS}\b.{{0,20}}\b(?:on|after) leaving (?:the )?hospital\b"
        rf"|{_DRUGS}\b[^?.]{{0,40}}\b(?:got|get|given|gave) for (?:going )?home\b"  # "medicines she got for going home"
        r"|(?:hospital|they|doctors?|ward|team) (?:give|gave|given) (?:[\w'’-]+ ){0,3}?to take (?:at )?home\b"
        rf"|{_DRUGS} (?:(?:she|he|they|\w+) )?(?:went |came |sent )?home with\b"  # "what tablets home with?"
        rf"|{_DRUGS}\b.{{0,30}}\b(?:come|came|comes|coming) out on\b"
        rf"|{_DRUGS}.{{0,40}}\bafter (?:going home|discharge|leaving)"
        rf"|(?:{_DRUGS}|ones)\b.{{0,60}}\bwhen (?:he|she|they|I|you|we)"
        r" (?:left|went home|got home|(?:was|were) discharged)\b"
        r"|discharge (?:him|her|them|['’]em|me|the patient) (?:on|with)"
        rf"|{_DRUGS}\b[^?.]{{0,60}}\bdischarge (?:(?-i:[A-Z])[\w'-]+ ){{1,2}}(?:on|with)\b"  # "discharge Ada Stone on"
        rf"|{_DRUGS}\b[^?.]{{0,40}}\b(?:must|should|has to|have to|needs? to) take now\b"
        r"|(?:come|came|coming) home (?:on|with)\b"
        rf"|take-home|take home (?:{_DRUGS}|list|pack)|{_DRUGS}\b.{{0,40}}\btake home|going[- ]home {_DRUGS}"
        r"|now (?:that )?(?:they're|he's|she's|they are|he is|she is) home"
        rf"|{_DRUGS}\b[^?.]{{0,40}}\b(?:give|gave|given|get|got)\b[^?.]{{0,20}}\b(?:for (?:at )?|to (?:go|take) )home\b"
        rf"|{_DRUGS}\s+for\s+(?:at\s+)?home\b"
        r"|(?:left|leave|leaving) (?:the )?hospital (?:on|with|taking)|(?:on|at|after) discharge"
        r"|(?:sent|send|went|go|going|gone|let) out of (?:the )?hospital (?:on|with|taking)"
        r"|did (?:he|she|they|the patient) leave (?:on|with)\b"
        rf"|once (?:back )?home|keep taking|{_DRUGS}.{{0,40}}\bat the end of|prescribed at the end"
        rf"|d/?c (?:{_DRUGS})|{_DRUGS} (?:at|on) d/?c"
        rf"|{_DRUGS} (?:as )?(?:per|on|in|from) (?:the |their |his |her )?(?:d/?c|discharge)"
        r" (?:summary|letter|paperwork)"
        r"|prescribed (?:when|on|upon|at|after) (?:leaving|discharge|going home)",
        ("Discharge Medications",),
    ),
    (
        rf"(?:before|prior to) (?:(?-i:[A-Z])[\w'-]+ ){{0,2}}{_ADMITTED}"
        rf"|(?:home|outpatient) {_DRUGS}|regular {_DRUGS}|usual {_DRUGS}|pre-?admission"
        rf"|{_DRUGS}\b[^?.!;]{{0,40}}\b(?:(?:on|at|upon) (?:the time of )?(?:admission|arrival)"
        r"|when (?:\w+ ){0,3}admitted)"
        rf"|\b(?:on|taking|takes?|{_DRUGS})\b.{{0,30}}\b(?:before|prior to) (?:(?:the|his|her|their|this|that) )?"
        rf"(?:\w+ ){{0,2}}(?:{_ADMITTED}|op|operation|surgery|replacement|repair|procedure)\b"
        r"|already (?:on|taking)"
        rf"|{_DRUGS} on admission|{_DRUGS}.{{0,40}}\bat the start of|was (?:he|she|the patient) (?:on|taking) at home"
        r"|usual(?:ly)? (?:prescribed|taking|takes|on)|take at home|\btaking regular(?:ly)?\b"
        r"|(?:\bon|taking|takes?|using|uses?) (?:any |an? )?.{0,30}\bat home\b(?! with)"
        r"|\b(?:on|taking) before (?:they|he|she|I|you|we) (?:came|come|went|were|was) in(?:to)?\b"
        rf"|(?:old|previous) {_DRUGS}|{_DRUGS}\b.{{0,30}}\bbefore (?:the )?hospital\b"
        rf"|\bbefore (?:the )?hospital\b.{{0,30}}\b{_DRUGS}"
        rf"|\bbefore\b[^?.]{{0,30}}?\b(?:{_ADMITTED}|(?:go|come) in(?:to)? (?:the )?hospital)\b[^?.]{{0,30}}\b{_DRUGS}"
        r"|\bbefore (?:they|he|she|I|you|we) (?:came|come|went|were|was|got) in\b[^?]{0,60}\b(?:on|taking)"
        r"(?: every day| daily| regularly)?(?=\s*\?)"
        r"|\b(?:on|taking)\b[^?.]{0,40}\bbefore (?:they|he|she|I|you|we) (?:\w+ ){0,3}"
        r"(?:came|come|went|got|were|was) in\b"
        r"|\b(?:on|taking)\b[^?.]{0,20}\bbefore (?:all )?(?:this|that)\b"
        r"|\b(?:on|taking)\b[^?.]{0,20}\bbefore (?:they|he|she|I|you|we) (?:done|did|hurt|broke|fell)\b"
        rf"|{_DRUGS}\b[^?.]{{0,20}}\bbefore (?:they|he|she|I|you|we) (?:came|come|went|were|was|got) in\b"
        r"|\b(?:on|taking)\b[^?.]{0,20}\bbeforehand\b|(?<!take[- ])\bhome list\b"
        rf"|{_DRUGS}\b[^?.]{{0,40}}\bbefore (?:they|he|she|I|you|we) (?:enter|entered|came into|went into)"
        r" (?:the )?hospital\b"
        rf"|(?:{_DRUGS}|\bon)\b[^?.]{{0,40}}\bbefore (?:going|coming) in\b",
        ("Medications on Admission",),
    ),
    (
        r"allerg\w*|nkda|nka|react\w* badly|react(?:ed|s)? too?|intoleran\w*|adverse (?:drug )?reactions?"
        r"|sensitivit(?:y|ies)|sensitive to"
        r"|reactions?|adrs?|can(?:no|')t (?:take|have)",
        ("Allergies",),
    ),
    (
        r"diagnos\w*|found to have|what (?:\w+ )?(?:was|is) (?:\w+ly )?wrong|the matter with|(?:main|principal) problem"
        r"|(?:find|found|think|thought|say|said|decide|decided) (?:was|is) (?:\w+ly )?wrong"
        r"|(?:say|said|says) (?:\w+ ){0,3}wrong with"
        r"|(?:decided?|say|said|think|thought) (?:it|that) (?:was|is)\b"
        r"|\bin (?:(?:the )?hospital )?(?:for|with)(?=\s*(?:[,?.!;]|$))|turn(?:ed|s)? out to be"
        r"|put (?:it|this|that) down to"
        r"|what (?:was|is) (?:the|his|her|their) (?:illness|sickness|disease|condition)"
        r"|(?:say|said|call|called) (?:the|his|her|their) (?:illness|sickness|disease|condition|problem) (?:was|is)\b"
        r"|final impression|(?:treated|managed) for"
        r"|(?:which|what) (?:(?:kind|type|sort) (?:of )?)?(?:sickness|illness|disease|condition)s?"
        r"|(?:final|main|actual|real) (?:sickness|illness|ailment)"
        r"|name of (?:the|his|her|their) (?:sickness|illness|ailment)"
        r"|(?:sickness|illness|ailment) (?:they|that|which) (?:found|made|caused|brought|took)"
        r"|(?:doctors?|they) (?:say|said|says) (?:what|which) (?:problem|sickness|illness)"
        r"|admitted (?:and|&) discharged with"
        r"|end(?:ed)? up (?:having|with)|(?:admitted|hospitali[sz]ed)"
        r" (?:for|with)|(?:illness|condition|disease) .{0,40}\b(?:in (?:the )?hospital|admitted|hospitali[sz]ed) for"
        r"|(?:admitted|hospitali[sz]ed)"
        r" (?:for|with)|cared for with|d?dx|kept in (?:with|for)\b|what (?:was|is) the (?:\w+ )?problem\b"
        r"|(?:say|said|says|think|thought|decide|decided) (?:\w+ )?(?:was|is) the (?:\w+ )?problem\b"
        r"|what did (?:the |your )?(?:\w+ )?(?:say|tell (?:\w+ )?) (?:(?-i:[A-Z])[\w'’-]+ ){0,2}(?:(?:he|she|they) )?"
        r"(?:had|has|have)\b",  # "What did the doctors say Bill Pugh had when they let him go?"
        ("Discharge Diagnosis",),
    ),
    (
        r"operat\w*|surg(?!eons?\b)\w*|procedures?|underwent|undergo|performed|intervention"
        r"|taken to (?:the )?(?:or|theat(?:re|er))|status post"
        r"|(?:was|were|been|get|got|gets|have|has|had) (?:\w+ )?done\b(?!\s+(?:for|about|with) (?:pain|it|that|this))"
        r"(?: under (?:the |a )?(?:general |local )?an(?:a)?esthetic)?"
        r"|what (?:\w+ly )?did (?:they|the \w+|ortho\w*|gyn\w*|urolog\w*|cardio\w*|vascular|neuro\w*|plastics)"
        r" (?:\w+ly )?do\b|\bdo to (?:fix|repair|mend|sort out|treat) (?:it|that|this|the \w+)\b"
        r"|\bcut (?:\w+ ){1,3}open\b|(?:one of )?(?:them|those) cameras\b",
        ("Major Surgical or Invasive Procedure", "Brief Hospital Course"),
    ),
    (
        r"complicat\w*|went wrong|go wrong|(?:go|went|gone) pear[- ]shaped|setbacks?|adverse events?"
        r"|intercurrent (?:events?|illness\w*|problems?)|went (?:something|anything) wrong"
        r"|(?:problems?|issues?) (?:arose|arise|came up)"
        r"|post-?op\w*|postoperative\w*|side[- ]effects?"
        r"|(?:problems?|issues?|troubles?|difficult\w*) (?:after|following|post|from|with (?:the|his|her) recovery)"
        r"|arose|hospital course|how was .{0,30} treated|what was .{0,30} treated(?! for)"
        # "c diff treatment", "what treatment did she get for the cellulitis": how the stay's problem was treated
        r"|\btreatment (?:for|of)\b|\btreatment\s*\??\s*$"
        r"|\btreatment (?:did|was) .{0,30} (?:get|given|receive)\w* for\b"
        rf"|develop\w*(?=.{{0,40}}\b(?:while|during) .{{0,20}}{_STAY})"  # the cue is the verb: what develops is asked
        rf"|\bwhile (?:an? )?{_STAY}|during (?:(?:the|their|his|her) )?{_STAY}"
        r"|recovery (?:was )?(?:rough|difficult|eventful|complicated|hard)|rough recovery"
        r"|(?:anything|something) (?:\w+ )?happen(?:ed)?\b|(?:didn't|did not|not) go (?:to|according to) plan"
        r"|(?:go|went|gone) (?:smooth(?:ly)?|to plan)"
        r"|develop\w* (?:something|anything) (?:\w+ ){0,3}(?:on the ward|in (?:the )?hospital)\b",
        ("Brief Hospital Course",),
    ),
    (
        r"smok\w*|tobacco|cigar(?:ette|et)s?|ciggies|durr(?:y|ies)|fags|vap(?:e|es|ing)|drink\w*|alcohol|etoh|grog|booze"
        r"|bevv(?:y|ies)|(?<=the )ale\b|recreational drugs|substance use"
        r"|pack[- ]?years?(?: (?:smoking )?history)?"
        r"|live[sd]? (?:with|alone|by)|living (?:situation|arrangements?)|home situation|social history"
        r"|stay(?:s|ing)? (?:alone|on (?:his|her|their) own)\b"
        r"|(?:who(?:'s| is| was)?|whom)\b[^?.]{0,30}\bstay(?:s|ing)? with|stay(?:s|ing)? with (?:who|whom)\b"
        r"|occupation|works? as|s(?:ocial )?hx|live[sd]?|living|independen\w*|at home with|look(?:s|ing)? after"
        r"|cares? for"
        r"|support at home|(?:at )?home to help|help at home|family at home"
        r"|home (?:setup|set-up|support|circumstances)|carers?|caregivers?|household"
        r"|(?:alcohol|drinking|smoking|tobacco|social|substance(?: use)?) history(?: of)?"
        r"|domestic (?:circumstances|situation|arrangements|set-?up)|someone at home"
        r"|(?:what(?:'s| is| was) )?(?:his|her|their|the) home like"
        r"|(?:who|someone|anyone|somebody|anybody) (?:\w+ ){0,3}(?:helps?|assists?)|helps? (?:him|her|them) with"
        r"|(?:someone|anyone|somebody|anybody) (?:\w+ ){0,2}(?:staying|living|stopping) (?:by|with)"
        r"|\bby (?:her|him|them)sel(?:f|ves)\b"
        r"|social (?:set-?up|situation|circumstances)|home set[- ]?up"
        r"|(?:partner|wife|husband|spouse) (?:at|in the) (?:home|house)\b"
        r"|on (?:his|her|their) own (?:in|at) (?:the )?(?:house|home|flat)\b"
        r"|who(?:'s|’s| is| was)? (?:at )?home with|(?:is|are) (?:he|she|they) on (?:his|her|their) own\b",
        ("Social History",),
    ),
    (
        r"tests?|labs?|laborator\w+|imaging|scans?|x-?rays?|investigations?|results?|work-?up|findings|echo\w*"
        r"|ct|mri|ultrasound|ecg|ekg|blood work|what did (?:it|they|that|this) (?:show|reveal|find)"
        r"|results? (?:\w+ ){0,2}(?:came|come|comes) back"
        r"|(?:urine |blood )?(?:drug|tox\w*|alcohol)(?: and alcohol)? screen\w*",
        ("Pertinent Results",),
    ),
    (
        r"(?:come|came) (?:in ?)?to (?:the )?hospital|brought .{0,25}\b(?:in|to (?:the )?(?:hospital|ed|er|emergency))"
        r"|complain(?:s|ed|ing)?\b"
        r"|(?<!formal )(?<!official )(?<!written )(?<!raised a )(?<!made a )(?<!lodged a )(?<!filed a )complaints?\b"
        r"(?!\s+(?:submitted|raised|made|lodged|filed|about|regarding|concerning|officers?|team|department|dept"
        r"|manager|handler|procedure|process|letter|desk|office))"
        r"|on arrival|when (?:he|she|they) presented\b|what happened to (?:bring|brought) (?:him|her|them) in\b"
        r"|\bbrought (?:\w+ ){1,3}into (?:the )?hospital\b|(?-i:\bPC\b)"
        r"|present(?:ed|ing)? (?:with|to)|presenting (?:complaint|symptoms?|problem)|cc"
        rf"|reason for (?:(?:the|this|that|his|her|their) )?(?:\w+ )?(?:{_STAY}|visit|readmission)"
        rf"|chief complaint|symptoms?|why .{{0,30}}\b(?:re)?admit\w*|(?:came|come|coming) in (?:with|for)"
        r"|why .{0,30}\b(?:in|into|to) (?:the )?hospital"
        r"|\b(?:went|came|come|brought|taken|got) (?:in)?to (?:the )?(?:emergency|er|a&e|ed|casualty)\b"
        r"[^?]{0,60}\bwhy\b"
        r"|reason (?:he|she|they|I|we) (?:came|come|went|was|were) in|made (?:him|her|them|me) (?:go|come) in(?:to)?"
        r"|reason (?:he|she|they|I|we|the patient) presented\b"
        r"|reason (?:he|she|they|I|we) (?:was|were) (?:admitted|brought in|taken in|hospitali[sz]ed)\b"
        r"|how (?:was|were|did|is) (?:he|she|they|the patient) present\w*|what was happening to (?:him|her|them)"
        r"|(?:reason for )?presentation|in the first place|to begin with"
        r"|what(?:'s| was| is) (?:wrong|the matter|up|the problem|the trouble)(?: with\b)?[^?.]{0,40}\bwhen"
        r" (?:he|she|they) (?:was|were) admitted\b"
        r"|what(?:'s| was| is) (?:(?:written|put|recorded|noted) (?:down )?as )?(?:wrong|the matter|up|the problem"
        r"|the trouble)"
        r"(?: with\b)?[^?.]{0,40}\bwhen (?:\w+ ){1,2}"
        r"(?:(?:first )?(?:went|came|come|got(?: taken| brought)?|(?:was|were) (?:brought|taken))"
        r"|took (?:him|her|them)) in\b"
        r"|what(?:'s| was| is) (?:wrong|the matter|up) with\b[^?.]{0,40}\bwhen (?:he|she|they) (?:got there|arrived)\b"
        r"|what(?:'s| was| is) (?:wrong|the matter|up)\b[^?.]{0,20}\bwhen (?:\w+ ){1,2}"
        r"(?:got (?:there|to you|to (?:the )?hospital)|arrived)\b"
        r"|what (?:was|were|is) (?:he|she|they) (?:ill|sick|unwell|poorly|bad) with\b[^?.]{0,40}\bwhen (?:he|she|they)"
        r" (?:got there|arrived|came in|went in|got to|got (?:taken|took) in)\b"
        r"|\b(?:the )?(?:ambulance|paramedics?) (?:came|come|was called|were called)\b[^?]{0,80}\bwhat (?:was|is) the"
        r" (?:trouble|matter|problem)\b"
        r"|what (?:was|were) (?:he|she|they|the patient) feel(?:ing|in['’]?)(?! like)\b"
        r"|what(?:'s| was| is) the (?:\w+ )?(?:problem|trouble|matter)\b[^?.]{0,20}\bwhen (?:\w+ ){1,2}"
        r"(?:turned|showed|rocked|fetched) up\b",  # "what was the actual problem when they turned up at A&E?"
        ("Chief Complaint", "History of Present Illness"),
    ),
    (
        r"history of|past medical|medical history|background(?!\s+(?:section|information|info|reading|check|to|for))"
        r"|long[- ]term|chronic|comorbid\w*|pre-?existing",
        ("Past Medical History",),
    ),
    (r"family history|runs? in (?:the|his|her|their) family|relatives", ("Family History",)),
    (
        r"follow[- ]?up instructions|"
        rf"(?:repeat|another|follow[- ]?up|further|outpatient|interval|surveillance) (?:\w+ ){{0,2}}{_TESTS}"
        r"(?![^?.!;]{0,30}\b(?:show|showed|shows|reveal\w*|found|results?)\b)"  # a planned test, not its result
        rf"|{_TESTS} (?:\w+ ){{0,3}}{_PLANNED}|(?:supposed|meant) to (?:have|get) (?:\w+ ){{0,2}}{_TESTS}"
        rf"|(?:booked|arranged|scheduled|referred|listed) (?:in )?for (?:\w+ ){{0,3}}{_TESTS}"
        r"|follow[- ]?ups?|f/u|appointments?"
        r"|see (?:his|her|their|the|an?) (?:doctor|gp|pcp|physician|specialist|consultant|surgeon|team)s?"
        rf"|see (?:the )?doctors? again|{_TESTS} again"
        r"|(?:to )?see after (?:leaving|discharge|going home)|who (?:is|does|should) .{0,40}\bsee\b"
        r"|(?<!\bat the )clinic|go back to|(?<!what's )(?<!what has )(?<!result )(?<!results )"  # a result
        r"come back(?!\s+(?:positive|negative|normal|abnormal|clear|raised|high|low))"  # a result
        r"|(?:return|control) visits?|be seen|seen (?:in|at|by)|re-?check\w*|check-?ups?|(?:told|asked|needs?) to see"
        r"|see someone|what checks|checks? with (?:who|whom)\b"
        r"|(?:staples?|stitch(?:es)?|sutures?|clips) (?:\w+ ){0,3}(?:come out|taken out|removed)\b"
        r"|(?:staple|stitch|suture|clip) removal"
        r"|(?:supposed|meant|due|going|has|have|needs?) to (?:go|come) back\b"
        r"|\bmust\b[^?.]{0,40}\b(?:go|come) back\b|\breview (?:date|appointment)s?\b",
        ("Followup Instructions",),
    ),
    (r"instructions|advised|told to(?! see)|should (?:avoid|do|watch)|return precautions", ("Discharge Instructions",)),
    (r"examination|physical exam|on exam|vital signs|vitals", ("Physical Exam",)),
    (r"disposition|discharged to|where did .{0,30}\bgo after", ("Discharge Disposition",)),
    (r"condition (?:at|on) discharge|mental status at discharge", ("Discharge Condition",)),
)
"""Phrasings (regular expressions) and the sections that answer them, in reading order of a discharge summary."""

FACT_KINDS: Final[dict[str, str]] = {
    "Discharge Medications": "discharge_medications",
    "Medications on Admission": "admission_medications",
    "Allergies": "allergy",
    "Discharge Diagnosis": "diagnosis",
    "Major Surgical or Invasive Procedure": "procedure",
    "Brief Hospital Course": "complication",
    "Social History": "social",
    "Pertinent Results": "results",
    "Chief Complaint": "presentation",
    "Past Medical History": "history",
    "Family History": "family_history",
    "Followup Instructions": "followup",
    "Discharge Instructions": "instructions",
    "Physical Exam": "exam",
    "Discharge Disposition": "disposition",
    "Discharge Condition": "condition",
}
"""The kind of fact each cue's first section stands for (``Brief Hospital Course`` alone: a complication)."""

KIND_SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    kind: next(sections for _, sections in SECTION_CUES if sections[0] == section)
    for section, kind in FACT_KINDS.items()
}
"""The sections that hold each kind of fact (a procedure: the procedure list and the hospital course)."""

ADMISSIONS_SUMMARY: Final = "admissions_summary"
_STAYS = r"(?:re)?admissions|stays|hospitali[sz]ations|visits|encounters"
_OVER_TIME = (
    r"summar\w*|overview|outline|recap|list|timeline|history|previous|prior|past|all|every|each|chronolog\w*"
    r"|over (?:the|all|many) years|over time|so far|to date|in order|briefly|how many"
)
_SUMMARY = re.compile(
    rf"\b(?:{_OVER_TIME})\b.{{0,60}}\b(?:{_STAYS})\b|\b(?:{_STAYS})\b.{{0,40}}\b(?:{_OVER_TIME})\b"
    r"|\b(?:every|each|all(?: of)?(?: (?:his|her|their|the))?) (?:admissions?|hospital stays?|hospitali[sz]ations?)\b"
    r"|\bhow many times\b.{0,40}\b(?:admitted|hospitali[sz]ed|in (?:the )?hospital|stayed|been in)\b"
    r"|\b(?:all|every one of) the times\b.{0,40}\b(?:admitted|hospitali[sz]ed|in (?:the )?hospital)\b"
    r"|\bhow many times\b.{0,40}\b(?:was|were|been)\b[^?,]{0,30}\bin\b(?=\s*(?:with|here|at|[,?]))"
    r"|\bhow many times\b.{0,40}\b(?:was|were|been)\b[^?,]{0,30}\b(?:by|with) (?:you|youse|yous|y'all)\b"
    r"|\b(?:admission|admit) history\b|\b(?:which|what) dates?\b.{0,40}\b(?:admitted|hospitali[sz]ed)\b"
    r"|\b(?:which|what) dates?\b.{0,20}\b(?:was|were) (?:he|she|they) in\b"
    r"|\b(?:admitted|in hospital|hospitali[sz]ed) each time\b|\beach time\b.{0,40}\badmitted\b"
    r"|\b(?:every|each) (?:hospital )?(?:admission|stay)\b|\bevery time\b.{0,40}\b(?:in|into) (?:the )?hospital\b"
    r"|\bevery time (?:he|she|they) (?:was|were) in\b"
    r"|\b(?:every|each|all the) times?\b.{0,40}\b(?:admitted|hospitali[sz]ed|(?:been|was|were|went|got took) in)\b"
    r"|\b(?:admitted|hospitali[sz]ed|went in|been in|was in|were in)\b[^?.]{0,25}\beach time\b"
    r"|\bhow many times\b.{0,40}\bin\b.{0,60}\b(?:all|every) (?:the )?dates\b"
    r"|\b(?:been|was|were) in\b[^?]{0,40}\bmore than once\b[^?]{0,80}\b(?:all|every|each) (?:the )?dates\b"
    r"|\badmission dates\b|\bdates?\b.{0,40}\b(?:admit+ed|hospitali[sz]ed)\b"
    r"|\bdates? (?:that |when )?(?:he|she|they|the patient) (?:was|were) (?:admitted|in hospital)\b"
    r"|\bdates? of (?:each|every|all|(?:his|her|their) )(?:\w+ )?admissions?\b"
    r"|\bwhen (?:did )?(?:each|every) (?:stay|admission) (?:start|begin|began)"
    r"|\b(?:(?:re)?admitted|hospitali[sz]ed)\b.{0,30}\b(?:over (?:the|all|many) years|over time|so far|to date"
    r"|in the past|ever|before now|previously)\b",
    re.IGNORECASE,
)
_PLURAL_STAYS = re.compile(rf"\b(?:{_STAYS})\b", re.IGNORECASE)
"""Stays in the plural: with no other kind of fact asked, the question is about the patient's admissions."""

_ANCHOR = re.compile(
    r"(?<!\blook )(?<!\blooks )(?<!\blooked )(?<!\blooking )(?<!\btaking )"  # "looks after": cares for
    r"\b(?:after|following|since|post|when\s+(?:he|she|they)\s+had)\s+(?:(?:the|his|her|their|its|a|an|this|that|my|your)\s+)?"
    r"(?!(?:discharge|d/c|going home|leaving|being discharged|returning home|getting home|home)\b)"  # not an event
    r"([a-z][\w/'-]*(?:\s+(?!(?:and|or|but|with|was|is|did|does|to|for|in|on|at|when|what|why|how)\b)"
    r"[a-z][\w/'-]*){0,2})",
    re.IGNORECASE,
)
"""A time named by an event ("after his knee replacement", "following the pneumonia", "when he had the high fever"):
its words say *when*, not what is asked (the complication after it, the follow-up after it)."""


_ROLE_HEAD: Final = (
    r"(?:nurses?|surgeons?|doctors?|physicians?|consultants?|registrars?|advis[eo]rs?|officers?|workers?|managers?"
    r"|coordinators?|practitioners?|assistants?|specialists?|clinicians?|technicians?|team|lead|matron|midwife"
    r"|paramedics?|physios?|osteopaths?|chiropractors?|carers?|care ?givers?|caretakers?|aides?|students?|trainees?"
    r"|examiners?|auditors?|chaplains?|rabbis?|priests?|imams?|pastors?|vicars?|clergy"
    r"|reg|sho|hca|cpn|gp"
    r"|(?!wrists?\b)[a-z]{3,}(?:ist|ician|itian|grapher)s?)"
)
_PLACE_HEAD: Final = r"(?:clinic|unit|ward|service|department|dept|lab|laboratory|theatres?|centre|center|office|hub)"
"""Where the asker works ("Falls clinic:", "Endoscopy unit, pre-assessment"): the asker too, when the question
opens or ends with it."""
_NOT_ROLE_WORD: Final = (
    r"(?!(?:what|which|who|whom|when|where|why|how|did|does|do|is|was|were|are|has|have|had|can|could|any)\b)"
)
_ROLE: Final = rf"(?:{_NOT_ROLE_WORD}[\w&'/-]+\s+){{0,3}}?{_ROLE_HEAD}(?:\s+{_ROLE_HEAD})*"
_PLACE: Final = rf"(?:{_NOT_ROLE_WORD}[\w&'/-]+\s+){{1,3}}?{_PLACE_HEAD}(?:\s+{_NOT_ROLE_WORD}[\w&'/-]+){{0,3}}"
_ASKER = re.compile(
    rf"^\W*(?:(?:hi|hello|hey|morning|evening)\b[\s,!.-]*)?(?:(?:i'?m|i am|this is|it'?s)\s+)?(?:(?:the|a|an|your)\s+)?"
    rf"(?:({_ROLE})\b(?=\s*(?:[:,.;–—(]|-(?!\w)|here\b|\w+ing\b|re\b|for\b|on\b))|({_PLACE})(?=\s*(?:[:,.;–—(]|-(?!\w))))"
    rf"|\b(?:i'?m|i am|this is|it'?s)\s+(?:(?:the|a|an|your|his|her|their)\s+)({_ROLE})\b"
    rf"|(?:\s[-–—]+|\?(?:\s+[-–—]+)?)\s+((?:{_PLACE}|{_ROLE}))(?=\s*(?:[,;:.]|asking\b|here\b|$))",
    re.IGNORECASE,
)


_ASIDE: Final = re.compile(r"\?\s+([^?]*[^?\s.][^?]*)$")
"""What follows a question's last question mark ("… sent home on? Need to check it against the antimalarials.")."""


def aside_span(question: str) -> list[tuple[int, int]]:
    """Where ``question`` says, after it has asked, why or who asks ("Genetics clinic asking.", "travel clinic,
    before the jabs"): unless it opens as a question itself, it names nothing to find and asks for no kind.

    Example:
        >>> q = "What was Ada Stone sent home on? Need to check it against the antimalarials."
        >>> [q[start:end] for start, end in aside_span(q)]
        ['Need to check it against the antimalarials.']
        >>> aside_span("Was Ada Stone discharged on warfarin? Or apixaban?")
        []
    """
    match = _ASIDE.search(question)
    if match is None or INTERROGATIVE.match(match.group(1)) or _NOT_ASIDE.search(match.group(1)):
        return []
    return [match.span(1)]


_NOT_ASIDE: Final = re.compile(r"^\s*(?:or|and|also|plus)\b|\b(?:what|which|when|who|whom|how|where|why)\b", re.I)
"""A continued question ("… warfarin? Or apixaban?", "?uti again what abx …"), not an aside."""


_PURPOSE: Final = re.compile(
    r"\bfor (?:the|his|her|their|my|our|a|an) (?:[\w'’-]+ ){0,3}?(?:forms?|paperwork|claims?|letters?|files?|records?"
    r"|logs?|reports?|applications?|insurance|audits?|notes?)\b",
    re.IGNORECASE,
)
"""What the asker needs the answer for ("for the MCP forms", "for the guardian's incident log", "for the urology
letter"): its words are no thing to find."""
_OPENING_ACRONYM: Final = re.compile(r"^\W*([A-Z]{2,5})(?:\s*:|\s+[-–—])\s")
"""An acronym that opens the question before a colon or a dash ("VSO - Wesley Dorsey, …", "HR - …"): who asks,
when it is no clinical abbreviation."""


def _opening_acronym(question: str) -> list[tuple[int, int]]:
    match = _OPENING_ACRONYM.match(question)
    if match is None:
        return []
    acronym = match.group(1)
    if expand_abbreviations(acronym)[1] or acronym.lower() in QUESTION_SHORTHAND or acronym.lower() in _NOT_ROLES:
        return []  # "CT: Ada Stone", "PMH: …": what is asked, not who asks
    return [match.span(1)]


_NOT_ROLES: Final = frozenset(tokenize("pt pe lp cbc bun ast alt inr tsh crp esr bnp ecg ekg mri ct cxr us"))


def asker_spans(question: str) -> list[tuple[int, int]]:
    """Where ``question`` says who asks ("Dental surgeon:", "Stoma nurse specialist.", "I'm the district nurse",
    "Falls clinic -", "… ? Genetics clinic asking."): the words of the asker's role ("dental",
    "stoma") are never what is asked about, nor a kind of record ("surgeon" is not a question about surgery).

    Example:
        >>> q = "Dental surgeon: is Ada Stone allergic to anything?"
        >>> [q[start:end] for start, end in asker_spans(q)]
        ['Dental surgeon']
        >>> q = "When was Ada Stone admitted, each time, for the endoscopy unit - in order?"
        >>> asker_spans(q)
        []
        >>> asker_spans("Which surgeon did Ada Stone's knee replacement?")
        []
    """
    roles = [match.span(group) for match in _ASKER.finditer(question) for group in (1, 2, 3, 4) if match.group(group)]
    wanting = [match.span(1) for match in _WANTS_ANSWER.finditer(question)]
    kept = [match.span(1) for match in [_KEPT_BOOK.match(question)] if match and not cue_spans(match.group(1))]
    return [
        *_opening_acronym(question),
        *roles,
        *wanting,
        *kept,
        *(match.span() for match in _PURPOSE.finditer(question)),
    ]


_KEPT_BOOK: Final = re.compile(
    r"^\W*((?:[\w'’-]+\s+){0,3}?(?:notebook|register|card|log|logbook|diary|book|sheet|ledger))"
    r"(?=\s*(?:[:,;–—]|-\s))",
    re.IGNORECASE,
)
"""A heading naming the asker's own book ("Crossing notebook - Ada Stone - …", "Client card, Stone, Ada: …",
"Ringers' register: …"): who keeps it, not what is asked; a heading that cues a kind ("Drug card:") is kept."""


_WANTS_ANSWER: Final = re.compile(
    r"\b(?:the|our|my|his|her|their)\s+((?:[\w'’-]+\s+){0,2}?[\w'’-]+)\s+"
    r"(?:wants?|needs?|would like|(?:is|are) asking|asks?|(?:has|have) asked)\s+(?:to know|us|me|whether|if)\b",
    re.IGNORECASE,
)
"""Whoever wants the answer ("The surgery wants to know if she still needs one", "the insurer asks whether"): who
asks, not what is asked (the GP's surgery is no question about surgery)."""


_PLANNED_CLAUSE: Final = re.compile(
    r"\b(?:i'll|we'll|i'd like to|want(?:s|ed)? to|going to|plan(?:s|ning)? to|about to|will|shall|considering"
    r"|thinking (?:of|about)|intend(?:s|ing)? to"
    r"|if (?:he|she|they|you|we|I) (?:gets?|develops?|becomes?|needs?|has|have)"
    r"|should(?:n't| not)?|next (?:week|month)|tomorrow|later today)\b",
    re.IGNORECASE,
)
"""A clause about what the asker (or anyone) means to do: an event named in it as a time is not the patient's."""
_PATIENTS_EVENT: Final = re.compile(r"\b(?:his|her|their|its)\s", re.IGNORECASE)


def anchor_spans(question: str) -> list[tuple[int, int]]:
    """Where ``question`` names the event it asks about the time after (the words after "after the"). An event in a
    clause about a plan ("I want to prescribe amoxicillin after taking a tooth out") is not one of the patient's,
    unless it is theirs by name ("after his bypass"): see :func:`planned_spans`.

    Example:
        >>> q = "Was he anaemic after the hip surgery?"
        >>> [q[start:end] for start, end in anchor_spans(q)]
        ['hip surgery']
        >>> anchor_spans("I want to prescribe amoxicillin after taking a tooth out - any allergy?")
        []
    """
    return [span for span, planned in _anchors(question) if not planned]


def planned_spans(question: str) -> list[tuple[int, int]]:
    """Where ``question`` names, in a clause about a plan, what is planned: the event a plan comes after ("after
    taking a tooth out") and the clause's drugs and procedures ("we're considering methotrexate") are the asker's,
    never a thing a record must name.

    Example:
        >>> q = "We're considering methotrexate for Ada; how much does she drink?"
        >>> [q[start:end] for start, end in planned_spans(q)]
        ["We're considering methotrexate for Ada"]
    """
    spans = [span for span, planned in _anchors(question) if planned]
    for begin, end in clause_spans(question):
        clause = question[begin:end]
        if _PLANNED_CLAUSE.search(clause) and _FIRST_PERSON.search(clause) and not INTERROGATIVE.match(clause):
            if _ASKED_BACK.search(question, end):  # "about to counsel her on X - which meds did they flag with it?"
                continue
            spans.append((begin, end))  # the asker's own plan, not "whether colchicine should be continued"
    return sorted(spans)


_ASKED_BACK: Final = re.compile(r"\b(?:with|for|to|about|against|alongside) it\b(?!\s+\w+ing\b)", re.IGNORECASE)
"""A question after a plan that asks about what the plan names ("… flag with it?"): then that is what to find."""
_FIRST_PERSON: Final = re.compile(r"\b(?:i|i'm|i'd|i'll|we|we're|we'd|we'll|us|our)\b", re.IGNORECASE)


def _anchors(question: str) -> list[tuple[tuple[int, int], bool]]:
    """Every event named as a time, and whether it is named in a clause about a plan and not as the patient's."""
    roles = asker_spans(question)
    clauses = clause_spans(question)
    found: list[tuple[tuple[int, int], bool]] = []
    for match in _ANCHOR.finditer(question):
        if any(begin <= match.start(1) < end for begin, end in roles):
            continue
        clause = next((question[begin:end] for begin, end in clauses if begin <= match.start() < end), "")
        theirs = _PATIENTS_EVENT.search(question[match.start() : match.start(1)]) is not None
        found.append(((match.start(1), match.end(1)), bool(_PLANNED_CLAUSE.search(clause)) and not theirs))
    return found


_AFTER_EVENT: Final = re.compile(
    r"\b(?:after|following|since|post)\s+(?:(?:the|his|her|their|its|a|an|this|that|my|your)\s+)?$", re.IGNORECASE
)
"""What names a time after an event (the anchor follows): a question about then asks what happened then."""

_CUES = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), sections) for pattern, sections in SECTION_CUES)


_PREPOSITION = re.compile(r"(?:on|at|after|in|with|for|before|during|to|of|from|while)\b", re.IGNORECASE)


_ANY_DRUGS = re.compile(
    rf"\b(?:{_DRUGS}|medication|prescribed|started on|put on)\b"
    r"(?![\s-]+(?:related|induced|screens?|levels?|allerg\w*|reactions?|intoleran\w*|history|use|abuse|seeking)\b)",
    re.IGNORECASE,
)
"""Medicines asked for with no word of when ("which tablets after his prostate resection?"):
the ones the patient leaves hospital on, the list a clinician reads as the current one."""


def fact_kind(question: str) -> str | None:
    """The kind of fact ``question`` asks for: :data:`ADMISSIONS_SUMMARY` for a summary of a patient's stays, else
    the kind of the section cue that comes first in the question (:data:`FACT_KINDS`), else ``None``.

    Two general rules of English refine "the first cue": in a compound the last noun is the head ("the surgery
    clinic" is a clinic, so a follow-up question), and an event named as a time ("after the operation") is not
    what is asked — a question about a time after a procedure asks what happened then (a complication), unless
    another cue says what it asks.

    Example:
        >>> fact_kind("What procedure did Ada Stone undergo?"), fact_kind("Summarize Ada's admissions over the years")
        ('procedure', 'admissions_summary')
        >>> fact_kind("When should he be seen in the surgery clinic?"), fact_kind("Confused after the operation?")
        ('followup', 'complication')
    """
    aside = aside_span(question)
    if _SUMMARY.search(question[: aside[0][0]] if aside else question):  # not "(same for every stay I think)"
        return ADMISSIONS_SUMMARY
    candidates = kind_candidates(question)
    if candidates:
        return candidates[0]
    if any(_AFTER_EVENT.search(question[:start]) for start, _ in anchor_spans(question)):  # not "when she had …"
        if _ANY_DRUGS.search(question):
            return "discharge_medications"  # "which tablets after his prostate resection?"
        return "complication"  # "anaemic after the hip surgery", "confused after the operation"
    if _PLURAL_STAYS.search(question):
        return ADMISSIONS_SUMMARY
    return None


def kind_candidates(question: str) -> tuple[str, ...]:
    """The kinds of fact of every head cue of ``question``, in the order they come, those of clauses that open as
    a question first (:func:`fact_kind` takes the first; a question with several, "Do the carers at home know about
    her allergies?", is one the kind read by meaning may settle among them).

    Example:
        >>> kind_candidates("Do the carers at home know about her allergies?")
        ('social', 'allergy')
        >>> kind_candidates("I look after Ada at home, what allergies does the hospital have down for her?")
        ('allergy',)
    """
    anchors = anchor_spans(question)
    roles = asker_spans(question)
    found: list[tuple[int, int, str]] = []
    for pattern, sections in _CUES:
        for match in pattern.finditer(question):
            kind = FACT_KINDS[sections[0]]
            if any(start <= match.start() < end for start, end in roles):
                continue  # "Dental surgeon:" says who asks, not that surgery is asked about
            inside = any(start <= match.start() < end for start, end in anchors)
            if inside:
                continue  # "after the operation", "after the alcohol withdrawal admission": when, not what
            found.append((match.start(), match.end(), kind))
    # a cue inside a longer cue of another kind is a word of it: the "X-ray" of "a repeat chest X-ray due" is a test
    # planned, not a result
    found = [
        (start, end, kind)
        for start, end, kind in found
        if not any(
            other != kind and begin <= start and end <= finish and (begin, finish) != (start, end)
            for begin, finish, other in found
        )
    ]
    if any(not _WHEN_ONLY.match(question[start:end]) for start, end, _ in found):
        # "on discharge" says when, and asks for the discharge list only when nothing else is asked: "which bloods
        # need doing after discharge?"
        found = [cue for cue in found if not _WHEN_ONLY.match(question[cue[0] : cue[1]])]
    found.sort()
    heads = [
        cue
        for cue, after in zip(found, [*found[1:], None][: len(found)], strict=True)
        if after is None
        or after[2] == cue[2]
        or after[0] < cue[1]
        or not _compound_gap(question[cue[1] : after[0]])
        or _PREPOSITION.match(question, after[0]) is not None
    ]  # a cue followed by another cue of another kind modifies it: "surgery clinic" is a clinic, an "allergy patch
    # test" a test
    if (heading := _HEADING.match(question)) and any(start >= heading.end() for start, _, _ in heads):
        heads = [cue for cue in heads if cue[0] >= heading.end()]  # "HPI for Ada's follow-up visit: principal dx?"
    elif heading and _asked_after(question, heading.end()):
        heads = [cue for cue in heads if cue[0] >= heading.end()]  # "ICSR follow-up: was it caused by the drug?"
    aside = aside_span(question)
    narrowing = [
        cue
        for cue in heads
        for begin, end in aside
        if begin <= cue[0] < end and end - begin <= _TERSE and not question[begin:end].startswith("(")
    ]  # "(antenatal clinic)" says where the asker is
    if narrowing:  # "why was she admitted in March? final dx": a terse aside says which kind of answer
        return tuple(dict.fromkeys(kind for _, _, kind in narrowing))
    for begin, _ in aside:  # "echo result from the admission? ejection fraction pls, cardiology clinic letter"
        if any(cue[0] < begin for cue in heads):
            heads = [cue for cue in heads if cue[0] < begin]
    asking = [(begin, end) for begin, end in clause_spans(question) if _asking_clause(question, begin, end)]
    if any(begin <= start < end for start, _, _ in heads for begin, end in asking):
        # a statement says why it is asked, the question what: "She takes buspirone at home - what was she
        # discharged on?" asks for the discharge list, and "Writing the medical history: what symptoms took her
        # in?" for the presenting complaint, not the history
        heads = [cue for cue in heads if any(begin <= cue[0] < end for begin, end in asking)]
    # the noun a question word opens on names what is asked: "What symptoms was she admitted with?" asks for the
    # presenting symptoms, whatever "admitted with" would ask alone
    named_by_wh = [cue for cue in heads if _WH_HEAD.search(question, 0, cue[0])]
    if named_by_wh:
        heads = named_by_wh
    return tuple(dict.fromkeys(kind for _, _, kind in heads))


_WH_HEAD: Final = re.compile(r"\b(?:what|which)\s+(?:(?:kind|type|sort)s?\s+of\s+)?$", re.IGNORECASE)


_HEADING: Final = re.compile(r"^[^:?]{1,80}:\s(?=[^?]*\?|\s*(?:please|kindly|pls|plz|can you|could you)\b)", re.I)
"""A heading before the question ("HPI for Ada Stone's follow-up visit: …", "Case follow-up 2: please provide …"):
what it is for, when the rest asks."""
_REQUEST: Final = re.compile(
    r"^\s*(?:please|kindly|pls|plz|can you|could you|would you|tell me|give me|provide|confirm|state)\b", re.I
)
"""A clause that asks by requesting ("Please provide the final discharge diagnosis so the event can be coded")."""


def _asking_clause(question: str, begin: int, end: int) -> bool:
    """Whether the clause ``question[begin:end]`` asks: it opens as a question or a request, or it is a whole
    sentence ending in "?" ("A complication that was?"), and it is no clause saying when; :func:`may_ask` too."""
    clause = question[begin:end]
    whole_question = (
        question[end : end + 1] == "?"
        and re.search(r"(?:^|[.?!])\s*$", question[:begin]) is not None
        and len(clause.split()) <= _TERSE_QUESTION
    )
    embedded = _WANTS_TO_KNOW.search(question[:begin]) is not None and _WH_WORD.match(clause) is not None
    return (
        (INTERROGATIVE.match(clause) is not None or _REQUEST.match(clause) is not None or whole_question)
        and not _TIME_CLAUSE.match(clause)
        and (may_ask(question, end) or embedded)
    )


_WANTS_TO_KNOW: Final = re.compile(
    r"\b(?:need|needs|want|wants|like|have|has|got)\s+to\s+(?:know|find out|check)\s*$", re.IGNORECASE
)
_WH_WORD: Final = re.compile(r"\s*(?:what|which|who|when|where|why|how)\b", re.IGNORECASE)
"""A question asked inside a statement ("I need to know what procedure was done before …. What was it?"): the
clause after "need to know" asks, whatever mark ends its sentence."""


def _asked_after(question: str, start: int) -> bool:
    """Whether a clause that asks (:func:`_asking_clause`) in words of its own follows ``start`` ("… was it caused
    by the drug?", not a bare "and when?", which leans on the heading for what it asks)."""
    return any(
        begin >= start and len(question[begin:end].split()) > _TERSE_QUESTION and _asking_clause(question, begin, end)
        for begin, end in clause_spans(question)
    )


_TERSE_QUESTION: Final = 6
"""The most words of a question that asks in a sentence of its own ("A complication that was?")."""
_TIME_CLAUSE: Final = re.compile(
    r"^\s*when\s+(?:he|she|they|i|we|you)\s+(?:came|went|was|were|got|had|broke|fell|arrived|left)\b", re.IGNORECASE
)
"""A clause that says when ("when she came in withdrawing from alcohol - what meds …?"), not what is asked."""
_TERSE: Final = 20
"""The most characters of an aside after the question that only narrows the kind asked ("final dx", "home meds pls")."""
_WHEN_ONLY: Final = re.compile(
    rf"^(?:(?:on|at|after|upon) discharge|(?:during|while) (?:(?:an?|the|their|his|her) )?{_STAY})$", re.IGNORECASE
)
"""A cue that only says when (:func:`kind_candidates`)."""


_CLAUSE: Final = re.compile(
    r"[,;:?!]|\.(?=\s)|\s[-–—]+\s|(?<!-)\band\b(?!-)|(?<=\w)\s+(?=(?:what|which|when|who|how|where|why)\b)",
    re.IGNORECASE,
)
"""Where a clause ends: punctuation, a dash, "and", or a question word inside a sentence ("wound looks red what op
was it")."""
INTERROGATIVE: Final = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|did|does|do|was|were|is|are|has|have|had|can|could|will|"
    r"would|should|any)\b",
    re.IGNORECASE,
)
"""A clause that opens as a question."""


REFERS_BACK: Final = re.compile(
    r"\b(?:have|had|has|get|got|undergo|underwent|after|from|with|following|since|receive|received)"
    r"\s+(?:it|that one|this(?=\s*(?:[?.,;:!]|$|(?:and|or|then|done|performed|before)\b)))\b"
    r"(?!\s+(?:right|wrong|straight|clear|sorted|in writing|checked|confirmed)\b)"  # "I'd rather have it right"
    r"|\b(?:what|did|does|has|had)\s+(?:it|that)\s+(?:show|showed|shows|find|found|reveal|revealed)\b"
    r"|\b(?:(?:it|that|this)\s+(?:was|were|got|had been)|(?:was|were)\s+(?:it|that|this))\s+(?:\w+\s+)?"
    r"(?:done|performed|carried out|removed|placed|fitted)\b",
    re.IGNORECASE,
)
"""A clause that points back at a thing named before it ("A previous vasectomy excludes; when did he have it?"):
the thing is what is asked, not why."""


def clause_spans(question: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each non-blank clause of ``question`` (:data:`_CLAUSE` ends one).

    Example:
        >>> q = "She takes buspirone at home - what was she discharged on?"
        >>> [q[start:end] for start, end in clause_spans(q)]
        ['She takes buspirone at home', 'what was she discharged on']
    """
    start = 0
    clauses: list[tuple[int, int]] = []
    for match in _CLAUSE.finditer(question):
        clauses.append((start, match.start()))
        start = match.end()
    clauses.append((start, len(question)))
    return [(begin, end) for begin, end in clauses if question[begin:end].strip()]


def in_a_question(question: str, end: int) -> bool:
    """Whether the sentence holding the clause that ends at ``end`` is a question: it ends with a question mark, or
    the text ends without a full stop ("… I want to know what the surgeons did to her spine." is a statement).

    Example:
        >>> in_a_question("I want to know what they did. Which procedure?", 12)
        False
    """
    stop = re.search(r"[.?!](?=\s|$)", question[end:])
    return stop is None or stop.group() == "?"


def may_ask(question: str, end: int) -> bool:
    """Whether the clause ending at ``end`` may be what ``question`` asks: the question marks nothing with "?" (any
    sentence may ask), or the clause's sentence is a question (:func:`in_a_question`).

    Example:
        >>> q = "Ada was admitted for withdrawal. Any complications?"
        >>> may_ask(q, q.index(" for")), may_ask("Ada was admitted. list her meds", 16)
        (False, True)
    """
    return "?" not in question or in_a_question(question, end)


def _compound_gap(gap: str) -> bool:
    """Whether the words between two cues leave them one compound: nothing, or one noun ("allergy patch test")."""
    word = gap.strip(" -")
    return not word or (word.isalpha() and word.lower() not in STOPWORDS and word.lower() not in _NOT_IN_COMPOUNDS)


_NOT_IN_COMPOUNDS: Final = frozenset({"like", "any", "please", "then", "also", "etc", "thanks", "ok"})


def cue_spans(question: str) -> list[tuple[int, int]]:
    """Where ``question`` says which sections it asks about: the words of these spans name a kind of information,
    not a thing to find.

    Example:
        >>> q = "What procedure did Ada undergo?"
        >>> [q[start:end] for start, end in cue_spans(q)]
        ['procedure', 'undergo']
    """
    roles = asker_spans(question)
    spans = [
        (match.start(), match.end())
        for pattern, _ in _CUES
        for match in pattern.finditer(question)
        if not any(start <= match.start() < end for start, end in roles)
    ]
    spans += [(match.start(), match.end()) for match in _SUMMARY.finditer(question)]
    spans += [(match.start(), match.end()) for match in _PLURAL_STAYS.finditer(question)]
    return sorted(spans)


def section_intent(question: str) -> tuple[str, ...]:
    """The sections ``question`` asks about, in the order of :data:`SECTION_CUES`; empty when none is clear.

    Example:
        >>> section_intent("What was Betty Henry taking before being admitted?")
        ('Medications on Admission',)
    """
    roles = asker_spans(question)
    found: dict[str, None] = {}
    for pattern, sections in _CUES:
        if any(not any(a <= m.start() < b for a, b in roles) for m in pattern.finditer(question)):
            found.update(dict.fromkeys(sections))
    return tuple(found)


_QUANTITY_ASKED: Final = re.compile(
    r"\b(?:what|which) (?:size|sizes|dose|doses|dosage|strength|volume|length|amount|number)\b"
    r"|\bhow (?:big|large|long was the|wide|deep|much (?!alcohol|drink|do|does|did|is|was)|many (?!times\b))"
    r"|\bhow long (?:is|are) (?:the|his|her|their)\b"
    r"|,?\s*in (?:centimet(?:re|er)s|cms?|millimet(?:re|er)s|mm|inches|kilos|kilograms|kgs?|pounds|lbs|stones?)\s*\?",
    re.IGNORECASE,
)
_COUNT_WORDS: Final = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|single|double|none|no"
"""A number in words ("a single dose", "no transfusion")."""
_QUANTITY_GIVEN: Final = re.compile(rf"\d|\b(?:{_COUNT_WORDS})\b", re.IGNORECASE)


def asks_for_quantity(question: str) -> bool:
    """Whether ``question`` asks for a number or a size ("what size of mesh", "how many units", "what dose"): an
    answer must then give one.

    Example:
        >>> asks_for_quantity("What size of mesh did they put in?"), asks_for_quantity("How many times was he in?")
        (True, False)
    """
    return _QUANTITY_ASKED.search(question) is not None


def asks_for_volume(question: str) -> bool:
    """Whether ``question`` asks how many of something a hospital or its team does in a span of time ("how many of
    them hamstring repairs does the hospital do in a year?"): a figure about the hospital's activity, which no one
    patient's record holds.

    Example:
        >>> asks_for_volume("How many hip replacements does your unit do a year?")
        True
        >>> asks_for_volume("How many cigarettes does she smoke a week?")
        False
    """
    return _VOLUME_ASKED.search(question) is not None


def asks_for_charges(question: str) -> bool:
    """Whether ``question`` asks what something cost or was charged ("How much was the TV rental by the bed?"): a
    bill, which no clinical record holds.

    Example:
        >>> asks_for_charges("How much was the TV rental when she was in?")
        True
        >>> asks_for_charges("How much alcohol does he drink?")
        False
    """
    return _CHARGES_ASKED.search(question) is not None


_CHARGES_ASKED: Final = re.compile(
    r"\bhow much\b[^?.]{0,40}?\b(?-i:cost|costs|costed|charge|charges|charged|rental|rent|bill|billed|fees?|price)\b"
    r"|\b(?:what|how much) (?:was|is|were|are) the (?:\w+ ){0,2}?(?-i:bill|invoice|charges?|fees?|rental|cost)\b",
    re.IGNORECASE,
)


_SOMEONE: Final = (
    r"(?:someone|somebody|anyone|anybody|a person|people|a patient|patients|a client|clients|an adult|adults"
    r"|a child|children|a man|a woman|a driver|a pilot|a fisherman|an? \w+ driver)\b"
)


def asks_general_advice(question: str) -> bool:
    """Whether ``question`` asks what is safe or advised for someone it does not name ("Is it safe for someone with
    COPD to run a solid-fuel stove?", "How soon can a person with a hernia repair lift?"): general advice, which no
    patient's record holds; with no patient named it is no search over the patients either.

    Example:
        >>> asks_general_advice("Is it safe for someone with COPD to run a stove in a boat cabin overnight?")
        True
        >>> asks_general_advice("Which patients with COPD were admitted in winter?")
        False
    """
    return _GENERAL_ADVICE.search(question) is not None


def asks_drug_effect(question: str) -> bool:
    """Whether ``question`` asks what a medicine does in general ("Can anastrozole slow a fielder's reactions? Ada
    Stone is on it") or whether something is safe while taking one ("can Ada Stone drink zobo every day while taking
    glucosamine?"): pharmacology and advice, which no patient's record holds, even when a patient is named.

    Example:
        >>> asks_drug_effect("Can anastrozole slow a fielder's reactions at first slip? Ada Stone is on it.")
        True
        >>> asks_drug_effect("Can Ada Stone have penicillin?"), asks_drug_effect("Can you list her tablets?")
        (False, False)
    """
    if _WHILE_TAKING.search(question):
        return True
    return any(_a_medicine(match.group(1).lower(), match.group(2)) for match in _MODAL_SUBJECT.finditer(question))


def _a_medicine(word: str, then: str) -> bool:
    """Whether ``word``, the subject of a question, is a medicine: a drug name, or a rare word that names no one and
    is followed by no name ("glucosamine"; not "ada" of "can ada stone have penicillin?", nor "meemaw" of "does
    meemaw glenn alexander have any allergies?")."""
    if is_drug_name(word):
        return True

    def a_name(token: str) -> bool:
        return token in given_names() or token in census_surnames()

    return zipf(word) < RARE_ZIPF and not a_name(word) and not a_name(then.lower()) and not then[:1].isupper()


_MODAL_SUBJECT: Final = re.compile(
    r"(?:^|[.?!]\s+)\W*(?:can|could|does|do|will|would|might|may)\s+([A-Za-z][\w-]+)\s+(?!be\b|have\b)([A-Za-z]\w*)",
    re.IGNORECASE,
)
"""A question opening with a modal and its subject ("Can anastrozole slow …"): the subject may be a medicine."""
_WHILE_TAKING: Final = re.compile(
    r"\b(?:can|could|should|may)\s+[^?.]{1,60}?\bwhile\s+(?:(?:still|also)\s+)?(?:taking|on|using)\s+\w", re.IGNORECASE
)
"""Whether something may be done while taking a medicine ("can she drink … while taking glucosamine?")."""


_GENERAL_ADVICE: Final = re.compile(
    r"\b(?:is it|would it be|is that)\s+(?:\w+\s+)?(?:safe|ok|okay|alright|advisable|wise|dangerous|risky)\s+for\s+"
    rf"{_SOMEONE}"
    rf"|\b(?:can|could|should|may|must)\s+{_SOMEONE}\s+(?:with|who has|who have|on|taking|after)\b"
    r"(?![^?]*\b(?:found|find|listed|list|shown|show|records?|notes?|admitted|seen)\b)"
    rf"|\bhow (?:soon|long|quickly)\b[^?]{{0,60}}\b(?:can|could|should|may|must|before)\s+{_SOMEONE}"
    r"|\b(?:is it|would it be)\s+(?:\w+\s+)?(?:safe|ok|okay|alright|advisable|wise|dangerous|risky|bad|harmful)"
    r"\s+(?:for (?:the|your|one's) \w+\s+)?to\s+[a-z]+"
    r"|\bis it true that\b[^?]{0,60}\b(?:helps?|cures?|prevents?|causes?|is (?:good|bad|safe|dangerous))\b",
    re.IGNORECASE,
)
"""A question of what is safe or advised for an indefinite person ("someone", "a person", "people", "a client"), or
of whether a general claim is true ("is it true that singing in a choir helps the lungs recover?")."""


_VOLUME_ASKED: Final = re.compile(
    r"\bhow many\b[^?.]{0,60}?\b(?:do|does|did)\s+(?:the |your |you |this )?"
    r"(?:hospital|unit|team|department|ward|surgeons?|you|they|y'all|youse)\s+"
    r"(?:\w+\s+){0,2}?(?:a|per|each|every|in (?:a|the last|one)|last) (?:year|month|week)\b",
    re.IGNORECASE,
)


_PHRASE: Final = r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})"
"""Up to four words after a cue: the phrase :func:`phrase_tokens` reads up to its first function word."""
_COUNTED: Final = re.compile(
    rf"\bhow (?:many|much)\s+{_PHRASE}|\bhow long (?:is|are) (?:the|his|her|their)\s+{_PHRASE}"
    rf"|\b(?:what|which) (?:size|sizes|dose|doses|dosage|strength|volume|length|amount|number)\s+of\s+{_PHRASE}",
    re.IGNORECASE,
)


def _phrases_after(pattern: re.Pattern[str], question: str) -> frozenset[str]:
    """The tokens (:func:`phrase_tokens`) of the phrase each match of ``pattern`` captures (its first group that
    matched)."""
    return frozenset(
        token
        for match in pattern.finditer(question)
        for token in phrase_tokens(next(group for group in match.groups() if group is not None))
    )


def counted_things(question: str) -> frozenset[str]:
    """The (BM25-folded) words of what ``question`` asks the number or size of ("how many physio sessions",
    "what size of mesh"): a number answers only in a line that names one of them (650 mL of urine is no count of
    physio sessions). Empty when the question names nothing after its quantity word ("what dose?").

    Example:
        >>> sorted(counted_things("how many physio sessions did she get at home?"))
        ['physio', 'session']
    """
    return _phrases_after(_COUNTED, question)


_CAUSE: Final = re.compile(
    r"\b(?:related to|caused by|due to|because of|linked to|(?:a )?result of|attributable to|secondary to"
    rf"|connected to|connected with)\s+(?:(?:the|his|her|their|a|an|any)\s+)?{_PHRASE}",
    re.IGNORECASE,
)


def proposed_causes(question: str) -> frozenset[str]:
    """The (BM25-folded) words of a cause the question proposes ("is his pneumonia related to burn pit exposure in
    service?"): a record must name it before any answer says whether it was the cause.

    Example:
        >>> sorted(proposed_causes("Is the pneumonia at least as likely as not related to burn pit exposure?"))
        ['burn', 'exposure', 'pit']
    """
    return _phrases_after(_CAUSE, question)


_CONSULTED: Final = re.compile(
    rf"\b(?:was|were|did|has|had)\s+(?:an?|the|any)\s+((?:[a-z][\w-]*\s+){{0,3}}?{_ROLE_HEAD})\s+"
    r"(?:called|asked|consulted|involved|contacted|brought in|sent for|come|came|see|seen|visit)"
    rf"|\bseen by\s+(?:an?|the|any)\s+((?:[a-z][\w-]*\s+){{0,3}}?{_ROLE_HEAD})\b"
    rf"|\b(?:was|were|did|has|had)\s+(?:an?|the|any)\s+((?:[a-z][\w-]*\s+){{0,3}}?{_ROLE_HEAD})\s+(?:from|of|at)\s+"
    r"(?:the\s+|his\s+|her\s+|their\s+)?[\w'’-]+\s+(?:come|came|visit|see|called)\b"
    # what the asker will get from someone is no role the patient was seen by ("I'll get them from the chemist")
    r"|(?<!\bI'll )(?<!\bI’ll )(?<!\bwe'll )(?<!\bwe’ll )(?<!\bI will )(?<!\bwe will )(?<!\bI can )"
    rf"\b(?:receive|received|get|got|given)\b[^?.]{{0,40}}?\bfrom\s+(?:an?|the|any)\s+"
    rf"((?:[a-z][\w-]*\s+){{0,3}}?{_ROLE_HEAD})\b",
    re.IGNORECASE,
)


def consulted_roles(question: str) -> frozenset[str]:
    """The (BM25-folded) words of a role the question asks whether the patient was seen by ("Was an Aboriginal
    Liaison Officer called to see him?", "was she seen by the dietitian?"): a record must name the role before
    anything is said about what they did.

    Example:
        >>> sorted(consulted_roles("Was an Aboriginal Liaison Officer called to see Uncle Bill while he was in?"))
        ['aboriginal', 'liaison', 'officer']
    """
    return frozenset(
        token
        for match in _CONSULTED.finditer(question)
        for token in tokenize(next(group for group in match.groups() if group is not None))
    )


_NAME_OWNER: Final = re.compile(
    r"\b(?:the|his|her|their|that|this)\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)['’]s\s+(?:full\s+|first\s+)?names?\b"
    r"|\bnames?\s+of\s+(?:the|his|her|their|that|this)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)"
    r"(?=\s+(?:who|that|which|in|on|at|from)\b|\s*[?.,;!]|\s*$)",
    re.IGNORECASE,
)
_NAMED_FORMS: Final = frozenset(
    tokenize(
        "thing one stuff operation op procedure surgery drug tablet pill medicine medication injection condition "
        "illness disease sickness infection bug diagnosis test scan ward hospital clinic unit department specialty"
    )
)
"""What a name is asked of that is a kind of fact, not a person ("the name of the operation", "the drug's name")."""


def name_owners(question: str) -> frozenset[str]:
    """The (BM25-folded) words of whoever ``question`` asks the name of ("What was the porter's name?", "the name
    of the lady in the next bed"), unless it is a kind of fact ("the name of the operation"): a record must name
    them before any line of the stay is given as their name.

    Example:
        >>> sorted(name_owners("What was the porter's name? I think I know him."))
        ['porter']
        >>> name_owners("What was the name of the operation?")
        frozenset()
    """
    owners = {
        token
        for match in _NAME_OWNER.finditer(question)
        for token in tokenize(next(group for group in match.groups() if group is not None))
    }
    for match in _THEIR_NAME.finditer(question):  # "a night nurse was very kind to him … what is her name?"
        people = _PERSON.findall(question, 0, match.start())
        if people:
            owners.update(tokenize(people[-1]))
    return frozenset() if owners & _NAMED_FORMS else frozenset(owners)


_THEIR_NAME: Final = re.compile(r"\bwhat(?:'s|’s|\s+is|\s+was)\s+(?:his|her|their)\s+(?:full\s+)?name\b", re.I)
_PERSON: Final = re.compile(
    r"\b(?:nurse|doctor|lady|woman|man|gentleman|chap|fellow|girl|boy|porter|surgeon|physio|student|cleaner"
    r"|volunteer|carer|midwife|consultant|anaesthetist|anesthetist|registrar|paramedic|driver|receptionist)s?\b",
    re.IGNORECASE,
)
"""Someone other than the patient a question tells of: "her name" after one is theirs, not the patient's."""


_SHOWN: Final = re.compile(
    r"\b(?:did|does|do|has|had|was|were)\s+(?:the|his|her|their|any|an?)\s+(?:[\w'’-]+\s+){0,2}?"
    r"(?:scans?|x-?rays?|ultrasounds?|ct|mri|echo|ecg|ekg|tests?|bloods?|results?|biops(?:y|ies)|swabs?|cultures?)"
    r"\s+(?:show|find|reveal|detect|pick up|confirm)\s+(?:(?:a|an|any|the|if|whether|that|signs?\s+of)\s+)?"
    r"((?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s*[?.,;]",
    re.IGNORECASE,
)
_SHOWN_GENERIC: Final = frozenset(tokenize("anything something nothing problem problems abnormal normal wrong"))


def shown_things(question: str) -> frozenset[str]:
    """The (BM25-folded) words of what ``question`` asks whether a test showed ("Did the scan show boy or girl?",
    "did the CT show a bleed?"): a record must name one of them before a result line is given as the answer.
    Empty when it asks what a test showed at all ("did the scan show anything?").

    Example:
        >>> sorted(shown_things("Did the scan show boy or girl? She is knitting."))
        ['boy', 'girl']
        >>> shown_things("Did the CT show anything?")
        frozenset()
    """
    words = {
        token for match in _SHOWN.finditer(question) for token in tokenize(match.group(1)) if token not in STOPWORDS
    }
    return frozenset() if words & _SHOWN_GENERIC else frozenset(words)


_DEVICE_DETAIL: Final = re.compile(
    r"\b(?:what|which)\s+(?:make|brand|model|manufacturer|maker)\b|\b(?:serial|lot|batch|catalogue|catalog)\s+numbers?\b"
    r"|\bimplant\s+(?:card|details|sticker|label)\b",
    re.IGNORECASE,
)
_DEVICE_WORDS: Final = frozenset(tokenize("manufacturer brand model serial lot batch catalogue catalog"))
"""The words a record names a device's identity with: its maker, model, serial or lot number."""


def device_identity_asked(question: str) -> frozenset[str]:
    """The (BM25-folded) words that name a device's identity, when ``question`` asks for it ("what make of hip did
    they put in, and the serial number?"): a record must name one of them; the procedure line that says a hip was
    replaced does not say which. Empty when no such detail is asked.

    Example:
        >>> "serial" in device_identity_asked("What make of knee did they put in, and the serial number?")
        True
        >>> device_identity_asked("What operation did she have on her knee?")
        frozenset()
    """
    return _DEVICE_WORDS if _DEVICE_DETAIL.search(question) else frozenset()


_DONE_ASKED: Final = re.compile(
    r"(?:\bdid\s+(?:(?!to\b)[\w'’-]+\s+){1,3}?(?:ever\s+|actually\s+)?"
    r"(?:complete|finish|attend|go to|turn up|start|undergo|have)"
    r"|\b(?:has|had|have)\s+(?:(?!to\b)[\w'’-]+\s+){1,3}?(?:ever\s+|actually\s+|already\s+)?"
    r"(?:completed|finished|attended|gone to|turned up|started|undergone|had))\b"
    r"(?!(?:\s+[\w'’-]+){0,4}\s+(?:arranged|booked|scheduled|planned|organi[sz]ed|set up|lined up|requested)\b)",
    re.IGNORECASE,
)


def asks_if_done(question: str) -> bool:
    """Whether ``question`` asks whether or when something happened ("When did she have her colostomy reversed?",
    "Did she complete the programme?"), not what was planned ("Did she have follow-up arranged?"): a plan answers
    no such question.

    Example:
        >>> asks_if_done("When did Ada Stone have her colostomy reversed?")
        True
        >>> asks_if_done("Did she have follow-up arranged?")
        False
    """
    return _DONE_ASKED.search(question) is not None


def gives_quantity(text: str) -> bool:
    """Whether ``text`` gives a number, in figures or words ("2 units", "a single dose", "no transfusion").

    Example:
        >>> gives_quantity("Transfused 2 units of PRBC."), gives_quantity("Mesh repair of the hernia.")
        (True, False)
    """
    return _QUANTITY_GIVEN.search(text) is not None


def gives_quantity_of(text: str, counted: frozenset[str], reach: int = 3) -> bool:
    """Whether ``text`` gives a number within ``reach`` words of a word of ``counted`` ("27 staples", "staples x
    27"); "staple removal in 2 weeks" gives the weeks, not the staples.

    Example:
        >>> gives_quantity_of("Wound closed with 27 staples.", frozenset({"staple"}))
        True
        >>> gives_quantity_of("Follow up in 2 weeks for a wound check and staple removal.", frozenset({"staple"}))
        False
    """
    words = _WORDS.findall(text)
    numbers = [i for i, word in enumerate(words) if _NUMBER.fullmatch(word.rstrip(".,"))]
    named = [i for i, word in enumerate(words) if set(tokenize(word)) & counted]
    return any(abs(i - j) <= reach for i in numbers for j in named)


_WORDS: Final = re.compile(r"[\w.'’-]+")
_NUMBER: Final = re.compile(rf"\d[\d.,x×/-]*|{_COUNT_WORDS}", re.IGNORECASE)


def asks_for_time_of_day(question: str) -> bool:
    """Whether ``question`` asks at what time of day something happened ("what time did he leave the ward?", "at what
    hour was she taken down to theatre?"): an answer must then give a clock time.

    Example:
        >>> asks_for_time_of_day("What time did Ada Stone leave the ward?"), asks_for_time_of_day("What time frame?")
        (True, False)
    """
    return _TIME_ASKED.search(question) is not None


def gives_time_of_day(text: str) -> bool:
    """Whether ``text`` gives a clock time ("07:11AM", "at 2.30 pm", "by midday"); a dose ("0.25 mg") is none.

    Example:
        >>> gives_time_of_day("___ 07:11AM BLOOD WBC-5.5"), gives_time_of_day("Digoxin 0.25 mg PO daily")
        (True, False)
    """
    return _TIME_GIVEN.search(text) is not None


_TIME_ASKED: Final = re.compile(
    r"\b(?:at )?what time\b(?!\s+(?:frame|period|scale|course|line)s?\b)|\bwhat o['’]?clock\b|\bat what hour\b",
    re.IGNORECASE,
)
_TIME_GIVEN: Final = re.compile(
    r"\b\d{1,2}:\d{2}|\b\d{1,2}(?:\.\d{2})?\s*[ap]\.?m\b\.?|\b(?:noon|midday|midnight|o['’]?clock)\b",
    re.IGNORECASE,
)


_POSSESSIVE: Final = re.compile(
    r"(?:\b(?!(?:what|when|who|where|why|how|that|it|there|here|he|she|let)['’])[A-Za-z]+(?:['’]s|s['’])"
    r"|\b(?:his|her|their))\s+((?:[A-Za-z][\w-]*\s+){0,4}[A-Za-z][\w-]*)",
    re.IGNORECASE,
)
"""A possessive ("Ada Stone's", "the Owens'", "her") and the words after it; not a contraction ("when's")."""


def possessed_things(question: str) -> frozenset[str]:
    """The (BM25-folded) words of what ``question`` names as someone's own, after a possessive and up to the first
    function word ("Ada Stone's cataract extraction wound", "her knee replacement"): the patient's events, which a
    record must hold if they are the patient's.

    Example:
        >>> sorted(possessed_things("Any dressings on Ada Stone's cataract extraction wound, or is that the GP?"))
        ['cataract', 'extraction', 'wound']
    """
    return frozenset(token for match in _POSSESSIVE.finditer(question) for token in phrase_tokens(match.group(1)))


def phrase_tokens(words: str, stop: frozenset[str] = frozenset()) -> list[str]:
    """The (BM25-folded) tokens of ``words`` up to the first function word, or the first word with a token in
    ``stop``: the phrase a possessive or a verb opens ("cataract extraction wound for …" → cataract, extraction,
    wound).

    Example:
        >>> phrase_tokens("personal alarm before she came home")
        ['personal', 'alarm']
    """
    found: list[str] = []
    for word in words.split():
        tokens = tokenize(word)
        if word.lower() in STOPWORDS or not tokens or set(tokens) & stop:
            break
        found.extend(tokens)
    return found
