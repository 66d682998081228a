"""Who may search and retrieve what: Cedar policies with reasons, and OpenID Connect token verification."""
