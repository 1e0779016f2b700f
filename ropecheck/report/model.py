"""The report's data model: sections of verdict rows, detail pages and plots.

Each engine contributes a :class:`Section` through a collector function (see
``report/collect.py``); rendering (``report/render.py``) is pure, and only the CLI
writes files. Everything that changes from run to run -- the time, the versions, the
machine, the timings -- lives in :class:`Report.header` and nowhere else, so two runs of
the same code give byte-identical pages outside the one marked header block.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Row", "Plot", "Page", "Section", "Report", "SCHEMA", "PASSING"]

SCHEMA = "ropecheck-report/1"
# Verdicts that count as a check holding when no other outcome is expected.
PASSING = ("PASS", "PROVED")


@dataclass(frozen=True)
class Row:
    """One verdict: what was checked, what came out, what was expected, and the evidence."""

    name: str
    verdict: str
    expected: str
    evidence: str
    link: str | None = None

    @property
    def held(self) -> bool:
        return self.verdict == self.expected


@dataclass(frozen=True)
class Plot:
    """An SVG figure; ``file`` is its path under the report folder."""

    key: str
    title: str
    caption: str
    svg: str

    @property
    def file(self) -> str:
        return f"plots/{self.key}.svg"


@dataclass(frozen=True)
class Page:
    """A Markdown detail page, and optionally its HTML body (MathML for the math)."""

    path: str
    title: str
    markdown: str
    html: str | None = None


@dataclass
class Section:
    key: str
    title: str
    intro: str
    rows: list[Row] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    # columns of a matrix view (e.g. adapters x dtypes); rows are named "row / column"
    matrix_columns: tuple[str, ...] = ()
    # extra files under the report folder (per-adapter JSON, sweep CSV, ...): path -> text
    files: dict[str, str | bytes] = field(default_factory=dict)
    # volatile: seconds per sub-step; the report moves them into its header block
    timings: dict[str, float] = field(default_factory=dict)
    # carried over from an earlier report by a partial run (not run this time)
    carried: bool = False

    @property
    def held(self) -> bool:
        return all(r.held for r in self.rows)

    @classmethod
    def from_dict(cls, entry: dict[str, Any], read: Callable[[str], str | None]) -> Section:
        """A section of an earlier report, from its ``report.json`` entry and its files (``read(path)``).

        What a partial run (``ropecheck report --only``) carries over for the sections it did
        not run, so the summary pages keep them; the files it names stay on disk as they are.
        """
        rows = [Row(r["name"], r["verdict"], r["expected"], r["evidence"], r.get("link")) for r in entry["rows"]]
        plots = [Plot(p["key"], p["title"], p["caption"], read(p["file"]) or "") for p in entry.get("plots", [])]
        pages = [Page(p["path"], p["title"], read(p["path"]) or "") for p in entry.get("pages", [])]
        section = cls(entry["key"], entry["title"], entry["intro"], rows=rows, plots=plots, pages=pages,
                      matrix_columns=tuple(entry.get("matrix_columns", ())))  # fmt: skip
        section.files = dict.fromkeys(entry.get("files", []), "")  # named only: they stay on disk as they are
        section.carried = True
        return section

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out


@dataclass
class Report:
    header: dict[str, Any]
    sections: list[Section]

    @property
    def held(self) -> bool:
        return all(s.held for s in self.sections)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (``report.json``); see ``ropecheck/report/README.md`` for the schema."""
        return {
            "schema": SCHEMA,
            "header": self.header,
            "all_expected_verdicts_held": self.held,
            "sections": [
                {
                    "key": s.key,
                    "title": s.title,
                    "intro": s.intro,
                    "held": s.held,
                    "counts": s.counts(),
                    "rows": [{**asdict(r), "held": r.held} for r in s.rows],
                    "plots": [{"key": p.key, "title": p.title, "caption": p.caption, "file": p.file} for p in s.plots],
                    "pages": [{"path": p.path, "title": p.title} for p in s.pages],
                    "files": sorted(s.files),
                    "matrix_columns": list(s.matrix_columns),
                }
                for s in self.sections
            ],
        }
