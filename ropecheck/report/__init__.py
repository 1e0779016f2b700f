"""The report: collect every engine's verdicts into sections, render them, write ``reports/``.

:mod:`.model` holds the data (``Report``, ``Section``, ``Row``, ``Page``, ``Plot``);
:mod:`.collect` and :mod:`.engines` run the engines and build the sections;
:mod:`.render` turns a report into ``README.md``, ``index.html`` and ``report.json``
(pure: data in, text out); :mod:`.mathml` and :mod:`.selfcheck` serve the sections. The
``ropecheck report`` command writes the files.
"""

from .model import PASSING, SCHEMA, Page, Plot, Report, Row, Section
from .render import render_html, render_json, render_readme

__all__ = [
    "PASSING",
    "SCHEMA",
    "Page",
    "Plot",
    "Report",
    "Row",
    "Section",
    "render_html",
    "render_json",
    "render_readme",
]
