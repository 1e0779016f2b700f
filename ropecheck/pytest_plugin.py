"""The ``ropecheck`` pytest plugin (entry point ``pytest11``).

Thin by design: options in one ``ropecheck`` group and a report-header line. Heavy modules
(torch, the property engine) are imported only when a test uses the plugin's fixture.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ropecheck", "ropecheck: RoPE correctness checks")
    group.addoption(
        "--ropecheck-seed",
        action="store",
        type=int,
        default=0,
        dest="ropecheck_seed",
        help="seed for the inputs ropecheck draws (default 0)",
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    from . import __version__

    return [f"ropecheck: {__version__}, seed={config.getoption('ropecheck_seed')}"]


def _unused(*_: Any) -> None:  # pragma: no cover - placeholder for the fixture module
    return None
