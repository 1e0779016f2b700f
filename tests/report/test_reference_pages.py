"""The reference pages (``reports/reference/``): generated from the code, committed, and kept true."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ropecheck.cli.main import build_parser
from ropecheck.cli.report import report_files
from ropecheck.diagnosis import CAUSES
from ropecheck.errors import ExitCode
from ropecheck.report import Report
from ropecheck.report.reference import (
    REFERENCE_FOLDER,
    SCHEMAS,
    JsonDocument,
    reference_pages,
    render_findings,
    render_flags,
    render_schemas,
    top_level_keys,
)
from ropecheck.verify import model as verify_model

COMMITTED = Path(__file__).resolve().parents[2] / "reports"
PAGES = ("README.md", "exit-codes.md", "findings.md", "flags.md", "schemas.md")


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return reference_pages(build_parser())


def test_committed_reference_pages_are_what_the_code_writes(pages: dict[str, str]) -> None:
    """The staleness test: reports/reference/ is byte for byte what the code generates now."""
    assert sorted(pages) == [REFERENCE_FOLDER + p for p in PAGES]
    committed = sorted(p.name for p in (COMMITTED / REFERENCE_FOLDER).iterdir() if not p.name.startswith("."))
    assert committed == sorted(PAGES), "reports/reference/ holds other pages: run `ropecheck report --only reference`"
    for rel, text in pages.items():
        assert (COMMITTED / rel).read_text(encoding="utf-8") == text, (
            f"reports/{rel} is stale: run `ropecheck report --only reference`"
        )


def test_every_report_writes_the_reference_pages(pages: dict[str, str]) -> None:
    """Full and partial runs alike: the pages are in the report's file map whatever sections ran."""
    files = report_files(Report(header={}, sections=[]))
    assert {rel: files[rel] for rel in pages} == pages


def test_pages_are_deterministic(pages: dict[str, str]) -> None:
    assert reference_pages(build_parser()) == pages


def test_every_code_flag_and_key_is_on_its_page(pages: dict[str, str]) -> None:
    findings = pages[REFERENCE_FOLDER + "findings.md"]
    for code in verify_model.FINDING_CODES:
        assert f"| `{code}` |" in findings, code
    exits = pages[REFERENCE_FOLDER + "exit-codes.md"]
    for member in ExitCode:
        assert f"| {int(member)} | `{member.name}` |" in exits, member
    flags = pages[REFERENCE_FOLDER + "flags.md"]
    parser = build_parser()
    for name, sub in _subparsers(parser).items():
        assert f"## `ropecheck {name}`" in flags, name
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):  # every command has --help: not listed
                continue
            for option in action.option_strings:
                assert f"`{option}`" in flags, (name, option)
    schemas = pages[REFERENCE_FOLDER + "schemas.md"]
    for doc in SCHEMAS:
        for key, _ in top_level_keys(doc.build):
            assert f"| `{key}` |" in schemas, (doc.title, key)
    for name in ("ropecheck.verify/1", "ropecheck-report/1", "ropecheck.survey/1", "ropecheck-audit/1"):
        assert f"`{name}`" in schemas, name


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the CLI has no subcommands")


def test_a_new_finding_code_changes_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    before = render_findings()
    monkeypatch.setitem(verify_model.FINDING_CODES, "brand_new_code", "a finding the page has not seen")
    monkeypatch.setitem(CAUSES, "brand_new_cause", ("positions", "a cause the page has not seen"))
    after = render_findings()
    assert after != before
    assert "| `brand_new_code` | a finding the page has not seen |" in after
    assert "| `brand_new_cause` | `positions` | a cause the page has not seen |" in after


def test_a_new_flag_changes_the_page() -> None:
    parser = build_parser()
    before = render_flags(parser)
    _subparsers(parser)["verify"].add_argument("--brand-new-flag", default="7", help="a flag the page has not seen")
    after = render_flags(parser)
    assert after != before
    assert "| `--brand-new-flag` | `BRAND_NEW_FLAG` | `7` | a flag the page has not seen |" in after


def _example_to_dict() -> dict[str, object]:
    return {"schema": "ropecheck.example/1", "answer": 42, **{"more": True}}


def test_a_new_json_document_or_key_changes_the_page() -> None:
    assert top_level_keys(_example_to_dict) == [
        ("schema", "'ropecheck.example/1'"),
        ("answer", "42"),
        ("**{'more': True}", ""),
    ]
    extra = JsonDocument("Example", "`ropecheck example --json`", _example_to_dict)
    after = render_schemas((*SCHEMAS, extra))
    assert after != render_schemas()
    assert "| [Example](#example) | `ropecheck.example/1` |" in after and "| `answer` | `42` |" in after
