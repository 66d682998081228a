"""From a question to a verified answer or an abstention.

1. The question is cleaned of invisible characters, prompt markup and appended instructions, then retrieved
   with the asker's filters.
2. No hit above the relevance threshold (or a named patient unknown here) → abstain, without calling a model.
3. Sources are numbered by relevance and sanitised (instruction-like sentences quarantined). When the question
   names a specific thing (a drug, a test, a condition) and no source mentions it, every hit is noise: abstain,
   again without calling a model.
4. The extractive answerer quotes them, or a generator writes from a prompt fitted to its context window: the
   lowest-ranked sources are dropped first, whole.
5. Every sentence is verified against the sources it cites (provenance line included, so a claim about the
   wrong patient fails), and must be on the question: a cited source must mention one of the question's specific
   terms (:func:`clinrag.generate.citations.on_question`). Unsupported sentences are removed or marked; nothing
   supported → abstain.

Example:
    >>> answerer = Answerer(Retriever.open(Path("data/demo/nodes/A")), AnswerSettings())  # doctest: +SKIP
    >>> print(answerer.answer("What was Betty Henry discharged on?").text)  # doctest: +SKIP
    Patient 10000032: Discharge Medications: 1. Aspirin 81 mg PO DAILY … [1]
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, runtime_checkable

from clinrag.generate.citations import (
    Verification,
    citations_of,
    on_question,
    split_sentences,
    unfounded_things,
    verify,
)
from clinrag.generate.contradiction import contradicted, stay_of, unfounded_absence
from clinrag.generate.extractive import (
    SUMMARY_SECTIONS,
    extract_answer,
    focused_texts,
    question_terms,
    reaction_lines,
    says_none,
    summarise_admissions,
)
from clinrag.generate.llm import Generator
from clinrag.generate.plans import without_plans
from clinrag.generate.prompts import NOT_ENOUGH, clinical_messages, provenance, source_block
from clinrag.generate.question_parts import joined, question_parts
from clinrag.generate.sanitize import sanitize_question, sanitize_source
from clinrag.generate.source_parts import in_parts
from clinrag.index.embed import Embedder
from clinrag.index.lexical import tokenize
from clinrag.retrieve.classes import asked_classes, class_words, mentioned, names_topic, topic_names
from clinrag.retrieve.head import (
    asked_attributes,
    asked_drugs,
    asks_for_kind_only,
    examined_sites,
    head_named,
    head_things,
)
from clinrag.retrieve.hybrid import Retrieval
from clinrag.retrieve.intent import (
    ADMISSIONS_SUMMARY,
    KIND_SECTIONS,
    asks_drug_effect,
    asks_for_charges,
    asks_for_quantity,
    asks_for_time_of_day,
    asks_for_volume,
    asks_general_advice,
    asks_if_done,
    consulted_roles,
    counted_things,
    device_identity_asked,
    gives_quantity,
    gives_quantity_of,
    gives_time_of_day,
    name_owners,
    possessed_things,
    proposed_causes,
    shown_things,
)
from clinrag.retrieve.patient_mentions import full_names
from clinrag.retrieve.query import (
    MEDICATION_KINDS,
    SECTION_KINDS,
    QueryUnderstanding,
    provided_things,
    told_only,
)
from clinrag.retrieve.recorded import recorded_attribute
from clinrag.retrieve.scope import Scope, ScopeNames, named_scope, scope_words
from clinrag.retrieve.spoken import written_form
from clinrag.retrieve.vocabulary import RARE_ZIPF, correct_spelling, is_drug_name, is_thing, zipf
from clinrag.retrieve.word_forms import forms_mentioned
from clinrag.settings import AnswerSettings
from clinrag.types import Abstention, Answer, AnswerSentence, Chunk, SearchFilters, Source, SourceKind

_PATIENT_RECORDS: Final = frozenset({SourceKind.NOTE, SourceKind.ROW})
"""Sources that are patients' records; general advice is read from guidelines and abstracts, never from these."""
_OVERVIEW: Final = re.compile(
    r"\b(?:tell me (?:about|everything)|summar(?:y|ies|ise|ize)|overview|what happened (?:to|with))\b", re.IGNORECASE
)
"""A question that asks for the patient's records as they are ("Tell me about Ada Stone."), no one kind of them."""
PROMPT_MARGIN = 64  # tokens kept free for chat-template tokens the counts do not see
SUMMARY_SOURCES = 40  # stays an admissions summary can list
_MARKERS = re.compile(r"\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]")
_DECLINES = re.compile(
    r"not enough information|insufficient (?:information|evidence)|cannot (?:be )?(?:answer|determine)"
    r"|(?:do|does) not (?:contain|mention|provide|include) (?:the |any |enough )?(?:answer|information)",
    re.IGNORECASE,
)


class Searcher(Protocol):
    """Anything that retrieves for a question: a node's retriever, or later the federation root."""

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        """Ranked, access-checked hits for ``question``."""
        ...


@runtime_checkable
class Scoped(Protocol):
    """A searcher that knows the hospitals and departments it can search (a question may name them)."""

    def scope_names(self) -> ScopeNames:
        """The organisations (code → label) and departments this searcher reaches."""
        ...


@runtime_checkable
class Withholding(Protocol):
    """A searcher that counts the sensitive passages the policies withheld from its searches (the federation's)."""

    searches: int
    """Searches made so far."""

    def withheld_after(self, mark: int) -> int:
        """Sensitive passages withheld by the searches made after the ``mark``-th."""
        ...


