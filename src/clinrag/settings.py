"""One `Settings` object, passed explicitly. Values come from, in rising priority: defaults, ``clinrag.toml``,
``CLINRAG_*`` environment variables (nested with ``__``, e.g. ``CLINRAG_INGEST__CHUNK_MAX_CHARS=600``), and
overrides given by the caller (the CLI's options). `load_settings` also says where every value came from.

Example:
    >>> loaded = load_settings(config_file=None, overrides={"ingest": {"chunk_max_chars": 600}}, environ={})
    >>> loaded.settings.ingest.chunk_max_chars, loaded.sources["ingest.chunk_max_chars"]
    (600, 'override')
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from clinrag.errors import ConfigError
from clinrag.plugins import EMBEDDERS, GENERATORS, STORES, plugin_names

CONFIG_ENV = "CLINRAG_CONFIG"
DEFAULT_CONFIG_NAME = "clinrag.toml"


BUILT_IN_EMBEDDERS: tuple[str, ...] = ("minilm-onnx", "sentence-transformers", "openai")
"""Embedders clinrag ships; plugins add others (`clinrag.plugins`)."""

BUILT_IN_GENERATORS: tuple[str, ...] = ("extractive", "local", "openai")
"""Generators clinrag ships; plugins add others."""

BUILT_IN_STORES: tuple[str, ...] = ("edge", "server")
"""Vector store backends clinrag ships; plugins add others."""


def _known(name: str, built_in: tuple[str, ...], group: str) -> str:
    """``name`` when it is built in or an installed plugin's; otherwise a ValueError listing the choices, or saying
    that a plugin takes a built-in name (which `clinrag.plugins` refuses)."""
    plugins = plugin_names(group)
    if name in built_in and name in plugins:
        raise ValueError(
            f"{name!r} is built in, and an installed package also registers a plugin of that name under {group}: "
            "a plugin may not take a built-in name; rename the plugin"
        )
    if name in built_in or name in plugins:
        return name
    choices = ", ".join((*built_in, *plugins))
    raise ValueError(f"unknown {name!r}: one of {choices} (or a plugin registered under {group})")


def _plugin_name(built_in: tuple[str, ...], group: str) -> AfterValidator:
    """Checks a setting that names a backend: one of ``built_in`` or a plugin installed under ``group`` (`_known`)."""
    return AfterValidator(lambda name: _known(name, built_in, group))


EmbedderName = Annotated[str, _plugin_name(BUILT_IN_EMBEDDERS, EMBEDDERS)]
GeneratorName = Annotated[str, _plugin_name(BUILT_IN_GENERATORS, GENERATORS)]
StoreName = Annotated[str, _plugin_name(BUILT_IN_STORES, STORES)]


class Group(BaseModel):
    """Base of a settings group: unknown keys are errors, so typos in clinrag.toml are caught."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PathSettings(Group):
    """Where clinrag keeps its data and caches."""

    data_dir: Path = Field(Path("data"), description="Root folder for chunk stores, indexes and generated cohorts.")
    cache_dir: Path = Field(
        Path.home() / ".cache" / "clinrag", description="Cache for assembled model files and other derived artefacts."
    )


class SynthSettings(Group):
    """The synthetic cohort generator (`clinrag synth`)."""

    patients: int = Field(300, ge=10, le=100_000, description="Number of patients to generate.")
    seed: int = Field(42, description="Random seed; the same seed gives byte-identical files.")
    workers: int = Field(0, ge=0, le=64, description="Worker processes for generation (0: one per CPU core).")
    start_year: int = Field(2012, ge=1900, le=2100, description="Earliest admission year.")
    end_year: int = Field(2024, ge=1900, le=2100, description="Latest admission year.")


class IngestSettings(Group):
    """Turning MIMIC-IV files into chunks (`clinrag ingest`)."""

    chunk_max_chars: int = Field(
        800, ge=100, le=20_000, description="Longest chunk body in characters; sentences are never split below it."
    )
    name_prefix_notes: bool = Field(
        True, description="Index note chunks with the prefix 'For patient with name of NAME: ' when a name is known."
    )
    name_prefix_rows: bool = Field(False, description="Index structured-row chunks with the same name prefix.")
    name_prefix_template: str = Field(
        "For patient with name of {name}: ", description="The prefix; {name} is the patient's full name."
    )
    tables: tuple[str, ...] = Field(
        ("admissions", "diagnoses_icd", "procedures_icd", "prescriptions"),
        description="Structured tables that become one chunk per row.",
    )
    batch_size: int = Field(
        500, ge=1, le=100_000, description="Sources written per transaction (smaller: less work lost on a crash)."
    )


