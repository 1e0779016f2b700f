"""Reference pages generated from the code: finding codes, exit codes, command flags, JSON schemas.

:func:`reference_pages` returns ``reports/reference/``'s pages (relative path -> Markdown):
``README.md`` (the index), ``findings.md`` (the verifier's family codes and the causes that
refine them, with their sentences), ``exit-codes.md`` (:class:`~ropecheck.errors.ExitCode`
with its comments, and which errors map to which code), ``flags.md`` (every command's options
from the parser, with help and defaults) and ``schemas.md`` (the top-level keys of each JSON
document, read from the function that builds it). Nothing here is typed in by hand, so a code,
a flag or a key added to the code shows on the page, and the staleness test sees the change.

Design constraints: pure (data in, text out) and deterministic -- sorted where the code has no
order, no times, no versions, nothing read from the machine; the CLI's parser is passed in
(the report code sits below the CLI and never imports it).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import errors
from ..diagnosis import CAUSES
from ..precision.sweep import Sweep
from ..survey.render import survey_data
from ..symbolic.audit.steps import AuditResult
from ..symbolic.engine.proof import Proof
from ..symbolic.pages.render import proofs_to_json
from ..symbolic.readers.claim import ClaimResult
from ..verify import model as verify_model
from .model import Report

__all__ = [
    "REFERENCE_FOLDER",
    "SCHEMAS",
    "JsonDocument",
    "reference_pages",
    "render_exit_codes",
    "render_findings",
    "render_flags",
    "render_schemas",
    "top_level_keys",
]

#: The folder of the reference pages under the report folder.
REFERENCE_FOLDER = "reference/"

_GENERATED = "Generated from the code by `ropecheck report`; do not edit (a test compares it with the code)."


@dataclass(frozen=True)
class JsonDocument:
    """A JSON document ropecheck writes: who writes it, and the function whose returned dict it is."""

    title: str
    written_by: str
    build: Callable[..., Any]
    #: documents nested in this one: (where, the function building each)
    nested: tuple[tuple[str, Callable[..., Any]], ...] = ()


#: Every JSON document, in the order the page lists them.
SCHEMAS: tuple[JsonDocument, ...] = (
    JsonDocument(
        "Verdict of one target",
        "`ropecheck verify TARGET --json PATH`; `verify --all-adapters --report-dir DIR` (`<adapter>.json`)",
        verify_model.VerifyReport.to_dict,
        (("findings[]", verify_model.Finding.to_dict), ("checks[]", verify_model.Check.to_dict)),
    ),
    JsonDocument("The report", "`ropecheck report` (`reports/report.json`)", Report.to_dict),
    JsonDocument("Survey of transformers", "`ropecheck survey --json PATH`", survey_data),
    JsonDocument("Audit of a document", "`ropecheck audit FILE --json PATH`", AuditResult.to_dict),
    JsonDocument("Verdict of one claim", "`ropecheck claim CLAIM --json [PATH]`", ClaimResult.to_dict),
    JsonDocument(
        "Proofs",
        "`ropecheck prove --json [PATH]` (default `DIR/proofs.json`)",
        proofs_to_json,
        (("theorems[]", Proof.to_dict),),
    ),
    JsonDocument("Precision sweep", "`ropecheck precision --json [PATH]`", Sweep.to_dict),
)


# --------------------------------------------------------------------------- helpers


def _cell(text: Any) -> str:
    """One Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _page(title: str, intro: str, body: list[str]) -> str:
    return "\n".join([f"# {title}", "", intro, "", _GENERATED, "", *body]).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- finding codes


def render_findings() -> str:
    """``findings.md``: every family code (stable for CI scripts) and the causes that refine it."""
    codes: dict[str, str] = verify_model.FINDING_CODES
    families = sorted(c for c in codes if c not in CAUSES)
    by_family: dict[str, list[str]] = {}
    for cause, (family, _) in CAUSES.items():
        by_family.setdefault(family, []).append(cause)
    body = [
        "## Family codes",
        "",
        "A finding's `code` is one of these. *independent*: reported even next to a structural finding "
        "(identification cannot see it).",
        "",
        "| code | meaning | independent | causes |",
        "|---|---|---|---|",
    ]
    for code in families:
        causes = ", ".join(f"`{c}`" for c in sorted(by_family.get(code, []))) or "—"
        independent = "yes" if code in verify_model.INDEPENDENT_CODES else ""
        body.append(f"| `{code}` | {_cell(codes[code])} | {independent} | {causes} |")
    body += [
        "",
        "## Causes",
        "",
        "A finding's `cause`, where the evidence names the real-world mistake behind its family code.",
        "",
        "| cause | family | meaning |",
        "|---|---|---|",
    ]
    for cause in sorted(CAUSES):
        family, text = CAUSES[cause]
        body.append(f"| `{cause}` | `{family}` | {_cell(text)} |")
    unknown = sorted(f for f in by_family if f not in codes)
    if unknown:  # a cause refining a code that is not a family code: shown, never dropped
        body += ["", "Causes of unknown families: " + ", ".join(f"`{f}`" for f in unknown) + "."]
    return _page(
        "Finding codes",
        f"{len(families)} family codes and {len(CAUSES)} causes (`ropecheck.verify.FINDING_CODES`, "
        "`ropecheck.diagnosis.CAUSES`), as `verify --json` writes them in `findings[].code` and "
        "`findings[].cause`.",
        body,
    )


