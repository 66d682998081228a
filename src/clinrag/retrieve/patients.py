"""The patient registry: which patients a leaf holds, under which names, and the lookups name resolution asks.

Each leaf (a hospital department) resolves names against its own registry of ``(subject_id, name)`` pairs; no
central name list exists. The caller makes only the resolved patients' chunks eligible. `PatientRegistry.resolve`
reads the question with the rules of `clinrag.retrieve.patient_mentions` (titles, possessives, capitalisation,
eponyms, spaCy's person tagger), which ask the registry what is registered: full names, surnames, given names,
subject ids, and the names a few edits from a misspelt one (RapidFuzz's optimal string alignment distance:
insertions, deletions, substitutions and swaps of neighbours).

Example:
    >>> registry = PatientRegistry([(10000032, "Betty Henry"), (10000033, "Paul Henry"), (10000034, "John Smith")])
    >>> resolution = registry.resolve("Compare Betty Henry's labs with patient 10000034", detect_persons=False)
    >>> sorted(resolution.subject_ids), [mention.how for mention in resolution.mentions]
    ([10000032, 10000034], ['possessive', 'id'])
    >>> registry.resolve("What was Mr. Henry given?", detect_persons=False).near[0].subject_ids
    (10000032, 10000033)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from rapidfuzz import process
from rapidfuzz.distance import OSA

from clinrag.retrieve.patient_mentions import TITLES, Resolution, find_mentions, name_words

__all__ = ["PatientRegistry"]

_MIN_FUZZY_LETTERS = 4
_MIN_TWO_EDIT_LETTERS = 5
_MAX_EDITS = 2
_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})

_Ids = tuple[int, ...]


def _name_parts(name: str, words_of: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
    """A registry name as whitespace-separated parts of folded words, given names first, without titles or
    generational suffixes. ``"Henry, Betty"`` is read as ``Betty Henry``. ``words_of`` caches parts already seen."""
    if "," in name:
        surname, _, given = name.partition(",")
        name = f"{given} {surname}"
    parts: list[tuple[str, ...]] = []
    for raw in name.split():
        part = words_of.get(raw)
        if part is None:
            part = words_of[raw] = name_words(raw)
        if part:
            parts.append(part)
    while len(parts) > 1 and len(parts[0]) == 1 and parts[0][0] in TITLES:
        parts.pop(0)
    while len(parts) > 1 and len(parts[-1]) == 1 and parts[-1][0] in _NAME_SUFFIXES:
        parts.pop()
    return parts


def _edit_budget(word: str) -> int:
    """How many edits a name word may be from a registry word and still be taken for it (misspelt or near)."""
    return _MAX_EDITS if len(word) >= _MIN_TWO_EDIT_LETTERS else 1


def _near_words(word: str, choices: Sequence[str]) -> dict[str, int]:
    """The ``choices`` within ``word``'s edit budget (``word`` itself included, at 0), with their optimal string
    alignment distance (Damerau-Levenshtein without editing a substring twice)."""
    found = process.extract(word, choices, scorer=OSA.distance, score_cutoff=_edit_budget(word), limit=None)
    return {choice: int(distance) for choice, distance, _ in found}


def _frozen(index: dict[tuple[str, ...], list[int]]) -> dict[tuple[str, ...], _Ids]:
    return {key: tuple(ids) for key, ids in index.items()}


class PatientRegistry:
    """One leaf's patients, indexed for resolving the names and identifiers a question mentions.

    Building only fills dictionaries (full names, surnames, first names and subject_ids); spaCy is loaded on the
    first ``resolve`` that detects persons. Rows with no name can still be named by subject_id. A one-word name
    can only be matched as a surname. The lookups (`with_name`, `near_name`, ...) take folded words
    (`clinrag.retrieve.patient_mentions.fold`) and answer `clinrag.retrieve.patient_mentions.NameLookup`.

    Example:
        >>> registry = PatientRegistry([(1, "Betty Henry"), (2, "José O'Brien"), (3, None)])
        >>> len(registry), registry.resolve("Is jose obrien on heparin?", detect_persons=False).subject_ids
        (3, frozenset({2}))
    """

    def __init__(self, patients: Iterable[tuple[int, str | None]]) -> None:
        self._ids: set[int] = set()
        full: dict[tuple[str, ...], list[int]] = {}
        surnames: dict[tuple[str, ...], list[int]] = {}
        firsts: dict[tuple[str, ...], list[int]] = {}
        pairs: dict[tuple[str, ...], list[int]] = {}
        self._vocab: set[str] = set()
        self._max_full = self._max_surname = self._max_given = 0
        words_of: dict[str, tuple[str, ...]] = {}
        self._names: dict[int, str] = {}
        for subject_id, name in patients:
            self._ids.add(subject_id)
            if name and name.strip():
                self._names.setdefault(subject_id, " ".join(name.split()))
            parts = _name_parts(name, words_of) if name else []
            if not parts:
                continue
            surname = parts[-1]
            surnames.setdefault(surname, []).append(subject_id)
            self._max_surname = max(self._max_surname, len(surname))
            if len(parts) == 1:
                self._vocab.update(surname)
                continue
            words = parts[0] + parts[1] if len(parts) == 2 else tuple(word for part in parts for word in part)
            self._vocab.update(words)
            full.setdefault(words, []).append(subject_id)
            firsts.setdefault(parts[0], []).append(subject_id)
            self._max_full = max(self._max_full, len(words))
            self._max_given = max(self._max_given, len(words) - len(surname))
            if len(words) == 2 and min(len(words[0]), len(words[1])) >= _MIN_FUZZY_LETTERS:
                pairs.setdefault(words, []).append(subject_id)
        self._full, self._surnames, self._firsts, self._pairs = map(_frozen, (full, surnames, firsts, pairs))
        # The given names and surnames of two-word names, each once: what a misspelt name is compared with.
        self._pair_firsts = tuple(dict.fromkeys(key[0] for key in pairs))
        self._pair_lasts = tuple(dict.fromkeys(key[1] for key in pairs))

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"PatientRegistry({len(self)} patients)"

    def name(self, subject_id: int) -> str:
        """The patient's name as registered (``patient SUBJECT_ID`` when it has none).

        Example:
            >>> PatientRegistry([(1, "Betty  Henry"), (2, None)]).name(1), PatientRegistry([(2, None)]).name(2)
            ('Betty Henry', 'patient 2')
        """
        return self._names.get(subject_id) or f"patient {subject_id}"

    def resolve(self, question: str, *, detect_persons: bool = True) -> Resolution:
        """The registry patients ``question`` names, and the people it names that this registry does not know
        (`clinrag.retrieve.patient_mentions.find_mentions`).

        ``detect_persons=False`` skips spaCy: unknown people are then only those found by rule (an unknown
        identifier, a title before an unknown name, a name that runs on past a registry name).

        Example:
            >>> registry = PatientRegistry([(10000032, "Betty Henry")])
            >>> registry.resolve("What was BETTY HENRY discharged on?", detect_persons=False).subject_ids
            frozenset({10000032})
            >>> registry.resolve("What are common causes of hyponatremia?").names_patients
            False
        """
        return find_mentions(question, self, detect_persons=detect_persons)

    # Lookups (clinrag.retrieve.patient_mentions.NameLookup).

    @property
    def name_words(self) -> Set[str]:
        """Every folded word of every registered name.

        Example:
            >>> sorted(PatientRegistry([(1, "Betty Henry"), (2, "Cher")]).name_words)
            ['betty', 'cher', 'henry']
        """
        return self._vocab

    @property
    def max_name_words(self) -> int:
        """The most words a registered full name (of two parts or more) has.

        Example:
            >>> PatientRegistry([(1, "Mary Ann Smith-Jones"), (2, "Cher")]).max_name_words
            4
        """
        return self._max_full

    @property
    def max_surname_words(self) -> int:
        """The most words a registered surname has.

        Example:
            >>> PatientRegistry([(1, "Mary Ann Smith-Jones")]).max_surname_words
            2
        """
        return self._max_surname

    @property
    def max_given_words(self) -> int:
        """The most words the given names of a registered full name have.

        Example:
            >>> PatientRegistry([(1, "Mary Ann Smith-Jones")]).max_given_words
            2
        """
        return self._max_given

    def knows(self, subject_id: int) -> bool:
        """Whether ``subject_id`` is registered, with or without a name.

        Example:
            >>> PatientRegistry([(7, None)]).knows(7), PatientRegistry([(7, None)]).knows(8)
            (True, False)
        """
        return subject_id in self._ids

    def with_name(self, words: tuple[str, ...]) -> _Ids:
        """The patients whose full name, given names then surname, is ``words`` (folded); ``()`` when none.

        Example:
            >>> PatientRegistry([(1, "Henry, Betty"), (2, "Betty Henry")]).with_name(("betty", "henry"))
            (1, 2)
        """
        return self._full.get(words, ())

    def with_surname(self, words: tuple[str, ...]) -> _Ids:
        """The patients whose surname is ``words`` (folded; a one-word name is a surname); ``()`` when none.

        Example:
            >>> PatientRegistry([(1, "Betty Henry"), (2, "Henry")]).with_surname(("henry",))
            (1, 2)
        """
        return self._surnames.get(words, ())

    def with_given(self, words: tuple[str, ...]) -> _Ids:
        """The patients whose given names are ``words`` (folded); ``()`` when none.

        Example:
            >>> PatientRegistry([(1, "Betty Henry"), (2, "Henry")]).with_given(("henry",))
            ()
        """
        return self._firsts.get(words, ())

    def near_name(self, given: str, surname: str) -> set[int]:
        """The patients whose two-word name is one or two edits from ``given surname`` (folded), never the name
        itself: at most two edits in all, and two in one word only when it has five letters or more. Both words,
        and the registered ones, have at least four letters.

        Example:
            >>> registry = PatientRegistry([(1, "Tracie Edwards"), (2, "Betty Henry")])
            >>> registry.near_name("tracy", "edwards"), registry.near_name("bety", "henry")
            ({1}, {2})
            >>> registry.near_name("tracie", "edwards"), registry.near_name("zelda", "edwards")
            (set(), set())
        """
        if not self._pairs or min(len(given), len(surname)) < _MIN_FUZZY_LETTERS:
            return set()
        givens = _near_words(given, self._pair_firsts)
        surnames = _near_words(surname, self._pair_lasts)
        ids: set[int] = set()
        for near_given, given_edits in givens.items():
            for near_surname, surname_edits in surnames.items():
                if 0 < given_edits + surname_edits <= _MAX_EDITS:
                    ids.update(self._pairs.get((near_given, near_surname), ()))
        return ids

    def near_surname(self, word: str) -> set[int]:
        """The patients with a surname one edit from ``word`` (folded), or two when it has five letters or more,
        never ``word`` itself; the surnames compared are those of two-word names of four letters or more a word.

        Example:
            >>> PatientRegistry([(1, "Tracie Edwards"), (2, "Edwards")]).near_surname("edwarts")
            {1, 2}
        """
        if not self._pairs:
            return set()
        near = _near_words(word, self._pair_lasts)
        return {sid for surname, edits in near.items() if edits for sid in self._surnames.get((surname,), ())}
