"""The eight users of the three-hospital demo federation and the policy folders that give them their access.

Example:
    >>> [user.subject for user in DEMO_USERS if user.org == "B"]
    ['B.phys', 'B.nurse']
"""

from __future__ import annotations

from pathlib import Path

from clinrag.types import Actor

POLICY_ROOT = Path(__file__).parent / "policies"
"""``POLICY_ROOT / ORG`` holds hospital ORG's ``*.cedar`` policy files (A, B and C)."""

DEMO_USERS: tuple[Actor, ...] = (
    Actor(subject="A.phys.neur", org="A", role="physician", dept="surgery", affiliations=("C_neuro",)),
    Actor(subject="A.phys", org="A", role="physician", dept="medicine"),
    Actor(subject="A.nurse", org="A", role="nurse", dept="psychiatry"),
    Actor(subject="A.tech.rad", org="A", role="technician", dept="radiology"),
    Actor(subject="A.admin", org="A", role="admin"),
    Actor(subject="B.phys", org="B", role="physician", dept="cardiology"),
    Actor(subject="B.nurse", org="B", role="nurse", dept="medicine"),
    Actor(subject="C.research", org="C", role="researcher", dept="neurology"),
)

DEMO_TREES: dict[str, tuple[str, ...]] = {
    "A": ("admissions", "medicine", "psychiatry", "surgery", "orthopaedics"),
    "B": ("admissions", "medicine", "cardiothoracic"),
    "C": ("admissions", "neurology"),
}
"""Each hospital's leaves (departments) under its root router, in the order of the issue's access matrix."""


def demo_user(subject: str) -> Actor:
    """The demo user called ``subject``; KeyError names the known ones otherwise.

    Example:
        >>> demo_user("A.admin").role
        'admin'
    """
    for user in DEMO_USERS:
        if user.subject == subject:
            return user
    raise KeyError(f"no demo user {subject!r}; known: {', '.join(u.subject for u in DEMO_USERS)}")