# --------------------------------------------------------------------------- exit codes

_MEMBER = re.compile(r"^\s*(?P<name>[A-Z_]+)\s*=\s*(?P<value>\d+)\s*#:\s*(?P<doc>.*)$")


def _member_docs(cls: type) -> dict[str, str]:
    """The ``#:`` comment after each member of an enum class, from its source."""
    out = {}
    for line in inspect.getsource(cls).splitlines():
        m = _MEMBER.match(line)
        if m:
            out[m["name"]] = m["doc"].strip()
    return out


def _first_line(doc: str | None) -> str:
    return (inspect.cleandoc(doc or "").split("\n\n")[0]).replace("\n", " ")


def render_exit_codes() -> str:
    """``exit-codes.md``: :class:`~ropecheck.errors.ExitCode`, each with its comment, and the errors behind 2 and 70."""
    docs = _member_docs(errors.ExitCode)
    body = ["| code | name | meaning |", "|---:|---|---|"]
    for member in sorted(errors.ExitCode, key=int):
        body.append(f"| {int(member)} | `{member.name}` | {_cell(docs.get(member.name, '—'))} |")
    body += ["", "## Errors", "", "| exception | exit code | what it is |", "|---|---:|---|"]
    for name in sorted(errors.__all__):
        obj = getattr(errors, name)
        if not isinstance(obj, type) or not issubclass(obj, BaseException):
            continue
        code = errors.ExitCode.USAGE if issubclass(obj, errors.RopeCheckError) else errors.ExitCode.INTERNAL
        if obj is errors.TargetMemoryError:  # the target's own failure, judged: never ropecheck's
            code = errors.ExitCode.FAIL
        body.append(f"| `{name}` | {int(code)} | {_cell(_first_line(obj.__doc__))} |")
    return _page("Exit codes", _cell(_first_line(errors.ExitCode.__doc__)), body)