class Answerer:
    """Answers questions from a searcher's hits with the configured generator (None: extractive).

    Hospitals and departments the question names (of those the searcher knows, :class:`Scoped`) become filters;
    when the asker may search none of them, the answer says so instead of answering from elsewhere.
    """

    def __init__(
        self,
        searcher: Searcher,
        settings: AnswerSettings,
        generator: Generator | None = None,
        embedder: Embedder | None = None,
        searched: Sequence[str] = (),
    ) -> None:
        self.searcher = searcher
        self.settings = settings
        self.generator = generator
        self.embedder = embedder
        self.searched = tuple(searched)
        self.scopes = searcher.scope_names() if isinstance(searcher, Scoped) else ScopeNames()

    @property
    def generator_id(self) -> str:
        """``extractive`` or the generator's id."""
        return "extractive" if self.generator is None else self.generator.id

    def answer(
        self, question: str, filters: SearchFilters | None = None, on_token: Callable[[str], None] | None = None
    ) -> Answer:
        """A verified answer, or an abstention saying why; ``on_token`` receives generated text as it streams.

        ``Answer.withheld_sensitive`` says how many sensitive passages the asker's policies withheld (a searcher
        that counts them, :class:`Withholding`); the answer's text is not changed by it."""
        counting = self.searcher if isinstance(self.searcher, Withholding) else None
        mark = counting.searches if counting is not None else 0
        retrieved: list[Retrieval] = []
        answered = self._in_parts(question, filters, on_token, retrieved) or self._answer(
            question, filters, on_token, retrieved
        )
        withheld = counting.withheld_after(mark) if counting is not None else 0
        update: dict[str, object] = {"withheld_sensitive": withheld} if withheld else {}
        if retrieved and retrieved[0].notes:
            update["filter_notes"] = retrieved[0].notes
        return answered.model_copy(update=update) if update else answered

    def _in_parts(
        self,
        question: str,
        filters: SearchFilters | None,
        on_token: Callable[[str], None] | None,
        retrieved: list[Retrieval],
    ) -> Answer | None:
        """The answer to a question asking for several kinds of fact about one patient, each part answered on its
        own and joined (:mod:`clinrag.generate.question_parts`); None when it asks for one, or a part is not answered:
        "any Mohs surgery this admission, and were there issues after it?" is not answered by the issues alone."""
        answers: list[Answer] = []
        for part in question_parts(sanitize_question(question).text):
            answers.append(self._answer(part, filters, on_token, retrieved))
            if answers[-1].abstained:
                return None
        return joined(question, answers, self._text) if answers else None

    def _answer(
        self,
        question: str,
        filters: SearchFilters | None,
        on_token: Callable[[str], None] | None,
        retrieved: list[Retrieval],
    ) -> Answer:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        asked = sanitize_question(question)
        cleaned = asked.text
        if not cleaned.strip(" ?.!"):
            reason = "The question holds no clinical request once instructions to the system are set aside."
            return self._abstain(question, reason, timings, quarantined=asked.quarantined)
        # "Sumarize Ada Stone's stays": kind words read before names are looked up; clinical words are corrected
        # by the reading of the question (and reported by a library's speller), not silently here
        cleaned = correct_spelling(written_form(cleaned)[0], clinical=False)[0]
        scope = named_scope(cleaned, self.scopes)
        filters = _scoped(filters, scope)
        retrieval = self.searcher.retrieve(cleaned, filters, k=self.settings.sources)
        retrieved.append(retrieval)
        timings["retrieve"] = time.perf_counter() - started
        if (closed := self._closed_scope(scope, retrieval)) is not None:
            return self._abstain(question, closed, timings, retrieval=retrieval)
        if retrieval.no_such_patient:
            reason = "No patient by that name is in the records you can access."
            return self._abstain(question, reason, timings, retrieval=retrieval)
        if retrieval.clarify:  # a name that does not settle who: nothing was retrieved, the asker is asked
            listed = [choice.label(self.scopes.orgs) for choice in retrieval.clarify]
            more = f" and {len(listed) - 10} more" if len(listed) > 10 else ""
            reason = f"Which patient do you mean? {'; '.join(listed[:10])}{more}."
            asked_back = self._abstain(question, reason, timings, retrieval=retrieval)
            if asked_back.abstention is not None:
                offered = asked_back.abstention.model_copy(update={"choices": retrieval.clarify})
                asked_back = asked_back.model_copy(update={"abstention": offered})
            return asked_back
        started = time.perf_counter()
        retrieval = self._with_kind_sections(cleaned, retrieval, filters)
        timings["retrieve"] += time.perf_counter() - started
        if not retrieval.hits:
            reason = "No accessible record matches the question above the relevance threshold."
            return self._abstain(question, reason, timings, retrieval=retrieval)

        sources = tuple(Source(number=i, chunk=h.chunk, score=h.score) for i, h in enumerate(retrieval.hits, 1))
        cleaned_texts = {source.number: sanitize_source(source.chunk.text) for source in sources}
        quarantined = asked.quarantined + sum(found.quarantined for found in cleaned_texts.values())
        texts = {number: found.text for number, found in cleaned_texts.items() if found.text}
        understanding = retrieval.understanding
        if not _asks_about_family(cleaned, understanding):  # a sister's cancer is no answer about the patient
            texts = {n: text for n, text in texts.items() if sources[n - 1].chunk.section != FAMILY_HISTORY}
        names = [m.text for m in retrieval.resolution.mentions] if retrieval.resolution is not None else []
        given = [source.chunk.patient_name or "" for source in sources if source.number in texts]
        if retrieval.resolution is None:  # no registry read the question here (a federation's root)
            names = list(full_names(cleaned))
        filtering = [*names, *given, *scope_words(scope, self.scopes)]  # who and where: filters, not things to find
        if asks_for_kind_only(cleaned, understanding, filtering):
            understanding = _as_context(understanding, classes=understanding.fact_kind in MEDICATION_KINDS)
        elif attributes := asked_attributes(cleaned, understanding, filtering):  # "which sickness": what is asked
            understanding = _as_context(understanding, attributes)
        elif drugs_asked := asked_drugs(cleaned, understanding, filtering):  # "52F MDD - which SSRI?": the SSRI
            understanding = _as_context(understanding, understanding.things - drugs_asked)
        terms = question_terms(understanding, filtering)
        named = names + [name for name in given if name and name.lower() in cleaned.lower()]
        if understanding.about_patients and asks_for_quantity(cleaned):  # "how many patients did you admit …?"
            reason = "A count over patients is not read from single records; ask it as a question about the cohort."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        if asks_for_volume(cleaned):  # "how many hip replacements does your unit do a year?"
            reason = "How many of something a hospital does is not read from one patient's records."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        if asks_for_charges(cleaned):  # "how much was the TV rental by the bed?"
            reason = "What something cost or was charged is not in a patient's clinical records."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        only_records = all(source.chunk.source_kind in _PATIENT_RECORDS for source in sources)  # no paper, guideline
        # "is it safe for someone with COPD to …?": a guideline among the sources may answer it, patients' records not
        if not named and asks_general_advice(cleaned) and only_records:
            reason = "What is safe or advised in general is not read from patients' records."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        # "can anastrozole slow a fielder's reactions? Ada Stone is on it": pharmacology, whoever is named
        if asks_drug_effect(cleaned) and only_records:
            reason = "What a medicine does, or what is safe while taking it, is not read from patients' records."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        if _asks_for_nothing(understanding, named, filters):
            reason = "The question names no patient, clinical finding, treatment or kind of record to look for."
            if understanding.fact_kind is not None:
                reason = "The question asks for a kind of record but names no patient or clinical finding."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        written = set(tokenize(cleaned)) - set(understanding.classes)  # not an expansion ("SSRI": serotonin …)
        drugs = frozenset(term for term in terms & written if is_drug_name(term))
        # "discuss colostomy reversal in 3-6 months": a plan, no event, nor an answer to whether one happened
        if understanding.fact_kind in _EVENT_KINDS or asks_if_done(cleaned):
            texts = {n: text for n, text in texts.items() if sources[n - 1].chunk.section != _FOLLOWUP_INSTRUCTIONS}
            texts = {n: events for n, text in texts.items() if (events := without_plans(text))}
        mentions = [mentioned(text) for text in texts.values()]
        # a drug named must be named by a record; so must the head of what is asked, whole and in one record ("an
        # ERCP" of "an ERCP for stones in the duct"); of the other things named, any one will do
        head = head_things(cleaned, understanding, filtering)
        sites = examined_sites(cleaned, filtering)  # "CT head": a CT of the head, in one record
        if understanding.fact_kind in _PATIENT_LEVEL_KINDS:  # "after the RFDS flight - allergic to anything?"
            understanding = dataclasses.replace(understanding, anchors=frozenset())
        filtered = {token for name in filtering for token in tokenize(name)}
        if understanding.kind_candidates:  # "I'll run her in after the morning crossing. What follow-up …?"
            told = told_only(cleaned, understanding.anchors)
            understanding = dataclasses.replace(understanding, anchors=understanding.anchors - told)
        anchors = understanding.anchors - filtered
        provided = provided_things(cleaned) - filtered
        causes = frozenset(word for word in proposed_causes(cleaned) - filtered if is_thing(word))  # "burn pit"
        # "was an Aboriginal Liaison Officer called to see him?": the role's own words, not "social worker"
        roles = frozenset(
            word for word in consulted_roles(cleaned) - filtered - _THERAPY_ROLES if zipf(word) < _ROLE_ZIPF
        )
        for needed, named_by in (
            (drugs, forms_mentioned),
            (frozenset(thing.word for thing in head), lambda _, words: head_named(head, words)),
            (frozenset(thing.word for thing in sites), lambda _, words: head_named(sites, words)),
            (frozenset() if head else terms, forms_mentioned),
            (anchors, forms_mentioned),
            (provided, lambda needed, words: forms_mentioned(needed, words) == needed),  # "a personal alarm"
            (causes, forms_mentioned),
            (roles, forms_mentioned),
            (name_owners(cleaned) - filtered, forms_mentioned),  # "what was the porter's name?": the porter
            (shown_things(cleaned) - filtered, forms_mentioned),  # "did the scan show boy or girl?"
            (device_identity_asked(cleaned), forms_mentioned),  # "what make of hip, and the serial number?"
            # "did they note whether she can swim?"; "her emergency contact's phone number": most of it, not "emergency"
            (
                recorded_attribute(cleaned, filtering),
                lambda needed, words: 2 * len(forms_mentioned(needed, words)) >= len(needed),
            ),
        ):
            if needed and not any(named_by(needed, words) for words in mentions):
                reason = f"No retrieved record mentions what the question asks about ({_listing(needed)})."
                return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        # "what did he weigh on the ward scales?": of the patient, but of no kind of record and no clinical thing —
        # the nearest lines retrieved would answer a question no record is about
        if (
            understanding.fact_kind is None
            and not understanding.sections
            and not (terms or head or anchors or drugs)
            and not _OVERVIEW.search(cleaned)  # "tell me about Ada Stone": the records themselves
            and only_records  # a paper's or guideline's own words answer what it names
        ):
            reason = "The question names no kind of record and no clinical thing to look for in the patient's records."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        possessed = terms & written & possessed_things(cleaned)  # not context: "checking Ada Stone's dosette box"
        for rare in _rare_things(possessed, understanding):  # "dressings on Ada Stone's cataract extraction wound"
            if not any(forms_mentioned(rare, words) for words in mentions):
                reason = f"No retrieved record mentions what the question asks about ({_listing(rare)})."
                return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        # "the wound from Ada Stone's retinal detachment repair": an event named as the patient's own, in two
        # clinical words or more, is one no record names when none of them (nor a class they name) is in any record
        if len(possessed) > 1 and not any(
            forms_mentioned(possessed.union(understanding.classes), words) for words in mentions
        ):
            reason = f"No retrieved record mentions what the question asks about ({_listing(possessed)})."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        if understanding.fact_kind == ADMISSIONS_SUMMARY:
            return self._summary(question, retrieval, filters, timings, quarantined)

        focused: dict[int, str] = {}
        if self.generator is not None:
            # The sources that answer come first, so a model reads them as [1], [2] … and nothing else.
            focused = focused_texts(understanding, [s for s in sources if s.number in texts], names)
            sources, texts, focused = _focused_first(sources, texts, focused)
        started = time.perf_counter()
        draft = self._draft(cleaned, understanding, sources, texts, on_token, names, focused)
        timings["generate"] = time.perf_counter() - started
        declined = not draft.strip() or _DECLINES.search(draft) is not None

        started = time.perf_counter()
        headers = {n: provenance(sources[n - 1].chunk) for n in texts}
        semantic = self.embedder if self.settings.semantic_support else None
        sections = {n: sources[n - 1].chunk.section for n in texts}
        # a reaction to the drug an allergy question names may be told in the course, not the allergy list
        reacting = reaction_lines(understanding, [s for s in sources if s.number in texts], texts)
        wanted = (*understanding.sections, *sorted({s.chunk.section for s, _ in reacting if s.chunk.section}))

        def checked_of(text: str) -> Verification:
            verified = verify(text, texts, self.settings.support_threshold, semantic, headers)
            return _uncontradicted(on_question(verified, terms, texts, wanted, sections), sources)

        checked = Verification((), 0) if declined else checked_of(draft)
        fallback_from: str | None = None
        if self.generator is not None and self.settings.model_fallback and not _mostly_supported(checked):
            # The model declined, or its sources support less than half of what it said: the lines that answer,
            # quoted, are better than an abstention or a draft mostly unfounded — and the answer says that the
            # model's draft was replaced.
            quoted = extract_answer(understanding, [s for s in sources if s.number in texts], names=names)
            replacement = checked_of(quoted) if quoted else Verification((), 0)
            if _answers(replacement):
                checked, declined, fallback_from = replacement, False, self.generator_id
        timings["verify"] = time.perf_counter() - started
        if declined:
            reason = "The accessible records do not answer the question."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        kept = self._kept(checked.sentences)
        if not any(sentence.supported for sentence in kept):
            reason = "No sentence of the draft answer was supported by the sources it cited."
            unfounded = {
                thing
                for sentence in checked.sentences
                for thing in unfounded_things(
                    sentence.text, [headers.get(n, "") + "\n" + texts.get(n, "") for n in sentence.citations]
                )
            }
            if unfounded:
                reason = f"The draft answer names what its sources do not ({_listing(frozenset(unfounded))})."
            if checked.contradicted:
                reason = "The draft answer is contradicted by another record of the same stay."
            elif checked.off_question:
                about = _listing(terms) if terms else " or ".join(understanding.sections).lower()
                reason = f"No supported sentence of the draft answer cites a record about {about}."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        supported = [s for s in checked.sentences if s.supported]
        quantity = understanding.fact_kind != "social" and asks_for_quantity(cleaned)  # "how much": "occasional"
        counted = counted_things(cleaned) - frozenset(filtered)  # "how many physio sessions": a count of them
        # "what dose of thyroid replacement": levothyroxine's line names the class the count is of
        counted_classes = {name for name in understanding.classes if counted & set(tokenize(name))}

        def counts(said: str) -> bool:
            words = mentioned(said)
            if not counted or counted_classes & words:
                return True
            return bool(forms_mentioned(counted, words)) and gives_quantity_of(said, counted)  # "27 staples"

        if quantity and not any(
            gives_quantity(said) and counts(said) for said in (_said(s, sections) for s in supported)
        ):
            reason = "No accessible record gives the number or size the question asks for."  # "what size of mesh?"
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        if asks_for_time_of_day(cleaned) and not any(gives_time_of_day(_said(s, sections)) for s in supported):
            reason = "No accessible record gives the time of day the question asks for."  # "what time did he leave?"
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        topics = topic_names(understanding.classes) if understanding.fact_kind == "social" else ()
        if topics and not any(names_topic(sentence.text, topics) for sentence in supported):
            # "is he a smoker?" is not answered by where he lives, however well cited
            reason = f"No accessible record says anything about {' or '.join(topics)}."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        kept, labels = in_parts(kept, {source.number: source.chunk.source_kind.value for source in sources})
        return Answer(
            question=question,
            text=self._text(kept, labels),
            generator="extractive" if fallback_from else self.generator_id,
            fallback_from=fallback_from,
            sentences=tuple(kept),
            sources=sources,
            cited=tuple(sorted({n for s in supported for n in s.citations})),
            support=round(len(supported) / len(checked.sentences), 4),
            valid_citations=sum(len(s.citations) for s in checked.sentences),
            invalid_citations=checked.invalid_citations,
            unsupported_sentences=len(checked.sentences) - len(supported),
            quarantined_spans=quarantined,
            timings=timings,
        )

    def _closed_scope(self, scope: Scope, retrieval: Retrieval) -> str | None:
        """Why the hospitals or departments the question names cannot answer it, or None when one can."""
        if scope.orgs and not set(scope.orgs) & set(retrieval.searched):
            labels = " or ".join(self.scopes.orgs.get(org, org) for org in scope.orgs)
            return f"{labels} is not accessible to you, so the question cannot be answered there."
        denied_depts = {path.rsplit("/", 1)[-1] for path in retrieval.denied}
        if scope.depts and not retrieval.hits and set(scope.depts) <= denied_depts:
            return f"The {' or '.join(scope.depts)} department is not accessible to you."
        return None

    def _with_kind_sections(self, question: str, retrieval: Retrieval, filters: SearchFilters | None) -> Retrieval:
        """``retrieval``, or — when the question asks one patient's fact of a kind (a procedure, the chief complaint)
        and no hit comes from a section that holds that kind (or only one that says "None") — the hits of a second
        search of the question in those sections of that patient, first: "CC for Ada Stone?" ranks her note's other
        sections above its chief complaint, which the reading of the question knows is where the answer is. With no
        hit at all, the one patient the question's name resolved to is searched so."""
        understanding = retrieval.understanding
        sections = KIND_SECTIONS.get(understanding.fact_kind or "", ())
        if understanding.fact_kind in SECTION_KINDS or understanding.fact_kind == "procedure":
            # the one section that lists it: the chief complaint, not the history of present illness that tells it
            # at length; the procedure list, not the course that mentions what was awaited
            sections = sections[:1]
        patients = {hit.chunk.subject_id for hit in retrieval.hits}
        if not patients and retrieval.resolution is not None:  # "brought to theatre at all?": too few words to pass
            patients = {subject for mention in retrieval.resolution.mentions for subject in mention.subject_ids}
        if not sections or understanding.about_patients or len(patients) != 1 or None in patients:
            return retrieval
        in_sections = [hit for hit in retrieval.hits if hit.chunk.section in sections]
        if understanding.fact_kind != "complication" and any(not says_none(hit.chunk.text) for hit in in_sections):
            return retrieval  # "Procedure: None" of one stay does not say another stay had none
        # a complication is one line of a course told in several chunks: one course chunk retrieved ("# asthma:
        # stable") does not say the others hold none, so the course is searched for it all the same
        narrowed = (filters or SearchFilters()).model_copy(
            update={"subject_ids": tuple(patients), "sections": sections}
        )
        # The sections' own names join the question, as for summaries: within one patient's sections of the kind
        # asked, relevance is settled, and terse questions ("CC for Ada Stone?") would not pass the threshold alone.
        section_names = " ".join(sections).lower()
        found = self.searcher.retrieve(f"{question} {section_names}", narrowed, k=self.settings.sources)
        if not found.hits:  # the question's other words took it below the threshold: the sections' names alone
            found = self.searcher.retrieve(section_names, narrowed, k=self.settings.sources)
        if not found.hits:
            return retrieval
        seen = {hit.chunk.chunk_id for hit in found.hits}
        others = tuple(hit for hit in retrieval.hits if hit.chunk.chunk_id not in seen)
        kept = self.settings.sources - len(found.hits)
        return dataclasses.replace(retrieval, hits=found.hits + others[: max(kept, 0)])

    def _summary(
        self,
        question: str,
        retrieval: Retrieval,
        filters: SearchFilters | None,
        timings: dict[str, float],
        quarantined: int,
    ) -> Answer:
        """Every admission of the named patient the asker may see, in date order, each cited (no model: listing
        stays is not a task to hand to a generator). The stays come from a second search of the same question in
        the sections an admission is summarised by, so none is left out for want of a place in the top k."""
        started = time.perf_counter()
        patients = tuple(sorted({hit.chunk.subject_id for hit in retrieval.hits if hit.chunk.subject_id is not None}))
        if len(patients) != 1:
            reason = "A summary of admissions needs one patient, named in full or by identifier."
            return self._abstain(question, reason, timings, retrieval=retrieval)
        narrowed = (filters or SearchFilters()).model_copy(
            update={"subject_ids": patients, "sections": SUMMARY_SECTIONS}
        )
        # Asked by identifier and by the sections' own words: a summary lists stays, so every stay's diagnosis must
        # pass the relevance threshold, which the words "summarize … admissions" would not carry.
        asked = f"patient {patients[0]} discharge diagnosis chief complaint"
        stays = self.searcher.retrieve(asked, narrowed, k=SUMMARY_SOURCES)
        timings["retrieve"] += time.perf_counter() - started
        sources = tuple(Source(number=i, chunk=h.chunk, score=h.score) for i, h in enumerate(stays.hits, 1))
        draft = summarise_admissions(sources)
        if not draft:
            reason = "No accessible record summarises an admission of this patient."
            return self._abstain(question, reason, timings, sources, quarantined, retrieval)
        texts = {source.number: sanitize_source(source.chunk.text).text for source in sources}
        headers = {n: provenance(sources[n - 1].chunk) for n in texts}
        checked = verify(draft, texts, self.settings.support_threshold, None, headers)
        kept = self._kept(checked.sentences)
        supported = [s for s in checked.sentences if s.supported]
        kept, labels = in_parts(kept, {source.number: source.chunk.source_kind.value for source in sources})
        return Answer(
            question=question,
            text=self._text(kept, labels),
            generator="extractive",
            sentences=tuple(kept),
            sources=sources,
            cited=tuple(sorted({n for s in supported for n in s.citations})),
            support=round(len(supported) / max(len(checked.sentences), 1), 4),
            valid_citations=sum(len(s.citations) for s in checked.sentences),
            invalid_citations=checked.invalid_citations,
            unsupported_sentences=len(checked.sentences) - len(supported),
            quarantined_spans=quarantined,
            timings=timings,
        )

    def _draft(
        self,
        question: str,
        understanding: QueryUnderstanding,
        sources: Sequence[Source],
        texts: dict[int, str],
        on_token: Callable[[str], None] | None,
        names: Sequence[str] = (),
        focused: dict[int, str] | None = None,
    ) -> str:
        given = [source for source in sources if source.number in texts]
        if self.generator is None:
            draft = extract_answer(understanding, given, names=names)
            if on_token is not None and draft:
                on_token(draft)
            return draft
        shown = focused or texts
        messages, numbers = self._fitted_messages(question, [s for s in given if s.number in shown], shown)
        if on_token is None:
            draft = self.generator.complete(messages, self.settings.max_tokens, self.settings.temperature)
        else:
            pieces: list[str] = []
            for piece in self.generator.stream(messages, self.settings.max_tokens, self.settings.temperature):
                pieces.append(piece)
                on_token(piece)
            draft = "".join(pieces)
        return _cite_the_only_source(draft, numbers[0]) if len(numbers) == 1 else draft

    def _fitted_messages(
        self, question: str, sources: Sequence[Source], texts: dict[int, str]
    ) -> tuple[list[dict[str, str]], list[int]]:
        """The prompt with as many whole sources, in rank order, as the context window holds, and their numbers."""
        assert self.generator is not None
        count = self.generator.count_tokens
        budget = self.generator.context_window - self.settings.max_tokens - PROMPT_MARGIN
        budget -= sum(count(m["content"]) for m in clinical_messages(question, []))
        blocks: list[str] = []
        numbers: list[int] = []
        for source in sources:
            block = source_block(source.number, source.chunk, texts[source.number])
            cost = count(block) + 2
            if cost > budget:
                break
            blocks.append(block)
            numbers.append(source.number)
            budget -= cost
        return clinical_messages(question, blocks), numbers

    def _kept(self, sentences: Sequence[AnswerSentence]) -> list[AnswerSentence]:
        """Sentences to show: repeats dropped, unsupported ones removed or kept for marking."""
        seen: set[str] = set()
        kept = []
        for sentence in sentences:
            key = " ".join(sentence.text.lower().split())
            if key in seen or (self.settings.unsupported == "remove" and not sentence.supported):
                continue
            seen.add(key)
            kept.append(sentence)
        return kept

    @staticmethod
    def _text(sentences: Sequence[AnswerSentence], labels: Mapping[int, str] | None = None) -> str:
        """One line per sentence with its citations; ``labels`` open the parts of an answer citing records and the
        literature (`source_parts.in_parts`), by the index of their first sentence."""
        lines = []
        for index, sentence in enumerate(sentences):
            if labels and index in labels:
                lines.append(labels[index])
            marks = "".join(f"[{n}]" for n in sentence.citations)
            flag = "" if sentence.supported else " (unsupported)"
            lines.append(f"{sentence.text} {marks}{flag}".strip())
        return "\n".join(lines)

    def _abstain(
        self,
        question: str,
        reason: str,
        timings: dict[str, float],
        sources: Sequence[Source] = (),
        quarantined: int = 0,
        retrieval: Retrieval | None = None,
    ) -> Answer:
        searched = (retrieval.searched if retrieval is not None else ()) or self.searched
        denied = retrieval.denied if retrieval is not None else ()
        unreachable = retrieval.unreachable if retrieval is not None else ()
        where = [f"Searched: {', '.join(searched)}."] if searched else []
        where += [f"Denied by policy: {', '.join(denied)}."] if denied else []
        where += [f"Not reachable: {', '.join(unreachable)}."] if unreachable else []
        return Answer(
            question=question,
            text=" ".join([NOT_ENOUGH, reason, *where]),
            generator=self.generator_id,
            sources=tuple(sources),
            quarantined_spans=quarantined,
            abstention=Abstention(reason=reason, searched=searched, denied=denied, unreachable=unreachable),
            timings=timings,
        )