class IndexSettings(Group):
    """Embedding and the vector + BM25 store (`clinrag index`)."""

    embedder: EmbedderName = Field(
        "minilm-onnx",
        description="Embedding model: minilm-onnx (the bundled int8 ONNX MiniLM), sentence-transformers (a local model "
        "dir), openai (a server), or the name of an installed plugin (entry point group clinrag.embedders).",
    )
    model_dir: Path | None = Field(
        None, description="sentence-transformers model directory (embedder=sentence-transformers)."
    )
    openai_base_url: str = Field("http://127.0.0.1:8080/v1", description="OpenAI-compatible embeddings server URL.")
    openai_model: str = Field("all-MiniLM-L6-v2", description="Model name on the embeddings server.")
    openai_api_key: str = Field("none", description="API key for the embeddings server.")
    openai_dimension: int = Field(384, ge=1, description="Vector size the embeddings server returns.")
    onnx_compute: Literal["int8", "fp32"] = Field(
        "int8",
        description="How the bundled MiniLM computes: int8 (about 40 % less CPU; cosine 0.99 to fp32) or fp32 "
        "(the packaged model as is). They make different vectors: an index is queried with the one it was built with.",
    )
    threads: int = Field(2, ge=1, le=64, description="ONNX Runtime threads for embedding.")
    batch_size: int = Field(
        16, ge=1, le=1024, description="Texts per embedding batch (fp32 compute; int8 runs each text alone)."
    )
    backend: StoreName = Field(
        "edge",
        description="edge: embedded Qdrant Edge shard on disk; server: a Qdrant server via qdrant-client; or the name "
        "of an installed plugin (entry point group clinrag.stores).",
    )
    qdrant_url: str | None = Field(None, description="Qdrant server URL (backend=server); unset: local mode on disk.")
    qdrant_api_key: str | None = Field(None, description="Qdrant server API key (backend=server).")
    qdrant_shards: int = Field(
        1, ge=1, le=1024, description="Shards of each new leaf collection on a Qdrant cluster (backend=server)."
    )
    qdrant_replicas: int = Field(
        1, ge=1, le=16, description="Copies of each shard on a Qdrant cluster (backend=server; 1: no replica)."
    )


class ScaleSettings(Group):
    """The engine that chunks and embeds (`clinrag ingest` and `clinrag index build`; docs/scaling.md)."""

    engine: Literal["local", "ray"] = Field(
        "local", description="local: this process; ray: a Ray Data pipeline (pip install 'clinrag[scale]')."
    )
    ray_address: str | None = Field(
        None,
        description="Ray cluster to join (ray.init(address=...): 'auto', 'ray://HOST:10001'); unset: RAY_ADDRESS, "
        "else Ray started in this process on this machine.",
    )
    workers: int = Field(2, ge=1, le=4096, description="Embedder actors and chunking tasks that run at once.")
    window: int = Field(
        20_000, ge=1, le=10_000_000, description="Chunks (or notes) handed to Ray per pipeline run; bounds memory."
    )