# --------------------------------------------------------------------------- flags


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%(" in text:
        params = {**vars(action), "prog": prog}
        params = {k: getattr(v, "__name__", v) for k, v in params.items()}
        try:
            text = text % params
        except (KeyError, TypeError, ValueError):
            pass
    return text


def _argument(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and not isinstance(action.choices, dict):
        shown = "{" + ",".join(str(c) for c in action.choices) + "}"
    elif action.metavar is not None:
        shown = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    else:
        shown = action.dest.upper()
    if action.nargs == "?":
        return f"[{shown}]"
    if action.nargs in ("*", "+"):
        return f"{shown} …"
    return shown


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is argparse.SUPPRESS or action.nargs == 0:
        return ""
    if isinstance(d, (list, tuple)):
        return " ".join(str(x) for x in d)
    return str(d)


def _command_lines(name: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f"## `ropecheck {name}`", ""]
    if parser.description:
        lines += [" ".join(parser.description.split()), ""]
    lines += ["| option | argument | default | help |", "|---|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.help is argparse.SUPPRESS:
            continue
        flags = ", ".join(f"`{s}`" for s in action.option_strings) or f"*{action.metavar or action.dest}* (positional)"
        arg = _code(_cell(_argument(action) if action.option_strings else ""))
        default, text = _code(_cell(_default(action))), _cell(_help(action, parser.prog))
        lines.append(f"| {flags} | {arg} | {default} | {text} |")
    lines.append("")
    for sub, child in sorted(_subcommands(parser).items()):
        lines += _command_lines(f"{name} {sub}", child)
    return lines


def render_flags(parser: argparse.ArgumentParser) -> str:
    """``flags.md``: every command's options (the CLI's parser), with their argument, default and help."""
    commands = sorted(_subcommands(parser).items())
    body = ["| command | what it does |", "|---|---|"]
    for name, child in commands:
        body.append(f"| [`{name}`](#ropecheck-{name}) | {_cell(_first_line(child.description))} |")
    body.append("")
    for name, child in commands:
        body += _command_lines(name, child)
    return _page(
        "Command-line flags",
        f"Every `{parser.prog}` command and its options, as `{parser.prog} COMMAND --help` lists them.",
        body,
    )


# --------------------------------------------------------------------------- JSON schemas


def _returned_dict(func: Callable[..., Any]) -> ast.Dict:
    """The dict literal ``func`` returns (the first one inside its last ``return``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    fn = tree.body[0]
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    for ret in reversed(returns):
        found = next((n for n in ast.walk(ret) if isinstance(n, ast.Dict)), None)
        if found is not None:
            return found
    raise ValueError(f"{func.__qualname__} returns no dict literal")


def _shorten(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def top_level_keys(func: Callable[..., Any]) -> list[tuple[str, str]]:
    """``(key, the expression that gives its value)`` for the dict ``func`` returns, in the code's order.

    A ``**expr`` entry is listed as ``**expr`` (its keys come from ``expr``).
    """
    node = _returned_dict(func)
    out = []
    for key, value in zip(node.keys, node.values):
        if key is None:
            out.append((f"**{ast.unparse(value)}", ""))
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.append((key.value, ast.unparse(value)))
        else:
            out.append((ast.unparse(key), ast.unparse(value)))
    return out


def _schema_name(func: Callable[..., Any], keys: list[tuple[str, str]]) -> str | None:
    expr = dict(keys).get("schema")
    if expr is None:
        return None
    try:
        value = ast.literal_eval(expr)
    except ValueError:
        value = getattr(inspect.getmodule(func), expr, None)
    return value if isinstance(value, str) else None


def _key_table(func: Callable[..., Any]) -> list[str]:
    lines = ["| key | from |", "|---|---|"]
    for key, expr in top_level_keys(func):
        lines.append(f"| `{_cell(key)}` | {_code(_cell(_shorten(expr)))} |")
    return lines


def render_schemas(documents: tuple[JsonDocument, ...] = SCHEMAS) -> str:
    """``schemas.md``: each JSON document's schema name, who writes it and its top-level keys."""
    index = ["| document | schema | written by |", "|---|---|---|"]
    body: list[str] = []
    for doc in documents:
        keys = top_level_keys(doc.build)
        name = _schema_name(doc.build, keys)
        anchor = re.sub(r"[^a-z0-9 -]", "", doc.title.lower()).replace(" ", "-")
        index.append(f"| [{doc.title}](#{anchor}) | {_code(name or '')} | {_cell(doc.written_by)} |")
        where = f"{doc.build.__module__}.{doc.build.__qualname__}"
        body += [f"## {doc.title}", ""]
        body += [f"Schema `{name}`." if name else "No `schema` key (the keys below are the contract).", ""]
        body += [f"Written by {doc.written_by}; built by `{where}`.", "", *_key_table(doc.build), ""]
        for place, func in doc.nested:
            body += [f"Each of `{place}` (`{func.__module__}.{func.__qualname__}`):", "", *_key_table(func), ""]
    return _page(
        "JSON schemas",
        "The JSON documents ropecheck writes and their top-level keys, read from the function that builds "
        "each one. A key is added only with its schema's version kept or raised as the README's changes say.",
        [*index, "", *body],
    )


# --------------------------------------------------------------------------- the pages


def reference_pages(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The reference pages (path under the report folder -> Markdown); ``parser`` is the CLI's.

    Example:
        >>> from ropecheck.cli.main import build_parser
        >>> sorted(reference_pages(build_parser()))[:2]
        ['reference/README.md', 'reference/exit-codes.md']
    """
    pages = {
        "findings.md": ("Finding codes", "the verifier's family codes and causes", render_findings()),
        "exit-codes.md": ("Exit codes", "what each exit status means, and the errors behind them", render_exit_codes()),
        "flags.md": ("Command-line flags", "every command's options, defaults and help", render_flags(parser)),
        "schemas.md": ("JSON schemas", "the JSON documents and their top-level keys", render_schemas()),
    }
    index = ["| page | what it holds |", "|---|---|"]
    index += [f"| [{title}]({path}) | {what} |" for path, (title, what, _) in sorted(pages.items())]
    intro = "The contracts users and CI scripts depend on, one page each."
    out = {REFERENCE_FOLDER + "README.md": _page("Reference", intro, index)}
    out.update({REFERENCE_FOLDER + path: text for path, (_, _, text) in sorted(pages.items())})
    return out