_ROLE_ZIPF: Final = 4.0
"""A word of a consulted role rarer than this in English ("liaison", "dietitian"; not "worker", "team") must be named
by a record."""
_THERAPY_ROLES: Final = frozenset({"physio", "physios", "pt", "ot"})
"""Therapists notes name by their service's abbreviation ("seen by PT"): not required as written."""
_EVENT_KINDS: Final = frozenset({"results", "procedure", "complication", "diagnosis", "presentation"})
"""Kinds of fact that are events of the stay: the follow-up plan, which says what is to come, answers none of them."""
_FOLLOWUP_INSTRUCTIONS: Final = "Followup Instructions"


def _said(sentence: AnswerSentence, sections: Mapping[int, str | None]) -> str:
    """What ``sentence`` says, without the patient and section ("Ada Stone (10000001): Allergies: ") it opens with.

    Example:
        >>> said = AnswerSentence(text="Ada (1): Allergies: Penicillin", citations=(1,), support=1.0, supported=True)
        >>> _said(said, {1: "Allergies"})
        'Penicillin'
    """
    text = _PATIENT_LABEL.sub("", sentence.text, count=1)
    for number in sentence.citations:
        section = sections.get(number)
        if section and text.startswith(f"{section}:"):
            return text[len(section) + 1 :].lstrip()
    return text