class RetrieveSettings(Group):
    """Searching (`clinrag search`, and every question)."""

    mode: Literal["dense", "bm25", "hybrid", "hybrid-mmr"] = Field("hybrid", description="Retrieval mode.")
    k: int = Field(10, ge=1, le=200, description="Hits returned.")
    fetch_k: int = Field(50, ge=1, le=2000, description="Candidates fetched per retriever before fusion and MMR.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant.")
    dense_weight: float = Field(1.0, ge=0, description="Weight of the dense ranking in fusion.")
    bm25_weight: float = Field(1.0, ge=0, description="Weight of the BM25 ranking in fusion.")
    section_weight: float = Field(
        1.0,
        ge=0,
        description="Weight in fusion of the extra rankings within the sections the question asks about (0: off).",
    )
    mmr_lambda: float = Field(0.5, ge=0, le=1, description="MMR trade-off: 1 is pure relevance, 0 pure diversity.")
    score_threshold: float | None = Field(
        0.08,
        description="Dense cosine below which a hit does not count; 0.08 keeps 99% of the relevant hits of the "
        "retrieval benchmark (calibration in docs/retrieval.md); -1 keeps every hit.",
    )
    expand_abbreviations: bool = Field(True, description="Expand clinical abbreviations in the BM25 query.")
    resolve_patients: bool = Field(True, description="Restrict to patients named in the question.")
    kind_by_meaning: bool = Field(
        True,
        description="When no phrasing rule says which kind of fact a question asks for, read it from the question's"
        " embedding (nearest example questions of each kind).",
    )
    library_spelling: bool = Field(
        True,
        description="In a library, read misspelt question words as the library's own words (the corrected question "
        "is shown); off: search the words as written (measured in benchmarks/bench_literature_spelling.py).",
    )


class AnswerSettings(Group):
    """Answering questions (`clinrag ask`): the generator, the sources it sees, and how answers are verified."""

    generator: GeneratorName = Field(
        "extractive",
        description="Who writes the answer: extractive (no model), local (llama.cpp GGUF), openai, or the name of an "
        "installed plugin (entry point group clinrag.generators).",
    )
    sources: int = Field(5, ge=1, le=50, description="Retrieved chunks given to the generator as numbered sources.")
    max_tokens: int = Field(256, ge=16, le=4096, description="Longest generated answer, in tokens.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature (0: deterministic).")
    seed: int = Field(0, description="Sampling seed, for repeatable answers.")
    support_threshold: float = Field(
        0.4,
        ge=0,
        le=1,
        description="Support a sentence needs from its cited sources; 0.4 is calibrated (docs/answers.md).",
    )
    semantic_support: bool = Field(
        False,
        description="Also count embedding similarity as support (helps paraphrases; measured to admit more false "
        "support than it recovers, see docs/answers.md).",
    )
    unsupported: Literal["remove", "mark"] = Field(
        "remove", description="What happens to unsupported sentences: removed, or kept and marked as unsupported."
    )
    model_fallback: bool = Field(
        True,
        description="When the model declines or none of its sentences is supported, answer with the extractive "
        "answerer's quoted lines instead (the answer says so); off: abstain.",
    )
    local_model: Literal["qwen-0.5b", "qwen-1.5b"] = Field(
        "qwen-0.5b",
        description="Packaged model of the local generator: qwen-0.5b (extra local-llm, 491 MB) or qwen-1.5b (extra "
        "local-llm-large, 1.1 GB; better reader, about 3x slower), assembled into cache_dir.",
    )
    model_path: Path | None = Field(
        None, description="GGUF file for the local generator (overrides local_model: any GGUF model)."
    )
    context_window: int = Field(4096, ge=512, le=131_072, description="Context window of the local model, in tokens.")
    threads: int = Field(2, ge=1, le=256, description="CPU threads for the local model.")
    openai_base_url: str | None = Field(None, description="Base URL of an OpenAI-compatible chat endpoint.")
    openai_model: str = Field("default", description="Model name sent to the OpenAI-compatible endpoint.")
    openai_api_key: str = Field("none", description="API key for the OpenAI-compatible endpoint.")


