"""Root causes of RoPE bugs: their codes, their sentences, and the tests that recognise them.

A failure is reported as a *family* code (``positions``, ``frequencies``, ``precision``, ... --
the stable codes of ``ropecheck.verify.FINDING_CODES``) refined, where the evidence allows, by
a *cause* (:data:`CAUSES`): the real-world mistake that produces it, such as positions clamped
at a table's end, inv_freq stored in bfloat16, or LongRoPE's long factors used below the
original context. The verifier (:mod:`ropecheck.verify`) and the properties
(:mod:`ropecheck.properties`, hence the pytest plugin) both word a cause with the sentence
builders here, so a failure reads the same wherever it is found.

Every cause is recognised in one place: the :class:`Recogniser` declared beside its row
(:mod:`.causes`), whose tests read one call's output (:func:`explain`, :mod:`.output`), an
identified RoPE's entries, dims, phase, frequencies, scale or deviating positions (:mod:`.matrices`), or two calls
(:func:`length_dependence`); the causes whose evidence is read elsewhere say where
(:data:`ELSEWHERE`). Adding a cause is its row, its sentence and a test registered with its
recogniser.

Design constraints: below the verifier and beside the properties (both import it), so no
import of either; pure numpy and the reference. This ``__init__`` only re-exports; importing it
registers every test.
"""

from __future__ import annotations

from .causes import (
    CAUSES,
    COMMON_BASES,
    ELSEWHERE,
    EVIDENCE,
    RECOGNISERS,
    Diagnosis,
    Recogniser,
    fmt_base,
    found,
    is_protocol_error,
    recognise,
    recogniser,
    registry_problems,
    sentence,
    tests_for,
)
from .matrices import Dims, Frequencies, Positions
from .output import explain, length_dependence, rotate_by, round_to

__all__ = [
    "CAUSES",
    "COMMON_BASES",
    "ELSEWHERE",
    "EVIDENCE",
    "RECOGNISERS",
    "Diagnosis",
    "Dims",
    "Frequencies",
    "Positions",
    "Recogniser",
    "explain",
    "fmt_base",
    "found",
    "is_protocol_error",
    "length_dependence",
    "recognise",
    "recogniser",
    "registry_problems",
    "rotate_by",
    "round_to",
    "sentence",
    "tests_for",
]