_PATIENT_LABEL: Final = re.compile(r"^[^:()]{0,80}\(\d+\):\s*")


def _rare_things(written: frozenset[str], understanding: QueryUnderstanding) -> list[frozenset[str]]:
    """Each word of ``written`` (things the question names as the patient's own) that English hardly knows and is
    no drug, with the words its expansions add: an event of the patient's so particular that an answer must rest on
    a record that names it, whatever else the question asks ("dressings on her cataract extraction wound").

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> _rare_things(frozenset({"cataract", "wound"}), understand("dressings on her cataract wound?"))
        [frozenset({'cataract'})]
    """
    found = []
    for word in sorted(written):
        if zipf(word) >= RARE_ZIPF or is_drug_name(word):
            continue
        alternatives = {word} | {found.name for found in asked_classes(word) if found.kind != "topic"}  # "cdiff"
        for phrase, meaning in understanding.expansions:
            if word in tokenize(phrase):
                alternatives |= set(tokenize(meaning))
        found.append(frozenset(alternatives))
    return found


def _uncontradicted(checked: Verification, sources: Sequence[Source]) -> Verification:
    """``checked`` with every supported sentence that a retrieved passage of the same admission contradicts
    (:func:`clinrag.generate.contradiction.contradicted`), or that states an absence no passage it cites states
    (:func:`clinrag.generate.contradiction.unfounded_absence`), set unsupported: it is not given as a fact."""
    stays: dict[tuple[int | None, int | str | None], list[Chunk]] = {}
    for source in sources:
        stays.setdefault(stay_of(source.chunk), []).append(source.chunk)
    sentences = []
    for sentence in checked.sentences:
        cited = [sources[n - 1].chunk for n in sentence.citations if 0 < n <= len(sources)]
        same_stay = [chunk for stay in {stay_of(chunk) for chunk in cited} for chunk in stays[stay]]
        refuted = sentence.supported and (
            contradicted(sentence.text, same_stay) or unfounded_absence(sentence.text, cited)
        )
        sentences.append(sentence.model_copy(update={"supported": False}) if refuted else sentence)
    refuted_count = sum(
        old.supported and not new.supported for old, new in zip(checked.sentences, sentences, strict=True)
    )
    return Verification(tuple(sentences), checked.invalid_citations, checked.off_question, refuted_count)


