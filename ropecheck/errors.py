"""The one exception hierarchy of ropecheck, and the exit codes every command shares.

Every error a user can cause by a bad argument, a bad spec or a bad config file is a
``RopeCheckError`` subclass whose message says what is wrong and how to fix the call
(Hypothesis' ``InvalidArgument`` style). The CLI turns these into one line and exit code 2;
anything else escaping is a bug in ropecheck (:class:`InternalError`, exit code 70), never
reported as the target's or the claim's fault.
"""

from __future__ import annotations

import enum

__all__ = [
    "ExitCode",
    "InternalError",
    "RopeCheckError",
    "SpecError",
    "ConfigError",
    "UsageError",
    "TargetError",
    "TargetMemoryError",
    "ClaimParseError",
    "ClaimLimitError",
]


class ExitCode(enum.IntEnum):
    """What a ``ropecheck`` command's exit status means; each code means one thing."""

    OK = 0  #: conforms / proved / within the error model / goal met
    FAIL = 1  #: the target does not conform, or the claim is refuted (the target raised, exited, crashed or hung)
    USAGE = 2  #: the user's mistake (flag, spec, config, target not importable, output path), before any work
    UNDECIDED = 3  #: a claim neither proved nor refuted (a limit was reached, or no rewrite decided it)
    INTERNAL = 70  #: a bug in ropecheck itself (BSD sysexits' EX_SOFTWARE): please report it
    INTERRUPTED = 130  #: stopped by Ctrl-C (128 + SIGINT)
    PIPE = 141  #: the reader of stdout went away (128 + SIGPIPE, as a shell's own writers end)


class TargetMemoryError(MemoryError):
    """The judged target ran out of memory (an allocation in its process failed): a finding, not ours."""


class InternalError(Exception):
    """A bug in ropecheck (not the user's, the target's or the claim's): exit code 70."""


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
