"""Proof reports: pure rendering, and ``ropecheck prove`` writing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ropecheck.cli.main import main
from ropecheck.proofs.context_extension import context_extension
from ropecheck.proofs.relative_position import rotation_2d
from ropecheck.symbolic import (
    proofs_to_json,
    render_index_markdown,
    render_proof_markdown,
    render_proof_text,
    step_mathml,
)


def test_markdown_has_every_step_in_latex_with_its_rewrite() -> None:
    proof = rotation_2d()
    md = render_proof_markdown(proof, number=1)
    assert md.startswith("# Theorem 1a: ")
    for step in proof.steps:
        assert f"`{step.name}`" in md and f"`{step.method}`" in md
    assert md.count("$$") >= 2 * len(proof.steps)
    assert "PROVED" in md


def test_markdown_shows_the_intended_refutation() -> None:
    md = render_proof_markdown(context_extension())
    assert "❌ REFUTED (expected)" in md and "Counterexample" in md and "\\ne 0" in md


def test_index_and_json() -> None:
    proofs = [rotation_2d()]
    index = render_index_markdown(proofs, numbers={"relative_position": 1}, total_seconds=0.5)
    assert "| 1a | [The 2x2 rotation group](rotation_2d.md)" in index and "All as intended." in index
    data = proofs_to_json(proofs)
    assert data["as_intended"] and data["theorems"][0]["steps"][0]["lhs_latex"]
    json.dumps(data)


def test_text_and_mathml() -> None:
    proof = rotation_2d()
    assert render_proof_text(proof).startswith("PROVED")
    assert step_mathml(proof.steps[1]).startswith('<math display="block">')


def test_cli_prove_writes_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "proofs"
    assert main(["prove", "relative_position", "layouts", "--d", "8", "--out", str(out), "--json"]) == 0
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == [
        "index.md",
        "layouts_agree.md",
        "proofs.json",
        "relative_position_2d.md",
        "relative_position_d8.md",
        "rotation_2d.md",
    ]
    data = json.loads((out / "proofs.json").read_text())
    assert [t["verdict"] for t in data["theorems"]] == ["PROVED"] * 4
    assert "PROVED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [["prove"], ["prove", "nope"], ["prove", "--d", "7"], ["prove", "--all", "forms"]],
    ids=["nothing", "unknown", "odd-d", "all-and-names"],
)
def test_cli_prove_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_prove_list_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--list"]) == 0
    assert "8. multi_axis" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["prove", "--help"])
    assert info.value.code == 0


def test_decay_page_links_its_plot() -> None:
    from ropecheck.proofs.long_term_decay import long_term_decay
    from ropecheck.symbolic import decay_svg

    proof = long_term_decay(small=(1,))
    assert "](decay.svg)" in render_proof_markdown(proof)
    assert decay_svg(proof.data["decay_curve"]).startswith("<svg")
