"""The Coq bridge: checking the Coq certificates of RoPE's identities (``ropecheck prove --certify``).

:mod:`.certify` compiles the ``.v`` files of ``proofs/coq/`` with ``coqc`` and says which are
certificates; :mod:`.data` is the certificates' table (files, theorems, allowed axioms);
:mod:`.source` reads Coq source and coqc's output.

Design constraints: the Coq bridge may import the engine, never a reader, the audit or the
pages (it renders nothing).
"""

from . import certify, data, source

__all__ = ["certify", "data", "source"]
