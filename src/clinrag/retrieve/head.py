"""The head of what a question asks about: the first phrase of clinical things it names, before the words that
qualify it ("an ERCP *for stones in the duct*", "a spinal fusion *with rods and screws*").

A record answers "Did she need an ERCP for stones in the duct?" only if it names an ERCP; one about her gallstones
names the qualifier, not the thing asked. So the answer step requires every word of the head — in one of its
forms or expansions — in one retrieved record, where the other things a question names need only be somewhere.

Example:
    >>> from clinrag.retrieve.query import understand
    >>> question = "Did Glenn Alexander need an ERCP for stones in the duct?"
    >>> [sorted(thing.phrases) for thing in head_things(question, understand(question), ["Glenn Alexander"])]
    [[('endoscopic', 'retrograde', 'cholangiopancreatography'), ('ercp',)]]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, NamedTuple

from clinrag.index.lexical import tokenize
from clinrag.retrieve.classes import ClinicalClass, class_words, vocabulary
from clinrag.retrieve.intent import (
    INTERROGATIVE,
    REFERS_BACK,
    anchor_spans,
    aside_span,
    clause_spans,
    cue_spans,
    in_a_question,
)
from clinrag.retrieve.query import SECTION_KINDS, QueryUnderstanding, blanked, examination_qualifiers
from clinrag.retrieve.shorthand import expand_shorthand
from clinrag.retrieve.vocabulary import is_drug_name
from clinrag.retrieve.word_forms import forms_mentioned


class HeadThing(NamedTuple):
    """One thing of a question's head: the word as the question writes it (BM25-folded) and the phrases that name
    it, each as its tokens (the word itself, its expansions: "ERCP" is named by "endoscopic retrograde
    cholangiopancreatography" too, all three words of it; a class by its name)."""

    word: str
    phrases: frozenset[tuple[str, ...]]


_WORD: Final = re.compile(r"[A-Za-z0-9][\w'’./-]*")
_ASKED_ATTRIBUTE: Final = re.compile(
    r"\b(?:what|which)\s+(?:kind\s+(?:of\s+)?|type\s+of\s+|sort\s+of\s+)?$", re.IGNORECASE
)  # "what kind sickness": the "of" dropped
_ASKED_LAY_KIND: Final = re.compile(
    r"\b(?:what|which)\b[^?.!]{0,30}\b(?:the|his|her|their)\s+(?:\w+\s+)?$", re.IGNORECASE
)
_LAY_KIND_NOUNS: Final = frozenset({"sickness", "illness", "ailment"})
"""Plain words for a diagnosis: "what was the final sickness they found" asks for the diagnosis, whatever words
come between the question word and the noun."""
"""A wh-word right before a word: the word says what is asked for ("what technique"), unless it names a drug or a
class ("which SSRI")."""
_ROUTES: Final = frozenset(tokenize("oral po iv intravenous im intramuscular sc subcutaneous topical inhaled"))
"""How a drug is given: a qualifier of a class ("oral antibiotics"), not a further thing a record must name."""
_INSIDE: Final = frozenset({"of"})
BODY_SITES: Final[dict[str, frozenset[tuple[str, ...]]]] = {
    site: frozenset(tuple(tokenize(form)) for form in forms)
    for site, forms in {
        "head": ("head", "cranial", "intracranial", "cth", "brain"),
        "brain": ("brain", "head", "cranial", "intracranial"),
        "chest": ("chest", "thorax", "thoracic", "cxr", "lung", "pulmonary"),
        "lung": ("lung", "chest", "pulmonary", "cxr"),
        "abdomen": ("abdomen", "abdominal", "abd", "abdominopelvic"),
        "pelvis": ("pelvis", "pelvic", "abdominopelvic"),
        "neck": ("neck", "cervical", "carotid"),
        "spine": ("spine", "spinal", "lumbar", "thoracic", "cervical", "l-spine", "c-spine", "t-spine"),
        "kidney": ("kidney", "renal"),
        "liver": ("liver", "hepatic", "ruq"),
        "heart": ("heart", "cardiac"),
        "leg": ("leg", "lower extremity", "lenis"),
        "arm": ("arm", "upper extremity"),
        "knee": ("knee",),
        "hip": ("hip",),
        "shoulder": ("shoulder",),
        "ankle": ("ankle",),
        "wrist": ("wrist",),
        "foot": ("foot", "feet"),
        "hand": ("hand",),
        "sinus": ("sinus", "sinuses"),
        "lumbar": ("lumbar", "l-spine", "spine", "spinal"),
        "cervical": ("cervical", "c-spine", "neck"),
        "abdominal": ("abdomen", "abdominal", "abd", "abdominopelvic"),
        "pelvic": ("pelvis", "pelvic", "abdominopelvic"),
        "renal": ("kidney", "renal"),
        "cranial": ("head", "cranial", "intracranial", "brain"),
    }.items()
}
"""Body sites a study is done of, each with the words notes use for it: "CT head" is answered by a head CT, a CT of
the brain or an intracranial finding, never by a CT of the abdomen."""
_SITE_QUALIFIERS: Final = frozenset(
    tokenize("non contrast non-contrast with without plain left right bilateral lower upper scan scans imaging study")
)
"""Words that may stand between a study's name and its site ("CT non-contrast head", "x-ray of the left knee", "MRI
scan of the knee")."""
"""Words a head phrase may hold between its things ("sessions of dialysis", "MRI of the brain" stops at "the")."""


def head_things(question: str, understanding: QueryUnderstanding, names: Iterable[str] = ()) -> tuple[HeadThing, ...]:
    """The things of the head phrase of ``question`` (one class, when the phrase names a class: "oral antibiotics");
    empty when the question names no thing outside its kind-of-information and time phrases and the patients'
    ``names``.

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> q = "Did Natasha Cantrell have a spinal fusion with rods and screws?"
        >>> [thing.word for thing in head_things(q, understand(q), ["Natasha Cantrell"])]
        ['spinal', 'fusion']
        >>> q = "What procedure did Ada Stone undergo?"
        >>> head_things(q, understand(q), ["Ada Stone"])
        ()
    """
    named = _name_tokens(names)
    things = understanding.things - named
    if not things:
        return ()
    kept = blanked(question, [*cue_spans(question), *anchor_spans(question), *_premises(question, things)])
    run: list[str] = []
    run_end = 0
    words = list(_WORD.finditer(kept))
    # "52F MDD - which SSRI?": the class asked for is the head
    asked_class = next((m for m, tokens in _asked_after_wh_word(kept, things) if _names_class_or_drug(tokens)), None)
    if asked_class is not None:
        words = [match for match in words if match.start() >= asked_class.start()]
    elif (clause := _asking_clause(kept, things)) is not None:  # "was in with DKA - did she have retinal photos?"
        words = [match for match in words if clause[0] <= match.start() < clause[1]]
    for match in words:
        tokens = [token for token in tokenize(match.group()) if token in things]
        adjacent = bool(run) and not kept[run_end : match.start()].strip()
        if run and not adjacent:
            break
        if tokens and not run and _asked_attribute(kept[: match.start()], tokens) and not _names_class_or_drug(tokens):
            continue  # "What technique did they use for his hernia?": the technique is what is asked, not named
        if tokens or (run and match.group().lower() in _INSIDE):
            run.extend(tokens)
            run_end = match.end()
        elif run:
            break
    # "before they took her gallbladder out, did she have a HIDA scan?": the examination asked about heads it too
    examined = examination_qualifiers(question) & things
    if run and examined and not examined & set(run):
        run.extend(dict.fromkeys(token for token in tokenize(kept) if token in examined))
    written = tokenize(kept)
    for item, asked, sites in _class_phrases():  # "oral antibiotics", "thyroid replacement": a member names it
        phrases = [*asked, *(sites if item.name in understanding.classes else ())]  # "bowel surgery": a procedure group
        if any(phrase and set(phrase) & set(run) and _contains(written, phrase) for phrase in phrases):
            forms: set[tuple[str, ...]] = {(item.name,), *(tuple(p) for p in phrases if len(p) == 1)}
            covered = {token for phrase in phrases for token in phrase} | set(tokenize(item.name))
            by_name = any(phrase and set(phrase) & set(run) and _contains(written, phrase) for phrase in asked)
            # "insulin pump": the pump too, when the class is named ("hip precautions" names a site, not a class)
            rest = [token for token in dict.fromkeys(run) if token not in covered | _ROUTES] if by_name else []
            return (
                HeadThing(item.name, frozenset(forms)),
                *(HeadThing(token, _forms(token, understanding.expansions)) for token in rest),
            )
    return tuple(HeadThing(token, _forms(token, understanding.expansions)) for token in dict.fromkeys(run))


OPEN_KINDS: Final = SECTION_KINDS | {"procedure", "complication"}
"""Kinds of fact a question can ask for without naming a thing: "which procedure was it?", "what went wrong?"."""


def asks_for_kind_only(question: str, understanding: QueryUnderstanding, names: Iterable[str] = ()) -> bool:
    """Whether ``question`` asks for a kind of fact (:data:`OPEN_KINDS`) in a clause that names no clinical thing:
    a clause holding a kind-of-information phrase, or else its first clause that opens as a question. What the
    other clauses name is then why it is asked ("seeing her for a dressing - which procedure was it?"), not what a
    record must name.

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> q = "Doing Erik Waller's wound check, which procedure was it again?"
        >>> asks_for_kind_only(q, understand(q), ["Erik Waller"])
        True
        >>> q = "Which operation did Erik Waller have on his thyroid?"
        >>> asks_for_kind_only(q, understand(q), ["Erik Waller"])
        False
        >>> q = "Erik Waller - any gastric banding this admission, and were there issues after it?"
        >>> asks_for_kind_only(q, understand(q), ["Erik Waller"])
        False
    """
    if understanding.fact_kind not in OPEN_KINDS:
        return False
    named = _name_tokens(names)
    things = (understanding.things | understanding.context) - named
    question = expand_shorthand(question)[0]  # "what op was it?" asks for an operation
    anchors = anchor_spans(question)  # "after the op": a time, not what is asked
    cues = [(begin, end) for begin, end in cue_spans(question) if not any(a <= begin < b for a, b in anchors)]
    for aside_start, aside_end in aside_span(question):  # "blood group? booking bloods at the antenatal clinic"
        if any(set(tokenize(question[begin:end])) & things for begin, end in clause_spans(question[:aside_start])):
            cues = [(begin, end) for begin, end in cues if not aside_start <= begin < aside_end]
    clauses = clause_spans(question)
    if cues:
        asking = [(begin, end) for begin, end in clauses if any(begin <= cue < end for cue, _ in cues)]
    else:
        asking = [(begin, end) for begin, end in clauses if INTERROGATIVE.match(question[begin:end])][:1]
    bare = [begin for begin, end in asking if not set(tokenize(question[begin:end])) & things]
    # "a kidney transplant …; when did he have it?" (not "She broke her hip and had it fixed. Any complications?")
    if not bare or (things and REFERS_BACK.search(question, _sentence_start(question, bare[0]))):
        return False
    # a clause before it that is itself a question about a thing asks for that thing: "any gastric banding this
    # admission, and were there issues after it?" needs the banding ("which operation, and was it keyhole?" does not)
    others = [(begin, end) for begin, end in clauses if end <= bare[0]]
    return not any(
        INTERROGATIVE.match(question[begin:end])
        and in_a_question(question, end)
        and set(tokenize(question[begin:end])) & things
        for begin, end in others
    )


def _sentence_start(text: str, position: int) -> int:
    """Where the sentence of ``text`` holding ``position`` begins: after the last ".", "?" or "!" before it."""
    ends = [match.end() for match in re.finditer(r"[.?!](?=\s)", text[:position])]
    return ends[-1] if ends else 0


def _asking_clause(kept: str, things: frozenset[str]) -> tuple[int, int] | None:
    """The first clause of ``kept`` that is a question (it opens as one, in a sentence ending with a question mark)
    and names one of ``things`` (other than a participle), when a clause before it names one too: what a statement
    before the question names ("Tabitha York was in with DKA - did she have …?") says why it is asked, not what is
    asked.

    Example:
        >>> _asking_clause("In with DKA - did she have retinal photos?", frozenset({"dka", "retinal"}))
        (14, 41)
    """
    clauses = clause_spans(kept)
    # a participle describes and names nothing on its own ("was the stay prolonged by a complication?")
    naming = [
        (begin, end)
        for begin, end in clauses
        if any(not token.endswith("ed") for token in set(tokenize(kept[begin:end])) & things)
    ]
    if len(naming) < 2:
        return None
    asking = next(
        ((begin, end) for begin, end in naming if INTERROGATIVE.match(kept[begin:end]) and in_a_question(kept, end)),
        None,
    )
    return asking if asking is not None and asking != naming[0] else None


def asked_attributes(question: str, understanding: QueryUnderstanding, names: Iterable[str] = ()) -> frozenset[str]:
    """The things ``question`` names right after a question word, where they say what is asked for rather than
    what a record must name ("what technique", "which sickness"), unless they name a drug or a class ("which SSRI").

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> q = "Which technique did they use for Dennis Perry in the end?"
        >>> sorted(asked_attributes(q, understand(q), ["Dennis Perry"]))
        ['technique']
    """
    things = understanding.things - _name_tokens(names)
    asked = _asked_after_wh_word(question, things)
    return frozenset(token for _, tokens in asked if not _names_class_or_drug(tokens) for token in tokens)


def asked_drugs(question: str, understanding: QueryUnderstanding, names: Iterable[str] = ()) -> frozenset[str]:
    """The drugs and drug classes ``question`` names right after a question word ("which SSRI", "what
    antibiotic"), with the words of their expansions and the drug classes the question names: what is asked for, where
    the question's other things ("52F MDD - which SSRI?") only say why.

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> q = "Loretta Cox 52F MDD - which SSRI?"
        >>> sorted(asked_drugs(q, understand(q), ["Loretta Cox"]))[:3]
        ['antidepressant', 'inhibitor', 'reuptake']
    """
    things = understanding.things - _name_tokens(names)
    after = _asked_after_wh_word(question, things)
    asked = {token for _, tokens in after if _names_drug_or_drug_class(tokens) for token in tokens}
    if not asked:
        return frozenset()
    for found, meaning in understanding.expansions:
        written, added = set(tokenize(found)), set(tokenize(meaning))
        if (written | added) & asked and len(added) < 8:  # a class's member list is no expansion of a word
            asked |= written | added
    return frozenset(asked | (set(understanding.classes) & _drug_classes())) & things


def _asked_after_wh_word(question: str, things: Iterable[str]) -> Iterator[tuple[re.Match[str], list[str]]]:
    """Each word of ``question`` that holds ``things`` right after a wh-word ("which SSRI", "what technique"), with
    those things."""
    wanted = set(things)
    for match in _WORD.finditer(question):
        tokens = [token for token in tokenize(match.group()) if token in wanted]
        if tokens and _asked_attribute(question[: match.start()], tokens):
            yield match, tokens


def _asked_attribute(before: str, tokens: Sequence[str]) -> bool:
    """Whether words holding ``tokens`` say what is asked, given the text ``before`` them: right after a wh-word
    ("which technique"), or a plain word for a diagnosis a few words after one ("what was the final sickness")."""
    if _ASKED_ATTRIBUTE.search(before):
        return True
    return set(tokens) <= _LAY_KIND_NOUNS and _ASKED_LAY_KIND.search(before) is not None


def head_named(head: tuple[HeadThing, ...], mentioned: frozenset[str]) -> bool:
    """Whether a record that mentions ``mentioned`` names every thing of ``head`` (in one of its forms).

    Example:
        >>> head_named((HeadThing("voiding", frozenset({("voiding",)})),), frozenset({"unable", "void"}))
        True
    """
    return all(
        any(len(forms_mentioned(phrase, mentioned)) == len(set(phrase)) for phrase in thing.phrases) for thing in head
    )


def examined_sites(question: str, names: Iterable[str] = ()) -> tuple[HeadThing, ...]:
    """The study and the body site of each study ``question`` names with a site right before or after it ("CT
    head", "head CT", "MRI of the lumbar spine"), and the procedure group and the site of each procedure named with
    one in or right before its words ("shoulder replacement", "knee arthroplasty"): one record must name both — a
    record of a CT of the abdomen does not answer "John Mays CT head result", nor a knee replacement a question
    about a shoulder replacement. Empty when nothing is named with a site. The words of ``names`` (the patients
    named: "Ada Head") are not sites.

    Example:
        >>> [thing.word for thing in examined_sites("john mays ct head result from ED")]
        ['ct', 'head']
        >>> [thing.word for thing in examined_sites("is this shoulder replacement thing in the family?")]
        ['joint replacement', 'shoulder']
        >>> examined_sites("Ada Stone CT result")
        ()
    """
    named = _name_tokens(names)
    tokens = [token for token in tokenize(question) if token not in named]
    found: dict[str, HeadThing] = {}
    for item, asked, _ in _class_phrases():
        if item.kind not in ("study", "procedure"):
            continue
        for phrase in asked:
            for start in range(len(tokens) - len(phrase) + 1):
                if not phrase or tokens[start : start + len(phrase)] != phrase:
                    continue
                before = [token for token in tokens[max(0, start - 1) : start] if token in BODY_SITES]
                if item.kind == "procedure":  # "shoulder replacement", "knee arthroplasty"
                    sites = [*before, *(token for token in phrase if token in BODY_SITES)]
                else:
                    sites = [*before, *_leading_sites(tokens[start + len(phrase) : start + len(phrase) + 3])]
                if sites:
                    study = {(item.name,), *(tuple(p) for p in asked if p)}
                    found.setdefault(item.name, HeadThing(item.name, frozenset(study)))
                for site in sites:
                    found.setdefault(site, HeadThing(site, BODY_SITES[site]))
    return tuple(found.values())


_PREMISE: Final = re.compile(r"^\s*(?:if|in case|supposing|assuming|given that)\b", re.IGNORECASE)


def _premises(question: str, things: set[str] | frozenset[str]) -> list[tuple[int, int]]:
    """The clauses that set a premise ("If his hernia came back after the mesh repair, when was the redo operation
    done?"), when a later clause names a thing: the question asks about that thing."""
    clauses = clause_spans(question)
    found: list[tuple[int, int]] = []
    for number, (begin, end) in enumerate(clauses):
        later = any(set(tokenize(question[b:e])) & things for b, e in clauses[number + 1 :])
        if _PREMISE.match(question[begin:end]) and later:
            found.append((begin, end))
    return found


def _leading_sites(tokens: list[str]) -> list[str]:
    """The body sites at the start of ``tokens`` ("head" of "head result", "knee" of "left knee"), qualifiers
    skipped."""
    sites: list[str] = []
    for token in tokens:
        if token in BODY_SITES:
            sites.append(token)
        elif token not in _SITE_QUALIFIERS:
            break
    return sites


def _contains(tokens: list[str], phrase: list[str]) -> bool:
    return any(tokens[start : start + len(phrase)] == phrase for start in range(len(tokens) - len(phrase) + 1))


def _names_class_or_drug(tokens: list[str]) -> bool:
    return any(is_drug_name(token) for token in tokens) or bool(set(tokens) & _class_asked_words())


def _names_drug_or_drug_class(tokens: list[str]) -> bool:
    return any(is_drug_name(token) for token in tokens) or bool(set(tokens) & class_words("drug"))


@functools.cache
def _drug_classes() -> frozenset[str]:
    return frozenset(item.name for item in vocabulary().classes if item.kind == "drug")


def _name_tokens(names: Iterable[str]) -> set[str]:
    return {token for name in names for token in tokenize(name)}


@functools.cache
def _class_phrases() -> tuple[tuple[ClinicalClass, tuple[list[str], ...], tuple[list[str], ...]], ...]:
    """Each class with the tokens of its name and asking phrases, and of its sites (tokenised once per process)."""
    return tuple(
        (
            item,
            tuple(tokenize(phrase) for phrase in (item.name, *item.asked)),
            tuple(tokenize(site) for site in item.sites),
        )
        for item in vocabulary().classes
    )


@functools.cache
def _class_asked_words() -> frozenset[str]:
    return frozenset(token for item in vocabulary().classes for phrase in item.asked for token in tokenize(phrase))


def _forms(token: str, expansions: tuple[tuple[str, str], ...]) -> frozenset[tuple[str, ...]]:
    phrases: set[tuple[str, ...]] = {(token,)}
    for found, meaning in expansions:
        written, added = tuple(tokenize(found)), tuple(tokenize(meaning))
        if token in written or token in added:
            phrases |= {written, added} - {()}
    return frozenset(phrases)