def _answers(checked: Verification) -> bool:
    """Whether a verified draft keeps a supported sentence."""
    return any(sentence.supported for sentence in checked.sentences)


def _mostly_supported(checked: Verification) -> bool:
    """Whether a verified draft keeps a supported sentence and its sources support at least half of its sentences."""
    supported = sum(sentence.supported for sentence in checked.sentences)
    return supported > 0 and 2 * supported >= len(checked.sentences)


def _focused_first(
    sources: Sequence[Source], texts: dict[int, str], focused: dict[int, str]
) -> tuple[tuple[Source, ...], dict[int, str], dict[int, str]]:
    """The sources renumbered with the ``focused`` ones first (each group in rank order), with ``texts`` and
    ``focused`` keyed by the new numbers.

    Example:
        >>> from clinrag.evaluate.adversarial import note_chunk
        >>> a, b = (Source(number=n, chunk=note_chunk(n, "Ada Stone", "Allergies", "x"), score=1.0) for n in (1, 2))
        >>> found, _, focus = _focused_first([a, b], {1: "x", 2: "y"}, {2: "y"})
        >>> [(s.number, s.chunk.subject_id) for s in found], focus
        ([(1, 2), (2, 1)], {1: 'y'})
    """
    if not focused:
        return tuple(sources), texts, focused
    ordered = sorted(sources, key=lambda source: (source.number not in focused, source.number))
    renumbered = tuple(source.model_copy(update={"number": i}) for i, source in enumerate(ordered, 1))
    new = {old.number: source.number for old, source in zip(ordered, renumbered, strict=True)}
    return (
        renumbered,
        {new[n]: text for n, text in texts.items()},
        {new[n]: text for n, text in focused.items()},
    )


