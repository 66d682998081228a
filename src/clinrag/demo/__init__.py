"""The demo and its development scaffolding, beside the product: the three-hospital synthetic federation and its
library (``clinrag demo``), the hospitals' identity providers (``clinrag idp``), the in-process federation of
``clinrag eval``, and the helpers that drive the web app from tests and benchmarks.

It sits just below ``clinrag.app``: the CLI offers its commands, and it may use every layer below the app.
"""
