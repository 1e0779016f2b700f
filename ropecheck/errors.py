"""The one exception hierarchy of ropecheck.

Every error a user can cause by a bad argument, a bad spec or a bad config file is a
``RopeCheckError`` subclass whose message says what is wrong and how to fix the call
(Hypothesis' ``InvalidArgument`` style). The CLI turns these into one line and exit code 2;
anything else escaping is a bug in ropecheck, not a user mistake.
"""

from __future__ import annotations

__all__ = [
    "RopeCheckError",
    "SpecError",
    "ConfigError",
    "UsageError",
    "TargetError",
    "ClaimParseError",
    "ClaimLimitError",
]


class RopeCheckError(Exception):
    """Base class of every error ropecheck raises on purpose."""


class SpecError(RopeCheckError, ValueError):
    """An invalid ``RopeSpec`` field; ``field`` names it (dotted for nested keys)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class ConfigError(RopeCheckError, ValueError):
    """A config file that cannot be read: missing, not JSON, or not a JSON object."""


class UsageError(RopeCheckError, ValueError):
    """A bad argument to a ropecheck function or command."""


class TargetError(RopeCheckError):
    """A verification target that cannot be imported, found or called."""


class ClaimParseError(RopeCheckError, ValueError):
    """A claimed identity that cannot be parsed; ``position`` is the 0-based column, if known."""

    def __init__(self, message: str, position: int | None = None) -> None:
        self.position = position
        super().__init__(message if position is None else f"{message} (at column {position + 1})")


class ClaimLimitError(RopeCheckError):
    """A well-formed claim past one of the claim checker's limits (an exponent, a matrix size, ...).

    ``limit`` names the limit (``"exponent"``, ``"number"``, ``"matrix_size"``, ...);
    ``position`` is the 0-based column, if known.
    :func:`~ropecheck.symbolic.check_claim` reports it as UNDECIDED, naming the limit;
    only :func:`~ropecheck.symbolic.parse_claim` raises it.
    """

    def __init__(self, message: str, limit: str = "", position: int | None = None) -> None:
        self.limit = limit
        self.position = position
        super().__init__(message if position is None else f"{message} (at column {position + 1})")
