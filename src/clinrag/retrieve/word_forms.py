"""Whether a record mentions a word of a question in another form: "voiding" in "unable to void", "urine" in
"urinary retention", "appendicectomy" (British) in "appendectomy", "bowels" in "bowel function".

BM25 tokens fold only plurals and possessives (:func:`clinrag.index.lexical.tokenize`); asking whether a record
names what a question names needs the word's other forms too. A word's forms are matched by its Snowball stem
(NLTK's, pure code, no data), after British spellings are folded to American ones, or by a shared beginning as long
as the shorter word less one letter, the longer one going at most three letters on ("urine" ~ "urinary", not
"colon" ~ "colonoscopy").

Example:
    >>> same_word("voiding", "void"), same_word("appendicectomy", "appendectomy"), same_word("urine", "renal")
    (True, True, False)
    >>> sorted(forms_mentioned({"urine", "stoma"}, {"urinary", "retention"}))
    ['urine']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from nltk.stem.snowball import SnowballStemmer

_STEMMER: Final = SnowballStemmer("english")
_BRITISH: Final = ((re.compile(r"icectomy$"), "ectomy"), (re.compile(r"(?<=[a-z])ae(?=[a-z])"), "e"),
                   (re.compile(r"(?<=[a-z])oe(?=[a-z])"), "e"))  # fmt: skip
_SHORTEST_PREFIX: Final = 4
"""A shared beginning shorter than this never makes two words one ("uri", "ren")."""
_LONGEST_TAIL: Final = 3
"""Nor does one that leaves more of the longer word than this: "colon" is not "colonoscopy"."""


@functools.cache
def stem(word: str) -> str:
    """The Snowball stem of a (lower-case) word, British spellings read as American.

    Example:
        >>> stem("haemorrhages") == stem("hemorrhage")
        True
    """
    for pattern, american in _BRITISH:
        word = pattern.sub(american, word)
    return str(_STEMMER.stem(word))


def same_word(first: str, second: str) -> bool:
    """Whether two (lower-case) tokens are forms of one word (see the module docstring).

    Example:
        >>> same_word("bowels", "bowel"), same_word("stent", "stenosis")
        (True, False)
    """
    if first == second:
        return True
    if not (first.isalpha() and second.isalpha()):
        return False
    if stem(first) == stem(second):
        return True
    shorter, longer = sorted((len(first), len(second)))
    shared = len(_common_prefix(first, second))
    return (
        shorter > _SHORTEST_PREFIX and shared >= max(_SHORTEST_PREFIX, shorter - 1) and longer - shared <= _LONGEST_TAIL
    )


def forms_mentioned(words: Iterable[str], mentioned: Iterable[str]) -> frozenset[str]:
    """The ``words`` that one of the ``mentioned`` tokens is a form of.

    Example:
        >>> sorted(forms_mentioned({"voiding", "mesh"}, {"unable", "void"}))
        ['voiding']
    """
    present = set(mentioned)
    return frozenset(word for word in words if word in present or any(same_word(word, m) for m in present))


def _common_prefix(first: str, second: str) -> str:
    length = 0
    for left, right in zip(first, second, strict=False):
        if left != right:
            break
        length += 1
    return first[:length]