def _cite_the_only_source(draft: str, number: int) -> str:
    """``draft`` with every sentence citing ``number``: when a model was shown one source, a sentence without a
    marker, or with another number (small models number their lines "[2] …"), can only come from it; verification
    still checks that it says what the source says.

    Example:
        >>> print(_cite_the_only_source("Allergic to codeine.\\nNo other allergies [1].", 1))
        Allergic to codeine. [1]
        No other allergies [1].
    """
    sentences = (_MARKERS.sub(f"[{number}]", sentence) for sentence in split_sentences(draft))
    return "\n".join(sentence if citations_of(sentence) else f"{sentence} [{number}]" for sentence in sentences)


def _scoped(filters: SearchFilters | None, scope: Scope) -> SearchFilters | None:
    """``filters`` narrowed to the hospitals and departments the question names (kept as given where it names
    none; intersected with what the caller chose)."""
    if scope.empty:
        return filters
    base = filters or SearchFilters()
    update: dict[str, tuple[str, ...]] = {}
    if scope.orgs:
        update["orgs"] = tuple(o for o in scope.orgs if base.orgs is None or o in base.orgs)
    if scope.depts:
        update["depts"] = tuple(d for d in scope.depts if base.depts is None or d in base.depts)
    return base.model_copy(update=update)


