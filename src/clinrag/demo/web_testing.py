"""Driving the web app from tests and benchmarks: Debian's Chromium and its flags for a closed network, and a
sign-in over plain HTTP through a demo hospital's consent page (no browser).

Example:
    >>> with httpx.Client(base_url="http://127.0.0.1:8300") as client:  # doctest: +SKIP
    ...     csrf = sign_in_over_http(client, "A.phys")
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium, which `make test` installs; no test or benchmark downloads a browser."""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # without these, Chromium keeps trying to reach Google's hosts
    "--disable-component-update",
    "--disable-sync",
]
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_token(page_html: str) -> str:
    """The CSRF token of a page's forms.

    Example:
        >>> csrf_token('<input type="hidden" name="csrf" value="abc">')
        'abc'
    """
    found = _CSRF.search(page_html)
    if found is None:
        raise ValueError("the page has no form with a CSRF token")
    return found.group(1)


def sign_in_over_http(client: httpx.Client, subject: str) -> str:
    """Sign the demo user ``subject`` in through the web app at ``client``'s base URL, as a browser would (sign-in
    page, hospital, consent page, callback); returns the CSRF token of the signed-in user's pages."""
    org = subject.split(".", maxsplit=1)[0]
    to_provider = client.post("/signin", data={"org": org, "csrf": csrf_token(client.get("/signin").text)})
    if to_provider.status_code != 303:
        raise RuntimeError(f"the web app did not send {subject} to their identity provider")
    authorize = to_provider.headers["location"]
    consent = client.get(authorize)
    if consent.status_code != 200:
        raise RuntimeError(f"the identity provider's consent page answered HTTP {consent.status_code}")
    back = client.post(authorize, data={"sub": subject})
    done = client.get(back.headers["location"])
    if done.status_code != 303 or done.headers.get("location") != "/":
        raise RuntimeError(f"the sign-in of {subject} did not complete")
    return csrf_token(client.get("/").text)
