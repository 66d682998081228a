"""The demo federation's files: a node config per hospital and for the library, a copy of its policies it may edit,
and the federation file that lists every node and identity provider (what `clinrag ask --as` reads).

The library (``LIB``) has no identity provider of its own: its node trusts the three hospitals' providers, so every
demo user's token is verified there, and its port is the one after the hospitals' nodes.

Example:
    >>> files = write_federation(Path("data/demo"), DemoPorts())  # doctest: +SKIP
    >>> files.federation.name
    'federation.toml'
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.access.demo import DEMO_TREES, POLICY_ROOT
from clinrag.demo.library import LIBRARY_LEAVES, LIBRARY_NAME, LIBRARY_ORG
from clinrag.ingest.synthetic.hospitals import CASE_STUDY

HOST = "127.0.0.1"


@dataclass(frozen=True)
class DemoPorts:
    """Loopback ports of the demo: identity providers from ``idp``, nodes from ``node`` (A, B, C in order), and
    the web app on ``web``."""

    idp: int = 9401
    node: int = 8101
    web: int = 8300

    @property
    def web_url(self) -> str:
        """The web app's URL."""
        return f"http://{HOST}:{self.web}"

    def idp_port(self, org: str) -> int:
        """The port of ``org``'s identity provider."""
        return self.idp + sorted(DEMO_TREES).index(org)

    def node_port(self, org: str) -> int:
        """The port of ``org``'s node (the library's comes after the hospitals')."""
        if org == LIBRARY_ORG:
            return self.node + len(DEMO_TREES)
        return self.node + sorted(DEMO_TREES).index(org)

    def issuer(self, org: str) -> str:
        """``org``'s issuer URL."""
        return f"http://{HOST}:{self.idp_port(org)}"

    def node_url(self, org: str) -> str:
        """``org``'s node URL."""
        return f"http://{HOST}:{self.node_port(org)}"


@dataclass
class FederationFiles:
    """Where the demo federation's files are."""

    folder: Path
    federation: Path
    nodes: dict[str, Path] = field(default_factory=dict)
    """Each hospital's node config."""
    library: Path | None = None
    """The library node's config, when the demo built the library."""


def write_federation(out: Path, ports: DemoPorts) -> FederationFiles:
    """Write ``out/federation/``: policies, ``A.toml`` … and ``federation.toml``; overwrites earlier demo files."""
    folder = out / "federation"
    folder.mkdir(parents=True, exist_ok=True)
    files = FederationFiles(folder, folder / "federation.toml")
    issuers = "".join(f'\n[[issuers]]\nissuer = "{ports.issuer(org)}"\norg = "{org}"\n' for org in sorted(DEMO_TREES))
    for org, leaves in DEMO_TREES.items():
        # A department with no records yet has no index: it joins the tree once it has (rerun clinrag demo).
        built = [leaf for leaf in leaves if (out / "nodes" / org / "index" / leaf).is_dir()]
        about = f"Hospital {org}'s node (written by clinrag demo). Paths are relative to this file."
        files.nodes[org] = _node(folder, org, CASE_STUDY[org].name, built, ports, issuers, about)
    library = out / "nodes" / LIBRARY_ORG
    built = [leaf for leaf in LIBRARY_LEAVES if (library / "index" / leaf).is_dir()]
    if built:
        about = "The library's node (written by clinrag demo): every hospital's users may ask it."
        files.library = _node(folder, LIBRARY_ORG, LIBRARY_NAME, built, ports, issuers, about)
    orgs = "".join(
        f'\n[[orgs]]\norg = "{org}"\nname = "{CASE_STUDY[org].name}"\nurl = "{ports.node_url(org)}"\n'
        f'issuer = "{ports.issuer(org)}"\n'
        for org in sorted(DEMO_TREES)
    )
    if files.library is not None:
        orgs += (
            f'\n[[orgs]]\norg = "{LIBRARY_ORG}"\nname = "{LIBRARY_NAME}"\nurl = "{ports.node_url(LIBRARY_ORG)}"\n'
            'kind = "library"\n'
        )
    files.federation.write_text("# The demo federation (written by clinrag demo).\n" + orgs)
    return files


def _node(folder: Path, org: str, name: str, leaves: list[str], ports: DemoPorts, issuers: str, about: str) -> Path:
    """Write ``org``'s node config (``about``: its first line, a comment) over the indexes of ``leaves``, and its copy
    of ``org``'s demo policies; returns the config's path."""
    policies = folder / "policies" / org
    if policies.exists():
        shutil.rmtree(policies)
    shutil.copytree(POLICY_ROOT / org, policies)
    children = "".join(f'\n[[tree.children]]\nname = "{leaf}"\nstore = "index/{leaf}"\n' for leaf in leaves)
    config = folder / f"{org}.toml"
    config.write_text(
        f"# {about}\n"
        f'[node]\norg = "{org}"\nname = "{name}"\ndata = "../nodes/{org}"\n'
        f'policies = "policies/{org}"\naudit_log = "../audit/{org}.jsonl"\naudience = "clinrag"\n'
        f'host = "{HOST}"\nport = {ports.node_port(org)}\n{issuers}\n[tree]\nname = "{org}"\n{children}'
    )
    return config
