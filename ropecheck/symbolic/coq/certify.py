"""Check the Coq certificates of RoPE's identities with ``coqc``.

The certificates are the ``.v`` files of the repository's top-level ``proofs/coq/`` folder:
Coq statements and ``Qed`` proofs of the identities the SymPy theorems of
:mod:`ropecheck.symbolic` decide (:data:`CERTIFICATES` maps each file to its families, its
main theorems and the SymPy theorem each one mirrors). :func:`certify` compiles them and
says, per file, whether it is a certificate: it compiled, nothing in it is admitted, it
declares no axiom, and ``Print Assumptions`` of every main theorem lists only the axioms
Coq's standard real numbers rest on (:data:`ALLOWED_AXIOMS`).

Design constraints:

* Standard library only; ``coqc`` is found with :func:`shutil.which` and may be absent, in
  which case every result is ``NOT_CHECKED`` with :func:`missing_coqc_advice` as its reason.
* Nothing is written next to the sources: the files are copied into a temporary directory,
  mapped to the logical prefix ``RopeCheck`` (``coqc -Q <tmp> RopeCheck``) and compiled
  there in dependency order, independent files in parallel.
* ``coqc -time`` prints ``Chars a - b [...]`` after every command; the byte range names the
  command, so the output of each ``Print Assumptions`` is attributed without editing the file.
* Compile order of the certificates (each imports the ones before it that it needs):
  rotation_group, relative_position, forms, layouts, context_extension, linear_attention,
  long_term_decay.
  By hand: ``coqc -Q proofs/coq RopeCheck proofs/coq/<file>.v`` in that order (this writes
  ``.vo`` files beside the sources; :func:`certify` does not).
* The table of certificates lives in :mod:`.data`, the readers of Coq text and of
  coqc's output in :mod:`.source`; both are standard library only as well.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from ...errors import UsageError
from .data import ALLOWED_AXIOMS, CERTIFICATES, LOGICAL_PREFIX, UNCERTIFIED_FAMILIES, Certificate
from .source import (
    assumption_blocks,
    parse_assumptions,
    parse_coq_error,
    requires,
    scan_source,
    statements,
    strip_comments,
)

__all__ = [
    "ALLOWED_AXIOMS",
    "CERTIFICATES",
    "UNCERTIFIED_FAMILIES",
    "Certificate",
    "CertificateResult",
    "Status",
    "allowed_axiom",
    "certificate_files",
    "certificate_index",
    "certify",
    "coq_statements",
    "coqc_version",
    "default_certificate_dir",
    "find_coqc",
    "missing_coqc_advice",
    "parse_coq_error",
    "scan_source",
    "strip_comments",
]


class Status(str, Enum):
    """The outcome of checking one certificate."""

    CERTIFIED = "CERTIFIED"
    FAILED = "FAILED"
    NOT_CHECKED = "NOT_CHECKED"

    def __str__(self) -> str:
        return self.value


@dataclass
class CertificateResult:
    """The check of one ``.v`` file.

    Attributes:
        file: the source file.
        theorems: the theorems whose assumptions were printed (the main theorems).
        status: CERTIFIED, FAILED or NOT_CHECKED.
        coqc_version: e.g. ``"8.16.1"``; None without coqc.
        seconds: wall time of its coqc run.
        error_file: the file coqc's first error is in (the source path), if any.
        error_line: that error's 1-based line.
        error_message: that error's text.
        assumptions: theorem -> the assumptions ``Print Assumptions`` listed (empty when
            closed under the global context).
        reasons: why it is not certified (empty when CERTIFIED).
    """

    file: Path
    theorems: list[str]
    status: Status
    coqc_version: str | None
    seconds: float = 0.0
    error_file: str | None = None
    error_line: int | None = None
    error_message: str | None = None
    assumptions: dict[str, list[str]] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- coqc


def find_coqc(coqc: str | os.PathLike[str] | None = None) -> str | None:
    """The coqc executable: ``coqc`` if given (a path or a name on PATH), else ``coqc`` on PATH."""
    return shutil.which(os.fspath(coqc) if coqc is not None else "coqc")


def coqc_version(coqc: str) -> str:
    """The version ``coqc --version`` reports, e.g. ``"8.16.1"`` (its first line if unparsable)."""
    out = subprocess.run([coqc, "--version"], check=False, capture_output=True, text=True, timeout=60).stdout
    found = re.search(r"version\s+(\S+)", out)
    return found.group(1) if found else (out.strip().splitlines() or ["unknown"])[0]


def missing_coqc_advice() -> str:
    """What to do when coqc is not installed."""
    return (
        "coqc was not found on PATH: install Debian's coq (apt-get install coq; Coq 8.16 on bookworm) "
        "or pass coqc=<path to coqc>"
    )


# --------------------------------------------------------------------------- locating the certificates


def default_certificate_dir() -> Path | None:
    """The ``coq/`` folder of the theorems package (``proofs/coq`` in a checkout, installed as
    ``ropecheck/proofs/coq``), found without importing the theorems; None if it is missing."""
    spec = importlib.util.find_spec("ropecheck.proofs")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(location) / "coq"
        if folder.is_dir():
            return folder
    return None


def certificate_files(folder: str | os.PathLike[str] | None = None) -> list[Path]:
    """The certificate files of ``folder`` (default: :func:`default_certificate_dir`) in compile order.

    Raises:
        UsageError: the folder or one of the certificates in it is missing.
    """
    where = Path(folder) if folder is not None else default_certificate_dir()
    if where is None or not where.is_dir():
        raise UsageError(f"no Coq certificate folder at {where or 'proofs/coq'}; pass the proofs/coq folder")
    files = [where / name for name in CERTIFICATES]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise UsageError(f"{where} lacks the certificates {', '.join(missing)}")
    return files


def allowed_axiom(name: str) -> bool:
    """Is a printed axiom name (shortest qualified, at least ``Module.name``) one of :data:`ALLOWED_AXIOMS`?"""
    return "." in name and any(full == name or full.endswith("." + name) for full in ALLOWED_AXIOMS)


def coq_statements(source: str | os.PathLike[str], names: Iterable[str] | None = None) -> dict[str, str]:
    """The ``Theorem name : ... .`` text of each theorem of a ``.v`` file (or of ``names``), one line each."""
    return statements(Path(source).read_text(encoding="utf-8"), names)


# --------------------------------------------------------------------------- certify


def _order(files: Sequence[Path]) -> tuple[list[Path], dict[Path, list[Path]]]:
    """Every file and the RopeCheck files they import (found beside them), dependencies first."""
    deps: dict[Path, list[Path]] = {}
    given = [f.resolve() for f in files]
    todo = list(given)
    while todo:
        f = todo.pop()
        if f in deps:
            continue
        if not f.is_file():
            raise UsageError(f"no such Coq file: {f}")
        deps[f] = [f.parent / f"{name}.v" for name in requires(f.read_text(encoding="utf-8"), LOGICAL_PREFIX)]
        todo += deps[f]
    names: dict[str, Path] = {}
    for f in deps:
        if names.setdefault(f.name, f) != f:
            raise UsageError(f"two Coq files named {f.name}: {names[f.name]} and {f}")
    ordered: list[Path] = []

    def visit(f: Path, path: tuple[Path, ...]) -> None:
        if f in path:
            raise UsageError(f"circular Require: {' -> '.join(p.name for p in (*path, f))}")
        if f not in ordered:
            for d in deps[f]:
                visit(d, (*path, f))
            ordered.append(f)

    for f in given:
        visit(f, ())
    return ordered, deps


def _judge(src: Path, text: str, stdout: str, result: CertificateResult) -> None:
    """Fill in the assumptions and the reasons of a file that compiled."""
    blocks = assumption_blocks(stdout, text.encode("utf-8"))
    result.theorems = list(blocks)
    result.assumptions = {name: parse_assumptions(block) for name, block in blocks.items()}
    result.reasons += scan_source(text)
    known = CERTIFICATES.get(src.name)
    result.reasons += [
        f"no Print Assumptions for the main theorem {t}" for t in (known.theorems if known else ()) if t not in blocks
    ]
    if not blocks:
        result.reasons.append("no Print Assumptions command, so its assumptions are unchecked")
    for name, listed in result.assumptions.items():
        result.reasons += [f"{name} relies on {a}, not an axiom of Coq's Reals" for a in listed if not allowed_axiom(a)]
    result.status = Status.FAILED if result.reasons else Status.CERTIFIED


def _check_one(src: Path, work: Path, coqc: str, version: str, timeout: float) -> CertificateResult:
    """Compile the copy of ``src`` in ``work/src`` (from a directory of its own) and judge it."""
    text = src.read_text(encoding="utf-8")
    result = CertificateResult(src, [], Status.FAILED, version)
    cwd = work / f"run-{src.stem}"  # tactics such as lia write caches into the current directory
    cwd.mkdir()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [coqc, "-q", "-time", "-Q", str(work / "src"), LOGICAL_PREFIX, str(work / "src" / src.name)],
            check=False,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        result.reasons.append(f"coqc did not finish within {timeout:g} s")
        return result
    finally:
        result.seconds = time.perf_counter() - t0
    if proc.returncode == 0:
        _judge(src, text, proc.stdout, result)
        return result
    error = parse_coq_error(proc.stderr) or parse_coq_error(proc.stdout)
    if error is None:
        result.reasons.append(f"coqc exited with status {proc.returncode}: {proc.stderr.strip()[-500:]}")
        return result
    result.error_file = str(src) if Path(error[0]).name == src.name else error[0]
    result.error_line, result.error_message = error[1], error[2]
    result.reasons.append(f"coqc: {Path(result.error_file).name}, line {error[1]}: {error[2]}")
    return result


def certify(
    files: Sequence[str | os.PathLike[str]] | None = None,
    *,
    coqc: str | os.PathLike[str] | None = None,
    timeout: float = 120.0,
    jobs: int | None = None,
) -> list[CertificateResult]:
    """Compile and judge Coq certificates.

    Args:
        files: the ``.v`` files (default: :func:`certificate_files`). Files they import with
            ``From RopeCheck Require ...`` are found beside them and checked too.
        coqc: the coqc to use (default: ``coqc`` on PATH).
        timeout: seconds allowed to one coqc run.
        jobs: coqc runs at once (default: the CPU count); a file starts once its imports are certified.

    Returns:
        One result per file, dependencies first. A file importing one that is not certified
        is NOT_CHECKED; without coqc every file is NOT_CHECKED.

    Raises:
        UsageError: a file is missing, two files share a name, or the imports are circular.
    """
    ordered, deps = _order([Path(f) for f in (files if files is not None else certificate_files())])
    exe = find_coqc(coqc)
    if exe is None:
        return [CertificateResult(f, [], Status.NOT_CHECKED, None, reasons=[missing_coqc_advice()]) for f in ordered]
    version = coqc_version(exe)
    results: dict[Path, CertificateResult] = {}
    with tempfile.TemporaryDirectory(prefix="ropecheck-coq-") as tmp:
        work = Path(tmp)
        (work / "src").mkdir()
        for f in ordered:
            shutil.copyfile(f, work / "src" / f.name)
        pending: list[Path] = list(ordered)
        running: dict[Path, Future[CertificateResult]] = {}
        with ThreadPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1)) as pool:
            while pending or running:
                for f in list(pending):
                    before = [results.get(d) for d in deps[f]]
                    bad = [
                        d.name for d, r in zip(deps[f], before) if r is not None and r.status is not Status.CERTIFIED
                    ]
                    if bad:
                        reason = f"imports {', '.join(bad)}, which is not certified"
                        results[f] = CertificateResult(f, [], Status.NOT_CHECKED, version, reasons=[reason])
                    elif all(r is not None for r in before):
                        running[f] = pool.submit(_check_one, f, work, exe, version, timeout)
                    else:
                        continue
                    pending.remove(f)
                if running:
                    finished, _ = wait(running.values(), return_when=FIRST_COMPLETED)
                    for f in [f for f, fut in running.items() if fut in finished]:
                        results[f] = running.pop(f).result()
    return [results[f] for f in ordered]


def certificate_index(folder: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """Per certificate: file, SymPy families, imports, and each main theorem's Coq statement beside its SymPy twin."""
    index: list[dict[str, Any]] = []
    for path in certificate_files(folder):
        cert = CERTIFICATES[path.name]
        found = coq_statements(path, cert.theorems)
        theorems = [{"name": n, "sympy_theorem": s, "coq_statement": found.get(n)} for n, s in cert.theorems.items()]
        index.append(
            {
                "file": path.name,
                "families": list(cert.families),
                "requires": list(cert.requires),
                "theorems": theorems,
                "covers": cert.covers,
            }
        )
    return index
