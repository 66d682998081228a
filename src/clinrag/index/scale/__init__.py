"""Embedding and indexing on a distributed engine: a Ray Data pipeline whose embedder is an actor pool, writing
to the same leaf indexes as the local engine (a Qdrant server or cluster collection per leaf through
``qdrant-client``, or an Edge shard). Ray is imported only when asked for (``pip install 'clinrag[scale]'``).
See docs/scaling.md.
"""
