"""Where the demo tests' ports start: 21000, or ``$CLINRAG_TEST_FIRST_PORT`` (for machines where 21000 on is taken
or reserved)."""

from __future__ import annotations

import pytest

from .demo_helpers import FIRST_PORT, FIRST_PORT_ENV, DemoPortRun, first_port


def test_the_first_port_is_21000_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FIRST_PORT_ENV, raising=False)
    assert first_port() == FIRST_PORT == 21000
    monkeypatch.setenv(FIRST_PORT_ENV, "33000")
    assert first_port() == 33000
    ports = DemoPortRun.choose()
    assert 33000 <= ports.idp < ports.node < ports.web


@pytest.mark.parametrize("value", ["80", "59999", "port"])
def test_a_first_port_out_of_range_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(FIRST_PORT_ENV, value)
    with pytest.raises(ValueError, match=FIRST_PORT_ENV):
        first_port()