class FederationSettings(Group):
    """Asking a federation of hospital nodes (`clinrag ask --as`, `clinrag node serve`)."""

    file: Path = Field(
        Path("data/demo/federation/federation.toml"),
        description="The federation file: each organisation's node URL and identity provider (make demo writes it).",
    )
    timeout: float = Field(
        2.0, gt=0, le=120, description="Seconds to wait for one organisation before answering without it."
    )
    max_response_bytes: int = Field(
        16 * 1024 * 1024, ge=1024, description="Largest reply accepted from a node; a larger one is flagged, not read."
    )
    audience: str = Field("clinrag", description="Token audience every node demands (the OIDC client id).")
    client_id: str = Field("clinrag", description="OIDC client id used to sign in at a hospital's identity provider.")
    token_cache: Path = Field(
        Path.home() / ".cache" / "clinrag" / "tokens", description="Folder of cached sign-in tokens (files are 0600)."
    )
    max_body_bytes: int = Field(
        64 * 1024,
        ge=1024,
        le=64 * 1024 * 1024,
        description="Largest request body a node accepts, counted as it arrives (a larger one gets 413, unread).",
    )
    api_max_body_bytes: int = Field(
        1024 * 1024,
        ge=1024,
        le=64 * 1024 * 1024,
        description="Largest request body the OpenAI-compatible API accepts (a conversation's history; larger: 413).",
    )
    user_rate: float = Field(
        50.0,
        gt=0,
        description="Requests per second a verified user may make to a node or the OpenAI-compatible API, sustained "
        "(token bucket; over it: 429 with Retry-After).",
    )
    user_burst: int = Field(200, ge=1, description="Requests a verified user may make at once above user_rate.")
    client_rate: float = Field(
        10.0,
        gt=0,
        description="Requests per second from one client address whose token is not yet verified (missing, new or "
        "invalid), sustained; a flood of them gets 429 before any token is checked.",
    )
    client_burst: int = Field(100, ge=1, description="Requests with no verified token one address may make at once.")


class WebSettings(Group):
    """The web app (`clinrag web`): where it listens, where it keeps sessions and histories, how it signs in."""

    host: str = Field("127.0.0.1", description="Interface the web app listens on.")
    port: int = Field(8300, ge=1, le=65535, description="Port the web app listens on.")
    database: Path = Field(
        Path("data/web/clinrag-web.sqlite3"),
        description="SQLite file of sessions and conversation histories (created on first start).",
    )
    secret_file: Path = Field(
        Path("data/web/secret.key"),
        description="Key that signs session cookies; created (0600) on first start, kept across restarts.",
    )
    client_secret: str = Field(
        "clinrag-demo", description="OIDC client secret of the web app at the identity providers (demo: any)."
    )
    public_url: str | None = Field(
        None, description="URL users reach the app at (behind a proxy); unset: http://HOST:PORT."
    )
    secure_cookies: bool = Field(False, description="Send cookies only over HTTPS (turn on behind TLS).")
    session_hours: float = Field(
        8.0, gt=0, le=168, description="Hours a sign-in lasts (never longer than the ID token itself)."
    )


class AggregateSettings(Group):
    """Population counts a node lets out: only aggregates, small cells suppressed."""

    min_cell: int = Field(
        5,
        ge=1,
        le=1000,
        description="Smallest count a node reports; counts from 1 to min_cell - 1 are shown as '<min_cell'.",
    )


class PubmedSettings(Group):
    """Fetching PubMed records with NCBI E-utilities (`clinrag pubmed fetch`)."""

    email: str | None = Field(
        None, description="Your email, sent with every E-utilities request as NCBI asks (it writes before blocking)."
    )
    api_key: SecretStr | None = Field(
        None, description="NCBI API key: 10 requests/s instead of 3 (never printed, logged or written to files)."
    )
    tool: str = Field("clinrag", min_length=1, description="Tool name sent with every E-utilities request.")
    base_url: str = Field(
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        description="E-utilities base URL (esearch.fcgi and efetch.fcgi are under it); tests point it at 127.0.0.1.",
    )
    batch: int = Field(500, ge=1, le=10_000, description="Records per efetch request, one gzipped XML file each.")
    window_cap: int = Field(
        10_000,
        ge=1,
        le=10_000,
        description="Most results one date window may hold (E-utilities returns no more than 10,000 per search); "
        "a window holding more is split in halves.",
    )
    max_tries: int = Field(5, ge=1, le=20, description="Attempts per request on HTTP 429, 5xx or a network error.")
    backoff_seconds: float = Field(
        1.0, ge=0, le=60, description="Wait before the first retry, doubled at each further one (or Retry-After)."
    )
    timeout: float = Field(60.0, gt=0, le=600, description="Seconds to wait for one E-utilities reply.")


