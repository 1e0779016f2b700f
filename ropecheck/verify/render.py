"""Rendering a :class:`~ropecheck.verify.VerifyReport`: terminal, Markdown and JUnit XML.

Pure functions, data in and text (or rich renderables) out; the CLI writes the files. The
JSON form is ``VerifyReport.to_dict()`` (schema ``ropecheck.verify/1``, documented in the
README). The JUnit form has one ``<testcase>`` per check (``classname`` = category,
``name`` = check[dtype]) and one per finding, so CI systems list what failed and why.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rich.table import Table
from rich.text import Text

from .model import VerifyReport

__all__ = ["render_terminal", "render_markdown", "render_junit", "shorten", "verdict_line"]

_STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
_STYLE = {"pass": "green", "fail": "bold red", "skip": "yellow"}


def verdict_line(report: VerifyReport) -> str:
    """``CONFORMS`` or ``DOES NOT CONFORM (n findings)`` with the target, the skipped checks and the time taken."""
    skipped = sum(c.status == "skip" for c in report.checks)
    tail = f"; {skipped} check{'s' * (skipped != 1)} skipped" if skipped else ""
    if report.conforms:
        return f"CONFORMS: {report.target} ({report.duration_s:.2f} s{tail})"
    n = len(report.findings)
    return f"DOES NOT CONFORM: {report.target} -- {n} finding{'s' * (n != 1)} ({report.duration_s:.2f} s{tail})"


def shorten(text: str, width: int) -> str:
    """``text`` cut at a word boundary to at most ``width`` characters, with `` ...`` when cut (never mid-word)."""
    if len(text) <= width:
        return text
    cut = text[: max(width - 4, 1)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + " ..."


def _header(report: VerifyReport) -> list[str]:
    lines = [f"target:   {report.target}  [{report.convention} convention, {report.device}]"]
    if report.spec is not None:
        lines.append(f"spec:     {report.spec.describe()} ({report.spec_source})")
    if report.identification is not None:
        lines.append(f"identified: {report.identification.describe()}")
    lines.append(
        f"dtypes:   {', '.join(report.dtypes)}; positions 0..{report.max_position - 1} (the valid range, from "
        f"{report.range_source}); seed {report.seed}"
    )
    return lines


def _consequence_note(report: VerifyReport, c: Any) -> str:
    root = report.root_of(c)
    if root is None:
        return ""
    n = report.findings.index(root) + 1
    return f"(a consequence of finding {n} [{root.label}])"


def _consequences(f: Any, width: int = 0) -> str:
    names = [f"{c['check']}[{c['dtype']}]" if c.get("dtype") else c["check"] for c in f.consequences]
    text = ", ".join(names)
    return shorten(text, width) if width else text


def render_terminal(report: VerifyReport, *, verbose: bool = False) -> list[Any]:
    """Rich renderables: header, the checks table (failed ones always, passed ones too), findings, verdict."""

    out: list[Any] = [Text(line) for line in _header(report)]
    table = Table(show_edge=False, expand=False)
    table.add_column("check")
    table.add_column("dtype")
    table.add_column("result")
    table.add_column("evidence", overflow="fold")
    for c in report.checks:
        note = _consequence_note(report, c)
        if note:
            ev = f"{c.evidence}\n{note}"
        elif c.status == "skip":
            ev = f"skipped: {c.evidence}"
        else:
            ev = c.evidence if c.status != "fail" or not c.hint else f"{c.evidence}\nfix: {c.hint}"
        if c.status == "pass" and not verbose:
            ev = shorten(ev, 110)
        # Text, not str: a str cell is read as rich markup, and evidence such as "[, ]" would be eaten
        table.add_row(Text(c.name), Text(c.dtype or "-"), Text(_STATUS[c.status], style=_STYLE[c.status]), Text(ev))
    out.append(table)
    if report.findings:
        out.append(Text("Findings:", style="bold"))
        for i, f in enumerate(report.findings, 1):
            out.append(Text(f"{i}. [{f.label}] {f.message}" + (f" ({f.dtype})" if f.dtype else "")))
            if f.hint:
                out.append(Text(f"   fix: {f.hint}"))
            if f.consequences:
                n = len(f.consequences)
                out.append(
                    Text(
                        f"   also breaks ({n} check{'s' * (n != 1)}, consequences of this cause): "
                        + _consequences(f, 0 if verbose else 300)
                    )
                )
    for note in report.notes:
        out.append(Text(f"note: {note}", style="dim"))
    out.append(Text(verdict_line(report), style="bold green" if report.conforms else "bold red"))
    return out


def render_markdown(report: VerifyReport) -> str:
    """A Markdown verdict page (what ``reports/verify/`` holds)."""
    lines = [f"# Verdict: `{report.target}`", ""]
    lines.append(f"**{'CONFORMS' if report.conforms else 'DOES NOT CONFORM'}**")
    lines.append("")
    for h in _header(report):
        key, _, val = h.partition(":")
        lines.append(f"- {key.strip()}: {val.strip()}")
    lines.append("")
    lines += ["## Per dtype", "", "| dtype | verdict | root causes | consequence checks |", "|---|---|---|---|"]
    for dt in report.dtypes:
        v = report.dtype_verdict(dt)
        lines.append(
            f"| {dt} | {v['verdict']} | {', '.join(v['labels']) or '-'} | {', '.join(v['consequences']) or '-'} |"
        )
    lines.append("")
    if report.findings:
        lines += ["## Findings", ""]
        for f in report.findings:
            lines.append(f"- **{f.label}**{f' ({f.dtype})' if f.dtype else ''}: {f.message}. Fix: {f.hint}")
            if f.consequences:
                lines.append(f"  - consequences (folded under it): {_consequences(f)}")
        lines.append("")
    lines += ["## Checks", "", "| check | dtype | result | evidence |", "|---|---|---|---|"]
    for c in report.checks:
        note = _consequence_note(report, c)
        ev = (c.evidence + (f" {note}" if note else "")).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {c.name} | {c.dtype or '-'} | {_STATUS[c.status]} | {ev} |")
    if report.notes:
        lines += ["", *[f"- note: {n}" for n in report.notes]]
    return "\n".join(lines) + "\n"


def render_junit(report: VerifyReport, *, suite: str = "ropecheck.verify") -> str:
    """JUnit XML: one testcase per check and per finding; failures carry the evidence and the fix."""
    cases = []
    for c in report.checks:
        name = f"{c.name}[{c.dtype}]" if c.dtype else c.name
        body = ""
        if c.status == "fail":
            note = _consequence_note(report, c)
            msg = c.evidence if not c.hint else f"{c.evidence} -- fix: {c.hint}"
            msg += f" {note}" if note else ""
            body = f"<failure message={quoteattr(msg)} type={quoteattr(c.code or 'failure')}>{escape(msg)}</failure>"
        elif c.status == "skip":
            body = f"<skipped message={quoteattr(c.evidence)}/>"
        cases.append(
            f"    <testcase classname={quoteattr(f'{suite}.{c.category}')} name={quoteattr(name)} "
            f'time="0">{body}</testcase>'
        )
    for f in report.findings:
        msg = f"{f.message} -- fix: {f.hint}" if f.hint else f.message
        if f.consequences:
            msg += f" -- consequences: {_consequences(f)}"
        cases.append(
            f'    <testcase classname={quoteattr(f"{suite}.findings")} name={quoteattr(f.label)} time="0">'
            f"<failure message={quoteattr(msg)} type={quoteattr(f.code)}>{escape(msg)}</failure></testcase>"
        )
    failures = sum(c.status == "fail" for c in report.checks) + len(report.findings)
    skipped = sum(c.status == "skip" for c in report.checks)
    total = len(report.checks) + len(report.findings)
    head = (
        f'<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n'
        f"  <testsuite name={quoteattr(f'{suite}:{report.target}')} "
        f'tests="{total}" failures="{failures}" errors="0" skipped="{skipped}" time="{report.duration_s:.3f}">'
    )
    return "\n".join([head, *cases, "  </testsuite>", "</testsuites>"]) + "\n"