def _as_context(
    understanding: QueryUnderstanding, words: frozenset[str] | None = None, classes: bool = False
) -> QueryUnderstanding:
    """``understanding`` with the things it names (or those of them among ``words``) set aside as context, but a
    drug (it stays a thing to find) — and, with ``classes``, a class of drugs too ("auditing antibiotics — what was
    on his discharge list?": the list answers, whether or not it holds one)."""
    chosen = understanding.things if words is None else understanding.things & words
    aside = frozenset(
        thing for thing in chosen if not is_drug_name(thing) or (classes and thing in understanding.classes)
    )
    return dataclasses.replace(
        understanding, things=understanding.things - aside, context=understanding.context | aside
    )


FAMILY_HISTORY: Final = "Family History"
_FAMILY: Final = re.compile(
    r"\b(?:famil(?:y|ial)|relatives?|mother|father|mum|mom|dad|parents?|sisters?|brothers?|siblings?|"
    r"grand(?:mother|father|parents?)|aunts?|uncles?|hereditary|inherited|genetic)\b",
    re.IGNORECASE,
)


_FAMILY_ASKING: Final = re.compile(
    r"\b(?:(?:for|of|from|on behalf of|with) (?:the|his|her|their|a|my) family(?: members?)?"
    r"|(?:the|his|her|their|my) family (?:asks?|asked|asking|wants?|would like|is|are|wonders?|wondering)"
    r"|(?:his|her|their) (?:mother|father|mum|mom|dad|son|daughter|sister|brother|parents?)"
    r" (?:asks?|asked|is asking|wants?))\b",
    re.IGNORECASE,
)
"""The family as the asker ("interpreting for the family of …", "her daughter asks …"), not as what is asked."""


