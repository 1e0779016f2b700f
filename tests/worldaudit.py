"""The audit of a document of ``tests/fixtures/audit/world/``, once per test run and shared by the modules that read it.

``test_audit_world``, ``test_audit_names``, ``test_expectation`` and a few more read the audits of the
same documents (the expectations of every document, and the details of some). The tests only read an
audit, so each document is audited once (:func:`audited`): once per process, and under xdist once
for all workers -- the first worker to need a document audits it under a file lock and leaves the
result in the folder the workers of the run share (:func:`share_between_workers`, called by
``tests/conftest.py``); the others read it. The tests are then free to run on any worker.
"""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

from filelock import FileLock

from ropecheck.symbolic.audit.result import AuditResult
from ropecheck.symbolic.audit.run import audit_document

WORLD = Path(__file__).parent / "fixtures" / "audit" / "world"
#: the time limit of each step: generous, a safety net; no step here comes near it
TIMEOUT = 30.0
#: the folder the xdist workers of this run share, or None (one process: nothing to share)
_SHARED: list[Path] = []


def share_between_workers(folder: Path) -> None:
    """Keep the audits in ``folder``, which every worker of this run sees."""
    folder.mkdir(parents=True, exist_ok=True)
    _SHARED[:] = [folder]


def _audit(name: str) -> AuditResult:
    path = WORLD / name
    return audit_document(path.read_text(encoding="utf-8"), path=str(path), timeout=TIMEOUT)


@functools.cache
def audited(name: str) -> AuditResult:
    """The audit of the document ``name`` of the folder (once per run: the tests only read it)."""
    if not _SHARED:
        return _audit(name)
    kept = _SHARED[0] / f"{name}.pickle"
    with FileLock(f"{kept}.lock"):
        if kept.exists():
            result: AuditResult = pickle.loads(kept.read_bytes())
            return result
        result = _audit(name)
        kept.write_bytes(pickle.dumps(result))
        return result
