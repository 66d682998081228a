"""What spelling correction adds to literature recall: the benchmark's questions
(`clinrag.evaluate.literature.question_of`) with misspelt words, asked with the library's spelling correction on
(the product) and off (``retrieve.library_spelling = false``: the words searched as written), beside the questions
spelt correctly.

The misspellings, by a fixed, seeded procedure (`misspelt_question`): each question gets one or two misspelt
words (one or two with equal chance, ``random.Random(f"{seed}:{pmid}")``), drawn from the words of five letters or
more of its condition and outcome phrases (`misspellable_words`) — never its treatment or comparator (drug and
intervention names), never a word of the question's fixed frame ("reduce", "compared", "among", "patients"), never
an acronym or hyphenated word (HbA1c, "all-cause"); the questions name no author. Each chosen word gets one edit
(`misspell`), one of four with equal chance, never on its first letter: a letter dropped, a letter doubled, two
different adjacent letters swapped, or a letter replaced by another. An edit may make an English word ("heart" →
"hear"), which the library's corrector leaves alone by design; that is counted, not avoided.

Example:
    >>> from clinrag.ingest.synthetic.medline import synthetic_records
    >>> record = synthetic_records(1, seed=20)[0]
    >>> variant = misspelt_question(record, filtered=False, seed=1)
    >>> variant.text != question_of(record, filtered=False), 1 <= len(variant.edits) <= 2
    (True, True)
    >>> all(written in misspellable_words(record) for written, _ in variant.edits)
    True
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from clinrag.evaluate.literature import MODES, question_of, recall_at_10
from clinrag.index.embed import Embedder
from clinrag.index.store import Mode
from clinrag.ingest.medline import MedlineRecord
from clinrag.ingest.synthetic.medline import TOPICS
from clinrag.retrieve.hybrid import Retriever
from clinrag.retrieve.literature_filters import correct_library_spelling, load_vocabulary
from clinrag.retrieve.vocabulary import DRUG_WORDS, zipf
from clinrag.settings import IndexSettings, RetrieveSettings

EDITS: Final = ("drop", "double", "swap", "replace")
MIN_LENGTH: Final = 5
FRAME_WORDS: Final = frozenset({"reduce", "compared", "among", "patients"})
"""The words `question_of` puts in every question: not the record's content, never misspelt."""
TREATMENT_WORDS: Final = frozenset(
    word for topic in TOPICS for treatment in topic.treatments for word in re.split(r"[\s-]+", treatment)
)
"""Every word of every treatment the synthetic library studies (drugs and interventions): never misspelt."""
VARIANTS: Final = ("correct", "misspelt, corrected", "misspelt, as written")
"""What is measured: the questions spelt correctly (correction on), misspelt with the library's correction on (the
product), and misspelt with it off (the baseline)."""


def misspellable_words(record: MedlineRecord) -> tuple[str, ...]:
    """The words of ``record``'s question that may be misspelt: lower-case words of five letters or more of its
    condition and outcome, not drug or treatment words, in the order they appear, each once.

    Example:
        >>> from clinrag.ingest.synthetic.medline import synthetic_records
        >>> record = synthetic_records(1, seed=20)[0]
        >>> record.keywords[0], record.keywords[2], misspellable_words(record)
        ('alcohol withdrawal', 'ICU admission', ('admission', 'alcohol', 'withdrawal'))
    """
    condition, _, outcome = record.keywords
    words = [word for phrase in (outcome, condition) for word in phrase.split()]
    return tuple(
        dict.fromkeys(
            word
            for word in words
            if len(word) >= MIN_LENGTH
            and word.isalpha()
            and word.islower()
            and word not in FRAME_WORDS
            and word not in TREATMENT_WORDS
            and word not in DRUG_WORDS
        )
    )


def misspell(word: str, rng: random.Random) -> str:
    """``word`` with one edit chosen by ``rng`` (see the module docstring); always differs from ``word``.

    Example:
        >>> sorted({misspell("bleeding", random.Random(seed))[0] for seed in range(50)})
        ['b']
        >>> all(misspell("bleeding", random.Random(seed)) != "bleeding" for seed in range(50))
        True
    """
    if len(word) < 2:
        raise ValueError(f"{word!r}: too short to misspell")
    edit = rng.choice(EDITS)
    if edit == "swap":
        pairs = [i for i in range(1, len(word) - 1) if word[i] != word[i + 1]]
        if pairs:
            i = rng.choice(pairs)
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        edit = "replace"  # no two different adjacent letters after the first: replace one instead
    position = rng.randrange(1, len(word))
    if edit == "drop":
        return word[:position] + word[position + 1 :]
    if edit == "double":
        return word[: position + 1] + word[position:]
    letter = rng.choice([c for c in string.ascii_lowercase if c != word[position]])
    return word[:position] + letter + word[position + 1 :]


