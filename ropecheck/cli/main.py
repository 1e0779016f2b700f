"""The ``ropecheck`` command line: one parser, one module per command.

Each command module (``cli/<command>.py``) exposes ``add_parser(subparsers)`` and a ``run(args)``
returning the exit code; this module only wires them together and enforces the contract:
``--help`` everywhere; a user mistake (bad flag, bad spec, unreadable config,
unimportable target, unwritable output) is one line on stderr and exit code 2 -- never a
traceback; a bug in ropecheck is exit code 70 with "internal error ... please report" and
the traceback (never 1, which means the target or claim is wrong); Ctrl-C is 130; a closed
output pipe ends the command quietly with 141. The table is :class:`~ropecheck.errors.ExitCode`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from ..errors import ExitCode, InternalError, RopeCheckError
from ..version import __version__
from .args import EXIT_USAGE, check_outputs

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

#: Each command's module under ``ropecheck.cli``, in the order ``--help`` lists them. A command line
#: that names its command imports only that module: ``ropecheck verify`` never imports SymPy or the
#: report code, so a verdict costs little more than the target's own imports.
COMMAND_MODULES: dict[str, str] = {
    "spec": "spec",
    "report": "report",
    "verify": "verify",
    "adapters": "verify",
    "survey": "survey",
    "prove": "prove",
    "claim": "claim",
    "audit": "audit",
    "precision": "precision",
    "bench": "bench",
}


def _modules(only: str | None = None) -> list[ModuleType]:
    names = dict.fromkeys(COMMAND_MODULES.values()) if only is None else [COMMAND_MODULES[only]]
    return [importlib.import_module(f"{__package__}.{name}") for name in names]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (its module is the only one imported)."""

    parser = _Parser(
        prog="ropecheck",
        description="Prove, test, measure and verify rotary position embeddings (RoPE).",
    )
    parser.add_argument("--version", action="version", version=f"ropecheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _modules(command):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (see :class:`~ropecheck.errors.ExitCode`)."""
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(first if first in COMMAND_MODULES and "--help" not in words[:1] else None)
    args = parser.parse_args(words)
    if args.command is None:
        parser.print_usage(sys.stderr)
        print("ropecheck: error: give a command (see ropecheck --help)", file=sys.stderr)
        return EXIT_USAGE
    run: Callable[[Any], int] = args.run
    try:
        check_outputs(args)  # every output path, before any work
        return int(run(args))
    except RopeCheckError as exc:
        print(f"ropecheck {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"ropecheck {args.command}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # the reader went away (``ropecheck ... | head``): stop quietly, as a pipe's writer should;
        # point stdout at devnull so the interpreter's final flush does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.PIPE
    except Exception as exc:  # a bug in ropecheck: say so, show where, and never exit 1
        print(
            f"ropecheck {args.command}: internal error in ropecheck, please report it "
            f"(exit {int(ExitCode.INTERNAL)}): {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        if not isinstance(exc, InternalError):  # an InternalError carries the child's traceback itself
            print(traceback.format_exc(), file=sys.stderr, end="")
        return ExitCode.INTERNAL
