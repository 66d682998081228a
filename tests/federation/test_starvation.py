"""No starvation: a user allowed to see at least k matching chunks gets k, however many better-scoring chunks
their document policy refuses; and an invalid policy or tree stops a node with a clear message."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from clinrag.access.demo import demo_user
from clinrag.access.policy import PolicyEngine
from clinrag.errors import ConfigError
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node
from clinrag.federation.protocol import RetrieveRequest
from clinrag.federation.tree import NodeTree
from clinrag.settings import RetrieveSettings

from ..shared.federation import EMBEDDER, Federation

# Everyone may search every part of A; documents are retrievable only when they are structured rows.
ROWS_ONLY = """
@id("search-all") permit(principal, action == Action::"search", resource);
@id("rows-only") permit(principal, action == Action::"retrieve", resource) when { resource.source_kind == "row" };
"""


def test_refused_best_hits_do_not_starve_the_user(federation: Federation) -> None:
    tree = federation.nodes["A"].tree
    actor = demo_user("A.phys")
    question = RetrieveRequest(query="hospital course and discharge medications", k=10, fetch_k=10, mode="dense")
    open_outcome = tree.search(actor, question, PolicyEngine.allow_all())
    best = [cid for cid, _ in open_outcome.candidates.lists["dense"]]
    kinds = {cid: open_outcome.candidates.found[cid].chunk.source_kind for cid in best}
    assert "note" in kinds.values()  # the best-scoring chunks include notes the policy will refuse

    restricted = tree.search(actor, question, PolicyEngine.from_text(ROWS_ONLY))
    allowed = restricted.candidates.lists["dense"]
    assert len(allowed) == 10
    assert all(restricted.candidates.found[cid].chunk.source_kind == "row" for cid, _ in allowed)
    assert restricted.refused_documents > 0


def test_an_invalid_policy_stops_the_node_naming_the_file(federation: Federation, tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "broken.cedar").write_text('permit(principal, action, resource) when { resource.colour == "red" };')
    config = dataclasses.replace(federation.configs["A"], policies=policies)
    with pytest.raises(ConfigError, match=r"broken\.cedar"):
        Node.open(config, EMBEDDER, RetrieveSettings())


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ('[tree]\nname = "A"\n', "root must be a router"),
        ('[tree]\nname = "A"\nchildren = [{ name = "x" }]\n', "exactly one of store"),
        ('[tree]\nname = "B"\nchildren = [{ name = "x", store = "index/x" }]\n', "must be the organisation"),
        ('[tree]\nname = "A"\nchildren = [{ name = "x", store = "i", colour = 1 }]\n', "unknown keys"),
    ],
)
def test_a_malformed_tree_is_refused_with_the_reason(tmp_path: Path, tree: str, message: str) -> None:
    path = tmp_path / "node.toml"
    path.write_text(
        '[node]\norg = "A"\ndata = "."\npolicies = "p"\n\n[[issuers]]\nissuer = "http://127.0.0.1:1"\norg = "A"\n\n'
        + tree
    )
    with pytest.raises(ConfigError, match=message):
        load_node_config(path)


def test_the_key_fetch_timeout_comes_from_the_node_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "node.toml"
    node = '[node]\norg = "A"\ndata = "."\npolicies = "p"\n'
    rest = '\n[[issuers]]\nissuer = "http://127.0.0.1:1"\norg = "A"\n\n[tree]\nname = "A"\n'
    rest += 'children = [{ name = "x", store = "i" }]\n'

    class Tree:
        def warm_up(self) -> None:
            pass

    monkeypatch.setattr(NodeTree, "open", classmethod(lambda cls, *args: Tree()))
    for line, seconds in (("", 2.0), ("key_fetch_timeout = 0.25\n", 0.25)):
        path.write_text(node + line + rest)
        config = load_node_config(path)
        assert config.key_fetch_timeout == seconds
        opened = Node.open(config, EMBEDDER, RetrieveSettings(), PolicyEngine.allow_all())
        assert opened.verifier._client.timeout.read == seconds
    path.write_text(node + "key_fetch_timeout = 0\n" + rest)
    with pytest.raises(ConfigError, match="key_fetch_timeout"):
        load_node_config(path)
