"""Root causes across libraries (ropecheck.survey.render.roots_across): the same cause in several libraries."""

from __future__ import annotations

from ropecheck.survey.render import render_roots_across, roots_across

INV_FREQ = "precision/inv_freq_low_precision @ cast"


def _doc(library: str, version: str, causes: dict[str, list[str]]) -> dict[str, object]:
    return {library: version, "root_causes": [{"cause": c, "families": f} for c, f in causes.items()]}


def test_a_cause_two_libraries_share_comes_first_with_each_librarys_rows() -> None:
    documents = {
        "transformers": _doc("transformers", "5.24.0", {INV_FREQ: ["llama", "gemma"], "config/x @ config": ["glm"]}),
        "diffusers": _doc("diffusers", "0.42.1", {INV_FREQ: ["anima"], "precision @ cast": ["kandinsky6"]}),
    }
    entries = roots_across(documents)
    assert entries[0] == {"cause": INV_FREQ, "libraries": {"transformers": ["llama", "gemma"], "diffusers": ["anima"]}}
    assert {e["cause"] for e in entries[1:]} == {"config/x @ config", "precision @ cast"}
    assert all(len(e["libraries"]) == 1 for e in entries[1:])  # causes of one library are not merged with others
    page = render_roots_across(documents)
    assert f"| `{INV_FREQ}` | 2: `llama`, `gemma` | 1: `anima` |" in page
    assert "| `precision @ cast` | - | 1: `kandinsky6` |" in page


def test_libraries_without_findings_say_none() -> None:
    page = render_roots_across({"timm": _doc("timm", "1.0.31", {}), "diffusers": _doc("diffusers", "0.42.1", {})})
    assert roots_across({"timm": _doc("timm", "1.0.31", {})}) == []
    assert "| none | - | - |" in page
