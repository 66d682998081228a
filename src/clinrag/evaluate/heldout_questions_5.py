"""A fifth blind test split of the held-out answer benchmark (``test5``), written by someone who had not read the
question-reading code, and committed before the answerer was ever run on it: a clinician phoning another hospital's
ward (``phone_call``: spoken style with fillers and false starts, the request in the second half of a sentence), the
patient asking about themselves through a portal or a carer / relative asking for them (``patient_portal``: first
person or third person, lay words, the odd typo), and a clinical coder or auditor querying the record
(``coding_audit``: formal, coding and audit vocabulary, the name as a patient list shows it). Several ask two things
at once, put the clinical word at the end of the sentence, or mix British and American abbreviations. No template
here equals or rephrases one of the earlier splits' templates on purpose; the questions are not to be changed after
their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

The questions that must abstain use their own wordings, tests and drugs (those a note of the node mentions are left
out when the questions are built), patients of other hospitals, and real surnames with first names no earlier split
invented.

Example:
    >>> sorted(FAMILIES_5) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_5.values())
    True
    >>> sorted({family for families in FAMILIES_5.values() for family in families})
    ['coding_audit', 'patient_portal', 'phone_call']
"""

from __future__ import annotations

from typing import Final

from clinrag.evaluate.heldout_wordings import load_blind_split

FAMILIES_5: Final = load_blind_split("test5").families
"""``data/heldout/test5.toml``'s intent → family → templates, all in the split ``test5``; the rest of that file
(its must-abstain wordings) is read by :data:`clinrag.evaluate.heldout.SPLIT_5`."""