class Settings(BaseSettings):
    """Every setting of clinrag, in groups. Build it with `load_settings`, then pass it down explicitly."""

    model_config = SettingsConfigDict(env_prefix="CLINRAG_", env_nested_delimiter="__", extra="forbid", frozen=True)

    paths: PathSettings = Field(default_factory=PathSettings, description="Folders.")
    synth: SynthSettings = Field(default_factory=SynthSettings, description="Synthetic cohort.")
    ingest: IngestSettings = Field(default_factory=IngestSettings, description="Ingestion and chunking.")
    index: IndexSettings = Field(default_factory=IndexSettings, description="Embedding and storage.")
    scale: ScaleSettings = Field(default_factory=ScaleSettings, description="Chunking and embedding engine.")
    retrieve: RetrieveSettings = Field(default_factory=RetrieveSettings, description="Searching.")
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="Answering and verification.")
    federation: FederationSettings = Field(default_factory=FederationSettings, description="Federation of nodes.")
    web: WebSettings = Field(default_factory=WebSettings, description="The web app.")
    aggregates: AggregateSettings = Field(
        default_factory=AggregateSettings, description="Population counts leaving a node."
    )
    pubmed: PubmedSettings = Field(default_factory=PubmedSettings, description="Fetching from PubMed.")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Layering (file, environment, overrides) is done by load_settings, which also records provenance.
        return (init_settings,)


@dataclass(frozen=True)
class LoadedSettings:
    """Settings together with the source of every value ("default", a file path, an env variable, "override")."""

    settings: Settings
    sources: dict[str, str]
    config_file: Path | None


def find_config_file(explicit: Path | None, environ: Mapping[str, str]) -> Path | None:
    """The TOML file to read: the explicit path, else ``$CLINRAG_CONFIG``, else ``./clinrag.toml`` if present."""
    if explicit is not None:
        return explicit
    if environ.get(CONFIG_ENV):
        return Path(environ[CONFIG_ENV])
    local = Path(DEFAULT_CONFIG_NAME)
    return local if local.is_file() else None


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadedSettings:
    """Read the file, environment and overrides; validate; say where each value came from.

    Raises `ConfigError` naming the file or variable when a value is invalid.
    """
    env = dict(os.environ if environ is None else environ)
    path = find_config_file(config_file, env)
    from_file = _read_toml(path) if path is not None else {}
    from_env = _read_env(env)
    layers: list[tuple[str, Mapping[str, Any]]] = [
        (str(path), from_file),
        ("env", from_env),
        ("override", overrides or {}),
    ]
    merged: dict[str, Any] = {}
    for _, layer in layers:
        merged = _deep_merge(merged, layer)
    try:
        settings = Settings(**merged)
    except ValidationError as exc:
        where = ", ".join(_describe_error(err, path) for err in exc.errors())
        raise ConfigError(f"invalid settings: {where}") from None
    sources = {key: "default" for key, _ in iter_settings(settings)}
    for name, layer in layers:
        for key, _ in _flatten(layer):
            sources[key] = _env_name(key) if name == "env" else name
    return LoadedSettings(settings=settings, sources=sources, config_file=path)


def iter_settings(settings: Settings) -> Iterator[tuple[str, Any]]:
    """Every leaf setting as (dotted name, value), in declaration order."""
    yield from _flatten(settings.model_dump())


def describe(dotted: str) -> str:
    """The description of a dotted setting name, for ``--help`` and ``clinrag settings``."""
    group_name, _, field_name = dotted.partition(".")
    group = Settings.model_fields[group_name].annotation
    if isinstance(group, type) and issubclass(group, BaseModel) and field_name in group.model_fields:
        return group.model_fields[field_name].description or ""
    return Settings.model_fields[group_name].description or ""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: settings file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def _read_env(environ: Mapping[str, str]) -> dict[str, Any]:
    source = EnvSettingsSource(Settings, case_sensitive=False)
    source.env_vars = {key.lower(): value for key, value in environ.items()}
    try:
        return source()
    except Exception as exc:  # pydantic-settings raises SettingsError for undecodable JSON values
        raise ConfigError(f"invalid CLINRAG_* environment variable: {exc}") from None


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, dotted + ".")
        else:
            yield dotted, value


def _env_name(dotted: str) -> str:
    return "env " + "CLINRAG_" + dotted.upper().replace(".", "__")


def _describe_error(error: Any, path: Path | None) -> str:
    dotted = ".".join(str(part) for part in error["loc"])
    return f"{dotted}: {error['msg']}" + (f" (check {path} and CLINRAG_* variables)" if path else "")