def _asks_about_family(question: str, understanding: QueryUnderstanding) -> bool:
    """Whether ``question`` asks about the patient's relatives: the family history answers nothing else ("has he had
    cancer?" is not answered by "Sister with breast cancer").

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> question = "Has Ada Stone had cancer?"
        >>> _asks_about_family(question, understand(question))
        False
        >>> question = "Interpreter for the family of Ada Stone: why was she in hospital?"
        >>> _asks_about_family(question, understand(question))
        False
    """
    return FAMILY_HISTORY in understanding.sections or _FAMILY.search(_FAMILY_ASKING.sub(" ", question)) is not None


def _listing(terms: frozenset[str], most: int = 6) -> str:
    """The question's specific terms for an abstention reason, e.g. ``hd or hemodialysis``."""
    shown = sorted(terms)[:most]
    return " or ".join(shown) + (" …" if len(terms) > most else "")


_PATIENT_LEVEL_KINDS: Final = frozenset({"allergy", "social"})
"""Kinds of fact that hold of the patient rather than of one stay: an event a question names as a time does not
need to be in a record that answers it."""
_EQUIPMENT: Final = frozenset({"scanner", "scanners", "machine", "machines", "department", "unit", "room", "suite"})
"""Where and with what a study is done: no finding a record holds."""


_SERVICE_DETAIL: Final = re.compile(
    r"\b(?:(?:phone|telephone|contact|direct[- ]dial|extension)\s+numbers?|numbers?\s+(?:for|of)\s+(?:the\s+)?\w+"
    r"|opening\s+(?:hours|times)|visiting\s+(?:hours|times)|address\s+(?:for|of)|car\s+park(?:ing)?|parking"
    r"|wi-?fi|passwords?|log-?ins?)\b",
    re.IGNORECASE,
)
"""How a question asks for a service's details (a number, opening hours, an address, the wifi password): not a
patient's record."""


def _asks_for_nothing(understanding: QueryUnderstanding, names: list[str], filters: SearchFilters | None) -> bool:
    """Whether the question, read once, asks the records for nothing: no patient (``names``: the patients it names,
    resolved or found among the sources' patients), no clinical thing, no kind of
    information (section or fact kind) — or a kind of fact but of no patient and not of a set of them ("what time
    is visiting on the surgical wards?") — no dates, and no filter chosen by the caller ("Tell me a joke about
    nurses."). Retrieval still returns its nearest chunks for such a question; quoting them would answer a
    question nobody asked."""
    things = understanding.things
    if not understanding.about_patients and things <= class_words("study") | _EQUIPMENT:
        things = frozenset()  # "is the MRI scanner open on bank holidays?" names a machine, not a finding
    if not understanding.about_patients and _SERVICE_DETAIL.search(understanding.text):
        if not names:  # "the wifi password for the patients on the orthopaedic ward?": whatever its scope
            return True
        things = frozenset()  # "the number for the emergency dental service?" asks about a service, not a patient
    if names or things or understanding.date_range is not None:
        return False
    if understanding.latest_admission or understanding.first_admission:
        return False
    if understanding.fact_kind is not None and not understanding.about_patients:  # whose? a scope says where only
        return filters is None or not (filters.subject_ids or filters.hadm_ids)
    return (filters is None or filters.is_empty) and not understanding.sections and understanding.fact_kind is None
