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
