r"""The wordings of the held-out answer benchmark's templated splits, kept as data: one TOML file a split under
``data/heldout/`` (``dev_test.toml`` the first split's families, ``test2.toml`` … the blind splits'), read and
checked here. A file that does not fit its model is refused with an error naming the file and the field.

Placeholders a template may use: ``{name}`` (the full name, "Ada Stone"), ``{poss}`` (its possessive, "Ada Stone's"),
``{listed}`` (as a patient list shows it, "Stone, Ada") and ``{lower}`` ("ada stone") in the families; ``{name}``,
``{poss}`` and ``{topic}`` in negative templates; ``{name}`` and ``{drug}`` in noise templates; ``{name}`` and
``{poss}`` in unseen and wrong-name templates.

Example:
    >>> families = load_families("dev_test")
    >>> families["allergy"]["direct"]
    ('Is {name} allergic to anything?', 'What allergies does {name} have?')
    >>> load_blind_split("test2").invented_first_names[:2]
    ('Percival', 'Ottilie')
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "bad.toml").write_text('[families.allergy]\nx = ["{nam} allergies?"]\n')
    >>> load_families("bad", folder)  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    clinrag.evaluate.heldout_wordings.HeldoutDataError: .../bad.toml: families.allergy.x.0: Value error, placeholder
    {nam} is not one of {name}, {poss}, {listed}, {lower}: '{nam} allergies?'
"""

from __future__ import annotations

import functools
import string
import tomllib
from collections.abc import Sized
from pathlib import Path
from typing import Annotated, Final, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

_Model = TypeVar("_Model", bound=BaseModel)
_Sized = TypeVar("_Sized", bound=Sized)

HELDOUT_DATA: Final = Path(__file__).with_name("data") / "heldout"
"""The folder of the split files."""


class HeldoutDataError(ValueError):
    """A split file that cannot be read or does not fit its model; the message names the file and the field."""


def _placeholders(*allowed: str) -> AfterValidator:
    def check(template: str) -> str:
        if not template.strip():
            raise ValueError("a template must not be empty")
        try:
            used = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
        except ValueError as error:
            raise ValueError(f"not a format string ({error}): {template!r}") from None
        unknown = sorted(used - set(allowed))
        if unknown:
            wanted = ", ".join("{" + name + "}" for name in allowed)
            raise ValueError(f"placeholder {{{unknown[0]}}} is not one of {wanted}: {template!r}")
        return template

    return AfterValidator(check)


def _not_empty(items: _Sized) -> _Sized:
    if not items:
        raise ValueError("must not be empty")
    return items


_some: Final = AfterValidator(_not_empty)
_Words = Annotated[tuple[Annotated[str, Field(min_length=1)], ...], _some]
_Templates = Annotated[tuple[Annotated[str, _placeholders("name", "poss", "listed", "lower")], ...], _some]
_Negative = Annotated[tuple[Annotated[str, _placeholders("name", "poss", "topic")], ...], _some]
_Noise = Annotated[tuple[Annotated[str, _placeholders("name", "drug")], ...], _some]
_Named = Annotated[tuple[Annotated[str, _placeholders("name", "poss")], ...], _some]


class Families(BaseModel):
    """A file holding phrasing families only (the first split's, whose dev and test halves
    :func:`clinrag.evaluate.heldout_questions.split_of` assigns)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    families: Annotated[dict[str, Annotated[dict[str, _Templates], _some]], _some]
    """Intent → family → templates, in the order written."""


class BlindWordings(Families):
    """A blind split's file: its phrasing families and its must-abstain wordings."""

    absent_topics: _Words
    """Tests and treatments a must-abstain question asks about; those a note of the node mentions are left out."""
    negative_templates: _Negative
    absent_drugs: _Words
    """Drugs a must-abstain question asks about; those a note of the node mentions are left out."""
    noise_templates: _Noise
    unseen_templates: _Named
    """For patients of the other hospitals only."""
    wrong_name_templates: _Named
    """For a real surname with an invented first name."""
    invented_first_names: _Words


def _read(split: str, model: type[_Model], folder: Path) -> _Model:
    path = folder / f"{split}.toml"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise HeldoutDataError(f"{path}: {error}") from error
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or '(top level)'}: {problem['msg']}"
            for problem in error.errors(include_url=False)
        )
        raise HeldoutDataError(f"{path}: {problems}") from error


@functools.cache
def load_families(split: str, folder: Path = HELDOUT_DATA) -> dict[str, dict[str, tuple[str, ...]]]:
    """The phrasing families of the file ``<split>.toml`` (intent → family → templates, in file order)."""
    return _read(split, Families, folder).families


@functools.cache
def load_blind_split(split: str, folder: Path = HELDOUT_DATA) -> BlindWordings:
    """The wordings of the blind split ``split`` (the file ``<split>.toml``)."""
    return _read(split, BlindWordings, folder)
