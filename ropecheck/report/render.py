"""Pure rendering of a :class:`~ropecheck.report.model.Report` to Markdown, JSON and HTML.

Constraints: data in, text out (no I/O); output is deterministic; the only volatile
content (time, versions, machine, timings) sits between the ``VOLATILE_BEGIN`` and
``VOLATILE_END`` markers, in Markdown, HTML and JSON (``"header"``) alike. The HTML page is
self-contained: inline CSS, inline SVG plots, MathML for math (browsers render it
natively), no script, no network, and a viewport meta so it reads on a phone.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from ..io import VOLATILE_BEGIN, VOLATILE_END, strip_volatile
from .model import PASSING, Page, Report, Row, Section

__all__ = [
    "CSS",
    "FOLD_ROWS",
    "PAGE_BEGIN",
    "PAGE_END",
    "matrix",
    "page_bodies",
    "render_html",
    "render_json",
    "render_readme",
]

FOLD_ROWS = 15  # longer verdict tables are folded under a <details> summary

_BADGE = {"PASS": "✅", "PROVED": "✅", "REFUTED": "❌", "FAIL": "❌", "UNDECIDED": "❔", "SKIP": "⏭️"}


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _header_md(header: dict[str, Any]) -> list[str]:
    lines = [VOLATILE_BEGIN, "", "| generated | |", "|---|---|"]
    for key, value in header.items():
        if key == "timings":
            continue
        lines.append(f"| {key} | {_md_escape(str(value))} |")
    timings = header.get("timings") or {}
    if timings:
        whole = timings.get("whole run")
        summary = f"benchmarks: whole run {whole:.1f} s" if whole is not None else "benchmarks"
        lines += ["", f"<details><summary>{summary}</summary>", "", "| benchmark | seconds |", "|---|---:|"]
        lines += [f"| {_md_escape(k)} | {v:.2f} |" for k, v in timings.items()]
        lines += ["", "</details>"]
    lines += ["", VOLATILE_END, ""]
    return lines


def _note(row_verdict: str, expected: str) -> str:
    """`` (expected X)`` for a verdict that did not hold, `` (expected)`` for a failing verdict that was meant."""
    if row_verdict != expected:
        return f" (expected {expected})"
    return "" if row_verdict in PASSING + ("SKIP",) else " (expected)"


def _verdict(row_verdict: str, expected: str) -> str:
    badge = _BADGE.get(row_verdict, "")
    return f"{badge} {row_verdict}{_note(row_verdict, expected)}".strip()


def _code_html(text: str) -> str:
    """Evidence text as HTML: escaped, with Markdown's `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def matrix(section: Section) -> tuple[list[str], dict[str, dict[str, Row]]]:
    """Rows named ``"<row> / <column>"`` as a grid: the row labels in order, and label -> column -> row.

    Rows without a matrix column (an adapter skipped as a whole) fill every column.
    """
    labels: list[str] = []
    grid: dict[str, dict[str, Row]] = {}
    for r in section.rows:
        label, _, col = r.name.rpartition(" / ")
        if col not in section.matrix_columns:
            label, cols = r.name, section.matrix_columns
        else:
            cols = (col,)
        if label not in grid:
            labels.append(label)
            grid[label] = {}
        for c in cols:
            grid[label][c] = r
    return labels, grid


def _cell_md(r: Row | None) -> str:
    if r is None:
        return ""
    text = _verdict(r.verdict, r.expected)
    return f"**{text}**" if not r.held else text


