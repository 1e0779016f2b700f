"""The survey: every rotary embedding of the installed transformers, driven from its own config and verified.

:mod:`.discover` finds the families (from transformers' registry and the modeling sources),
:mod:`.drive` builds each family's rotary module and apply function under the canonical
protocol, :mod:`.run` verifies them (in workers, each verdict at arm's length),
:mod:`.expected` compares the findings with the reviewed ``expected.json``, and
:mod:`.render` writes the matrix, the root causes and one page per family.
``ropecheck survey`` is the command line over this package.
"""

from .discover import Family, Registry, discover, installed_registry, transformers_version
from .drive import MODES, Driven, NotDriven, code_path, prepare, prepare_class
from .expected import EXPECTED_PATH, Expected, Mismatch, compare, load_expected
from .render import cells, counts, render_family, render_index, render_pages, survey_data
from .run import DEFAULT_MAX_POSITION, FamilyResult, Verdict, run_family, run_survey, run_units

__all__ = [
    "DEFAULT_MAX_POSITION",
    "EXPECTED_PATH",
    "MODES",
    "Driven",
    "Expected",
    "Family",
    "FamilyResult",
    "Mismatch",
    "NotDriven",
    "Registry",
    "Verdict",
    "cells",
    "code_path",
    "compare",
    "counts",
    "discover",
    "installed_registry",
    "load_expected",
    "prepare",
    "prepare_class",
    "render_family",
    "render_index",
    "render_pages",
    "run_family",
    "run_survey",
    "run_units",
    "survey_data",
    "transformers_version",
]