@dataclass(frozen=True)
class MisspeltQuestion:
    """A question with misspelt words, and the ``(word, as misspelt)`` pairs."""

    text: str
    edits: tuple[tuple[str, str], ...]


def misspelt_question(record: MedlineRecord, filtered: bool, seed: int) -> MisspeltQuestion:
    """``question_of(record, filtered)`` with one or two of its `misspellable_words` misspelt (see the module
    docstring); the same for the same ``record`` and ``seed``, whether ``filtered`` or not.

    Example:
        >>> from clinrag.ingest.synthetic.medline import synthetic_records
        >>> record = synthetic_records(1, seed=20)[0]
        >>> plain, filtered = (misspelt_question(record, f, seed=3) for f in (False, True))
        >>> plain.edits == filtered.edits, filtered.text.startswith(plain.text[:-1])
        (True, True)
    """
    rng = random.Random(f"{seed}:{record.pmid}")
    candidates = misspellable_words(record)
    chosen = rng.sample(candidates, min(rng.choice((1, 2)), len(candidates)))
    edits = tuple((word, misspell(word, rng)) for word in chosen)
    text = question_of(record, filtered)
    for word, wrong in edits:
        text = re.sub(rf"\b{word}\b", wrong, text, count=1)
    return MisspeltQuestion(text, edits)


@dataclass
class SpellingRecall:
    """recall@10 per ``plain`` / ``with filters``, `VARIANTS` entry and mode; what the library's corrector did with
    the misspelt words; and every search's seconds."""

    recall: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    words: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)


def corrector_outcome(node: Path, questions: Sequence[MisspeltQuestion]) -> dict[str, int]:
    """What the library's corrector makes of the misspelt words of ``questions``: misspelt, restored to the word as
    spelt, read as another word, left as written (of which ``english`` are English words, left alone by design),
    and questions restored whole.

    Example:
        >>> corrector_outcome(Path("/nonexistent"), [])["misspelt"]
        0
    """
    vocabulary = load_vocabulary(node)
    found = {"misspelt": 0, "restored": 0, "read as another word": 0, "left as written": 0, "english": 0}
    found["questions restored whole"] = 0
    for question in questions:
        read = dict(correct_library_spelling(question.text, vocabulary)[1]) if vocabulary is not None else {}
        whole = True
        for word, wrong in question.edits:
            found["misspelt"] += 1
            corrected = read.get(wrong)
            if corrected == word:
                found["restored"] += 1
                continue
            whole = False
            if corrected is not None:
                found["read as another word"] += 1
            else:
                found["left as written"] += 1
                found["english"] += zipf(wrong) > 0.0
        found["questions restored whole"] += whole
    return found


def spelling_recall(
    node: Path,
    gold: Sequence[MedlineRecord],
    embedder: Embedder,
    settings: RetrieveSettings,
    seed: int,
    index: IndexSettings | None = None,
    modes: Sequence[Mode] = MODES,
    on_progress: Callable[[str], None] | None = None,
) -> SpellingRecall:
    """Ask every gold record's question — spelt correctly, misspelt with ``settings.library_spelling`` on, and
    misspelt with it off (`VARIANTS`) — plain and with filters, in every mode: a hit when the gold PMID is among the
    top 10."""
    found = SpellingRecall()
    misspelt = {filtered: [misspelt_question(record, filtered, seed) for record in gold] for filtered in (False, True)}
    found.words = corrector_outcome(node, misspelt[False])
    for variant in VARIANTS:
        spelling = variant != VARIANTS[2]
        retriever = Retriever.open(
            node, settings.model_copy(update={"library_spelling": spelling}), embedder, index=index
        )
        try:
            for filtered in (False, True):
                label = "with filters" if filtered else "plain"
                questions = (
                    [question_of(record, filtered) for record in gold]
                    if variant == VARIANTS[0]
                    else [question.text for question in misspelt[filtered]]
                )
                for mode in modes:
                    rate = recall_at_10(retriever, gold, questions, mode, found.seconds)
                    found.recall.setdefault(label, {}).setdefault(variant, {})[mode] = rate
                    if on_progress is not None:
                        on_progress(f"{label} / {variant} / {mode}: {rate}")
        finally:
            retriever.close()
    return found
