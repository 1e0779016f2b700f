"""The audit of a written derivation: every step of every display equation of a document, decided.

:mod:`.document` reads a Markdown or LaTeX document's math into chains of steps;
:mod:`.reading` says what each equation is (a definition, a condition, a step) and reads and
decides one step; :mod:`.names` recognises the new names a line may define (``\\tilde{q}``,
``q'``, ``PE_{(pos,2i)}``); :mod:`.approx` reads ``\\approx`` as equal after rounding to the digits
written; :mod:`.run` runs the audit (:func:`~.run.audit_document`) and :mod:`.steps` decides its chains, with
:mod:`.unknowns` saying which names have no value and which any value; :mod:`.result`
holds its result; :mod:`.render` renders that result as text, Markdown and HTML.

Design constraints: the audit imports the engine and the readers, and the pages for its
rendering (their equation layout and counterexamples); nothing in :mod:`ropecheck.symbolic`
imports the audit.
"""

from . import approx, document, names, reading, render, result, run, steps, unknowns

__all__ = ["approx", "document", "names", "reading", "render", "result", "run", "steps", "unknowns"]
