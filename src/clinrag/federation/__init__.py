"""Hospitals as nodes: trees of routers and leaves behind a policy gate, an HTTP API, and the root that fans a
question out to every organisation and merges one global top-k."""
