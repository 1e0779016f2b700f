"""The bracket scan every reader cuts LaTeX with: :func:`top_level` against its definition, character by character."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ropecheck.symbolic.readers.latex_text import OPENERS, top_level

_CLOSERS = {v: k for k, v in OPENERS.items()}
#: the extras the audit passes (document.py), and a pair whose opener is a bracket and one token in two pairs
EXTRAS = [
    (),
    (("\\begin{", "\\end{"), ("\\langle", "\\rangle"), ("\\lbrace", "\\rbrace")),
    (("\\left(", "\\right)"), ("(", ")")),
    (("\\langle", "\\rangle"), ("\\langle", "|")),
    (("\\langle", "|"), ("|", "\\rangle")),  # "|" closes in the first pair, opens in the second: the first wins
    (("{", "}"),),
    (("{{", "}}"), ("\\begin{", "\\end{")),
]


def _by_character(text: str, extra: tuple[tuple[str, str], ...]) -> list[int]:
    """The definition: at each character the first of ``extra`` (opener, then closer) that starts there, else a
    bracket; an extra ending in a brace takes the text up to the next ``}`` with it."""
    depth, out, i = 0, [], 0
    while i < len(text):
        for token, step in ((t, s) for pair in extra for t, s in zip(pair, (1, -1))):
            if text.startswith(token, i):
                end = i + len(token)
                if token.endswith("{"):
                    brace = text.find("}", end)
                    end = brace + 1 if brace >= 0 else len(text)
                depth -= step < 0
                out.extend([depth] * (end - i))
                depth += step > 0
                i = end
                break
        else:
            depth -= text[i] in _CLOSERS
            out.append(depth)
            depth += text[i] in OPENERS
            i += 1
    return out


_PIECES = ["a", " ", "(", ")", "[", "]", "{", "}", "|", "\\begin{", "pmatrix", "\\end{", "\\langle", "\\rangle"]
_PIECES += ["\\lbrace", "\\rbrace", "\\left(", "\\right)", "\\left", "\\", "{{", "}}"]


@settings(max_examples=400)  # a few milliseconds each
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.sampled_from(EXTRAS))
def test_the_scan_is_its_definition(pieces: list[str], extra: tuple[tuple[str, str], ...]) -> None:
    text = "".join(pieces)
    assert top_level(text, extra) == _by_character(text, extra)


def test_depths_of_written_examples() -> None:
    assert top_level("a(b)c") == [0, 0, 1, 0, 0]
    env = (("\\begin{", "\\end{"),)
    text = "x\\begin{m}1\\end{m}y"
    assert top_level(text, env) == [0] + [0] * 9 + [1] + [0] * 7 + [0]
    assert top_level("\\begin{m", env) == [0] * 8  # no closing brace: the token runs to the end
    assert top_level("\\langle u\\rangle", (("\\langle", "\\rangle"),)) == [0] * 7 + [1, 1] + [0] * 7
