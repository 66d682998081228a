"""Spoken, regional and texting English read as the standard words it stands for, before a question is read.

"Whit wis wrang wi Ada Stone when they let her oot?" asks what "What was wrong with Ada Stone when they let her
out?" asks; left as written, "wrang" and "oot" would be things no record names and the answer would abstain. Two
sources of readings:

- a table of words (``spoken_words.toml``, data): Scots, Irish and British, Australian, American, texting and
  other regional words that name no clinical thing and no common name ("afore", "bide", "arvo", "gonna", "b4");
- two spelling rules, checked against ``wordfreq``: "-shun" written for "-tion" in a word English hardly knows
  ("operashun", "complicashun"), and a dropped final g ("stayin", "takin") where the word with its g is far more
  common than the word as written.

Only words typed in lower case (or a capitalised first word) are read, so a name written with a capital is never
changed; clinical words, drug names and any word English knows well are left as written, and the spelling rules
leave a census given name or surname alone ("darin", "hardin").

Example:
    >>> written_form("whit pills wis she takin afore aw this?")[0]
    'what pills was she taking before all this?'
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import Final

from pydantic import BaseModel, ConfigDict

from clinrag.retrieve.patient_mentions import census_surnames, given_names
from clinrag.retrieve.vocabulary import RARE_ZIPF, clinical_words, drug_names, zipf

_WORD: Final = re.compile(r"(?<![\w'’/-])[A-Za-z0-9][A-Za-z0-9'’]*(?![\w'’/-])")
_DROPPED_G_MIN_LENGTH: Final = 5
_DROPPED_G_GAIN: Final = 1.5
"""How much more common (Zipf) the word with its final g must be than the word as written: "takin" (an animal,
3.2) is "taking" (5.6); "bin" is no "bing"."""


class _SpokenFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    words: dict[str, dict[str, str]]
    particles: list[str]


@functools.cache
def _spoken_file() -> _SpokenFile:
    """``spoken_words.toml``, read and validated once."""
    text = resources.files("clinrag.retrieve").joinpath("spoken_words.toml").read_text(encoding="utf-8")
    return _SpokenFile.model_validate(tomllib.loads(text))


@functools.cache
def spoken_words() -> Mapping[str, str]:
    """Every spoken or regional word of ``spoken_words.toml`` and the standard words it stands for.

    Example:
        >>> spoken_words()["afore"], spoken_words()["arvo"]
        ('before', 'afternoon')
    """
    groups = _spoken_file().words
    table = {word.lower(): meaning for group in groups.values() for word, meaning in group.items()}
    return MappingProxyType(table)


@functools.cache
def _capitalised() -> frozenset[str]:
    """The words the file writes with a capital ("Hausarzt"): German nouns, read as written mid-sentence too; no
    other capitalised word is touched (it may be a name)."""
    return frozenset(word for group in _spoken_file().words.values() for word in group if word[:1].isupper())


@functools.cache
def _particles() -> re.Pattern[str]:
    """The file's particles of politeness or emphasis, in lower case, where they close a clause ("how many times
    po?", "can or not lah."): read as nothing. "PO" in capitals (by mouth) and "po" before a word are left."""
    words = _spoken_file().particles
    return re.compile(rf"[ \t]+({'|'.join(map(re.escape, words))})(?=[ \t]*(?:[,.?!;:]|$))")


@functools.cache
def _by_rule(word: str) -> str | None:
    """The standard word a rare lower-case ``word`` spells as it is said ("operashun", "stayin"), if any."""
    if not word.isalpha() or word in clinical_words() or word in drug_names():
        return None
    if word in given_names() or word in census_surnames():  # "darin smith", "erin hardin": names typed small
        return None
    if word.endswith("shun") and zipf(word) < RARE_ZIPF and zipf(standard := word[:-4] + "tion") >= RARE_ZIPF:
        return standard
    if word.endswith("in") and len(word) >= _DROPPED_G_MIN_LENGTH:
        standard = word + "g"
        if zipf(standard) >= RARE_ZIPF and zipf(standard) - zipf(word) >= _DROPPED_G_GAIN:
            return standard
    return None


def written_form(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with spoken and regional words replaced by the standard words they stand for, and the
    ``(written, read as)`` pairs.

    Example:
        >>> written_form("Does Ada Stone bide on her ain?")
        ('Does Ada Stone live on her own?', (('bide', 'live'), ('ain', 'own')))
    """
    found: list[tuple[str, str]] = []
    table = spoken_words()

    def read(match: re.Match[str]) -> str:
        written = match.group(0)
        before = text[: match.start()].rstrip(" \t\n\"'“(")
        opening = not before or before.endswith((".", "?", "!"))  # a sentence's first word is capitalised anyway
        capital_allowed = (opening and written[:1].isupper() and written[1:].islower()) or written in _capitalised()
        if not (written.islower() or capital_allowed):
            return written  # a capital mid-sentence: maybe a name
        lowered = " ".join(written.lower().replace("’", "'").split())
        plain = lowered.rstrip("'")  # "livin'", "wi'": the letters the apostrophe marks
        standard = table.get(lowered) or table.get(plain) or _by_rule(plain)
        if standard is None and lowered.startswith("t'") and lowered[2:].isalpha():
            standard = "the " + lowered[2:]  # Yorkshire "t'keyhole"
        if standard is None:
            return written
        found.append((written, standard))
        # a German noun mid-sentence stays lower case in English: "our Hausarzt" is "our family doctor"
        capitalised = written[0].isupper() and (opening or written not in _capitalised())
        return standard.capitalize() if capitalised else standard

    def drop(match: re.Match[str]) -> str:
        found.append((match.group(1), ""))
        return ""

    without_particles = _particles().sub(drop, text)
    return _spoken_pattern().sub(read, without_particles), tuple(found)


@functools.cache
def _spoken_pattern() -> re.Pattern[str]:
    """The table's phrases, hyphened words and words with letters beyond ASCII ("remédios"), longest first (so "a
    yard" is read before "a"), then any other word."""
    whole = (key for key in spoken_words() if " " in key or "-" in key or not key.isascii())
    phrases = sorted(whole, key=len, reverse=True)
    spelled = [r"\s+".join(re.escape(part) for part in phrase.split()) for phrase in phrases]
    return re.compile(rf"(?<![\w'’/-])(?:{'|'.join(spelled)})(?![\w'’/-])|{_WORD.pattern}", re.IGNORECASE)