def _section_md(section: Section) -> list[str]:
    lines = [f"## {section.title}", "", section.intro, ""]
    counts = ", ".join(f"{v} {k}" for k, v in sorted(section.counts().items()))
    lines += [
        f"**{'all expected verdicts held' if section.held else 'SOME EXPECTED VERDICTS DID NOT HOLD'}** ({counts})",
        "",
    ]
    if section.matrix_columns:
        labels, grid = matrix(section)
        lines += ["| | " + " | ".join(section.matrix_columns) + " |", "|---|" + "---|" * len(section.matrix_columns)]
        for label in labels:
            link = next((r.link for r in grid[label].values() if r.link), None)
            name = f"[{_md_escape(label)}]({link})" if link else _md_escape(label)
            lines.append(
                f"| {name} | " + " | ".join(_cell_md(grid[label].get(c)) for c in section.matrix_columns) + " |"
            )
        lines.append("")
    if section.rows:
        long = len(section.rows) > FOLD_ROWS or bool(section.matrix_columns)
        if long:
            lines += [f"<details><summary>all {len(section.rows)} checks</summary>", ""]
        lines += ["| check | verdict | evidence |", "|---|---|---|"]
        for r in section.rows:
            name = f"[{_md_escape(r.name)}]({r.link})" if r.link else _md_escape(r.name)
            lines.append(f"| {name} | {_verdict(r.verdict, r.expected)} | {_md_escape(r.evidence)} |")
        lines.append("")
        if long:
            lines += ["</details>", ""]
    for p in section.plots:
        lines += [f"![{p.title}]({p.file})", "", f"*{p.caption}*", ""]
    if section.pages:
        lines += ["Detail pages: " + " · ".join(f"[{p.title}]({p.path})" for p in section.pages), ""]
    return lines


