"""The ``ropecheck`` command line: :func:`main` is the console entry point.

One module per command (``spec``, ``report``, ``verify`` and ``adapters``, ``prove``,
``claim``, ``precision``, ``bench``), the flags they share in :mod:`.args`, and the parser
and the exit-code contract in :mod:`.main`.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
