"""One small error tree. Messages are safe to show to users and to log: ids, files and fields, never note text.

Errors are raised inside the library and translated once at the edge (CLI exit codes, HTTP statuses).

Example:
    >>> str(MissingColumnError("hosp/admissions.csv", "hadm_id"))
    "hosp/admissions.csv: required column 'hadm_id' is missing"
"""

from __future__ import annotations


class ClinragError(Exception):
    """Base of every error clinrag raises on purpose. ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class ConfigError(ClinragError):
    """Settings or configuration files are invalid."""

    exit_code = 2


class InputError(ClinragError):
    """Input data cannot be used as a whole (a missing file or column)."""

    exit_code = 3


class MissingFileError(InputError):
    """A required input file is absent; names every path that was tried."""

    def __init__(self, table: str, tried: list[str]) -> None:
        self.table = table
        self.tried = tried
        super().__init__(f"required table '{table}' not found; looked for: {', '.join(tried)}")


class MissingColumnError(InputError):
    """A required column is absent from a file's header."""

    def __init__(self, path: str, column: str) -> None:
        self.path = path
        self.column = column
        super().__init__(f"{path}: required column '{column}' is missing")


class StoreError(ClinragError):
    """A data store could not be opened, read or written."""

    exit_code = 4


class MissingDependencyError(ClinragError):
    """An optional part is not installed; the message names the exact install command."""

    def __init__(self, feature: str, extra: str) -> None:
        self.feature = feature
        self.extra = extra
        super().__init__(f"{feature} needs an optional dependency: pip install 'clinrag[{extra}]'")


class GenerationError(ClinragError):
    """A model refused or failed a request (for example, a prompt longer than the context window)."""

    exit_code = 5


class AuthenticationError(ClinragError):
    """A bearer token is missing, malformed, forged, expired, for another audience or from an untrusted issuer.

    The message says which check failed, never what the token contained.
    """

    exit_code = 6


class FederationError(ClinragError):
    """A federation node or its configuration cannot be used (bad tree, unknown leaf, incompatible embedder)."""

    exit_code = 7


class FetchError(ClinragError):
    """A remote service (NCBI E-utilities) failed after its retries, or replied with something unusable.

    The message names the URL without credentials (no api_key, no email) and the HTTP status.
    """

    exit_code = 8