def render_readme(report: Report) -> str:
    """``reports/README.md``: the page a reader starts from -- verdicts first, then when and where."""
    lines = ["# ropecheck report", ""]
    verdict = "every expected verdict held" if report.held else "SOME EXPECTED VERDICTS DID NOT HOLD"
    lines += [
        f"**Overall: {verdict}.** The same content is in [index.html](index.html) (one self-contained page) "
        "and [report.json](report.json).",
        "",
    ]
    lines += ["| section | verdicts | held |", "|---|---|---|"]
    for s in report.sections:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(s.counts().items()))
        lines.append(f"| [{s.title}](#{_anchor(s.title)}) | {counts} | {'yes' if s.held else '**no**'} |")
    lines.append("")
    lines += _header_md(report.header)
    for s in report.sections:
        lines += _section_md(s)
    return "\n".join(lines).rstrip() + "\n"


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def render_json(report: Report) -> str:
    """``reports/report.json``: the report as data (schema in the README)."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


#: The report's style sheet (inline in every page it writes; the audit page uses it too).
CSS = """
:root{color-scheme:light dark;--ok:#1a7f37;--bad:#cf222e;--muted:#6e7781}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:980px;\
padding:0 12px 48px}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;display:block;overflow-x:auto;max-width:100%;margin:.6em 0}
td,th{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;font-size:.92em}
.PASS,.PROVED{color:var(--ok);font-weight:600}.FAIL,.REFUTED{color:var(--bad);font-weight:600}
.UNDECIDED,.SKIP{color:var(--muted);font-weight:600}.unexpected{background:#ffebe9}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{color:var(--muted);font-size:.9em}
details{margin:.4em 0}summary{cursor:pointer}math{font-size:1.05em}.step{margin:.3em 0 .3em 1em}
.eq{max-width:100%;margin:.4em 0}.REFUTED.expected{color:var(--muted)}.counterexample{margin-left:1em}
.header{color:var(--muted);font-size:.85em}
"""


PAGE_BEGIN = "<!-- ropecheck:page:{path} -->"
PAGE_END = "<!-- ropecheck:page:end -->"


def _page_html(page: Page) -> str:
    # a page's own volatile block (its times) stays out: the page's header has every timing
    body = page.html if page.html is not None else f"<pre>{html.escape(strip_volatile(page.markdown).strip())}</pre>"
    marked = PAGE_BEGIN.format(path=html.escape(page.path)) + body + PAGE_END
    return f'<details id="{html.escape(page.path)}"><summary>{html.escape(page.title)}</summary>{marked}</details>'


def render_html(report: Report) -> str:
    """``reports/index.html``: one self-contained page (no network, MathML, inline SVG)."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>ropecheck report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>ropecheck report</h1>",
    ]
    verdict = "every expected verdict held" if report.held else "SOME EXPECTED VERDICTS DID NOT HOLD"
    parts.append(f"<p><strong>Overall: {verdict}.</strong></p>")
    parts.append("<table><tr><th>section</th><th>verdicts</th><th>held</th></tr>")
    for s in report.sections:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(s.counts().items()))
        parts.append(
            f'<tr><td><a href="#{e(s.key)}">{e(s.title)}</a></td><td>{e(counts)}</td>'
            f"<td>{'yes' if s.held else '<b>no</b>'}</td></tr>"
        )
    parts.append("</table>")
    parts += [VOLATILE_BEGIN, '<table class="header">']
    for key, value in report.header.items():
        if key == "timings":
            continue
        parts.append(f"<tr><th>{e(key)}</th><td>{e(str(value))}</td></tr>")
    parts.append("</table>")
    timings = report.header.get("timings") or {}
    if timings:
        whole = timings.get("whole run")
        summary = f"benchmarks: whole run {whole:.1f} s" if whole is not None else "benchmarks"
        parts.append(f'<details class="header"><summary>{e(summary)}</summary><table>')
        parts += [f"<tr><th>{e(k)}</th><td>{v:.2f} s</td></tr>" for k, v in timings.items()]
        parts.append("</table></details>")
    parts.append(VOLATILE_END)
    for s in report.sections:
        parts.append(f'<h2 id="{e(s.key)}">{e(s.title)}</h2><p>{e(s.intro)}</p>')
        if s.matrix_columns:
            labels, grid = matrix(s)
            parts.append("<table><tr><th></th>" + "".join(f"<th>{e(c)}</th>" for c in s.matrix_columns) + "</tr>")
            for label in labels:
                cells = []
                for c in s.matrix_columns:
                    r = grid[label].get(c)
                    if r is None:
                        cells.append("<td></td>")
                        continue
                    note = e(_note(r.verdict, r.expected))
                    cls = r.verdict + ("" if r.held else " unexpected")
                    cells.append(f'<td class="{e(cls)}" title="{e(r.evidence)}">{e(r.verdict)}{note}</td>')
                parts.append(f"<tr><th>{e(label)}</th>{''.join(cells)}</tr>")
            parts.append("</table>")
        if s.rows:
            fold = len(s.rows) > FOLD_ROWS or bool(s.matrix_columns)
            if fold:
                parts.append(f"<details><summary>all {len(s.rows)} checks</summary>")
            parts.append("<table><tr><th>check</th><th>verdict</th><th>evidence</th></tr>")
            for r in s.rows:
                cls = "" if r.held else ' class="unexpected"'
                note = e(_note(r.verdict, r.expected))
                name = f'<a href="#{e(r.link)}">{e(r.name)}</a>' if r.link else e(r.name)
                parts.append(
                    f"<tr{cls}><td>{name}</td><td "
                    f'class="{e(r.verdict)}">{e(r.verdict)}{note}</td><td>{_code_html(r.evidence)}</td></tr>'
                )
            parts.append("</table>")
            if fold:
                parts.append("</details>")
        for p in s.plots:
            parts.append(f'<figure id="plot-{e(p.key)}">{p.svg}<figcaption>{e(p.caption)}</figcaption></figure>')
        for page in s.pages:
            parts.append(_page_html(page))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def page_bodies(index_html: str) -> dict[str, str]:
    """The HTML body of each detail page in an ``index.html`` this module wrote (path -> body)."""
    begin = re.escape(PAGE_BEGIN).replace(re.escape("{path}"), "(?P<path>[^>]*?)")
    found = re.finditer(begin + "(?P<body>.*?)" + re.escape(PAGE_END), index_html, flags=re.S)
    return {html.unescape(m.group("path")): m.group("body") for m in found}
