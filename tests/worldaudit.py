"""The audit of a document of ``tests/fixtures/audit/world/``, once per process and shared by the modules that read it.

``test_audit_world``, ``test_audit_names`` and ``test_expectation`` read the audits of the same
documents (the expectations of every document, and the details of some). The tests only read an
audit, so each document is audited once per process (:func:`audited`), and the three modules
carry :data:`GROUP`, one xdist group: under ``--dist loadgroup`` (the project's default) they run
on one worker, which audits each document once in the whole run.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from ropecheck.symbolic.audit.run import audit_document

WORLD = Path(__file__).parent / "fixtures" / "audit" / "world"
#: the time limit of each step: generous, a safety net; no step here comes near it
TIMEOUT = 30.0
#: the xdist group of the modules that read these audits
GROUP = pytest.mark.xdist_group("audit-world")


@functools.cache
def audited(name: str):  # type: ignore[no-untyped-def]
    """The audit of the document ``name`` of the folder (once per process: the tests only read it)."""
    path = WORLD / name
    return audit_document(path.read_text(encoding="utf-8"), path=str(path), timeout=TIMEOUT)
