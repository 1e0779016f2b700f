"""The verifier: judge a black-box RoPE implementation against a spec.

:func:`verify` runs the checks (:mod:`.checks`, :mod:`.axes`) on a target under the
canonical protocol and returns a :class:`VerifyReport` (:mod:`.model`); :mod:`.identify`
recovers what the target really does from basis-vector probes; :mod:`.render` turns a
report into terminal text, Markdown and JUnit; :mod:`.batch` verifies every installed
adapter. ``ropecheck verify`` is the command line over this package.

Example:
    >>> from ropecheck import RopeSpec
    >>> from ropecheck.protocol import torch_reference
    >>> spec = RopeSpec(head_dim=8)
    >>> verify(torch_reference(spec), spec, dtypes=("float32",), max_position=4096).conforms
    True
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_getattr

if TYPE_CHECKING:  # imported on first use (see _LAZY): importing a module of this package stays cheap
    from .model import (
        DEFAULT_DTYPES,
        FINDING_CODES,
        POSITION_MODES,
        VERIFY_MAX_POSITION,
        Check,
        Finding,
        VerifyReport,
    )
    from .render import render_junit, render_markdown, render_terminal, verdict_line
    from .run import verify

__all__ = [
    "DEFAULT_DTYPES",
    "FINDING_CODES",
    "POSITION_MODES",
    "VERIFY_MAX_POSITION",
    "Check",
    "Finding",
    "VerifyReport",
    "render_junit",
    "render_markdown",
    "render_terminal",
    "verdict_line",
    "verify",
]

_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "DEFAULT_DTYPES",
            "FINDING_CODES",
            "POSITION_MODES",
            "VERIFY_MAX_POSITION",
            "Check",
            "Finding",
            "VerifyReport",
        ),
        "model",
    ),
    **dict.fromkeys(("render_junit", "render_markdown", "render_terminal", "verdict_line"), "render"),
    "verify": "run",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
