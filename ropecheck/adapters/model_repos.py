"""Model-repository RoPE code: litgpt, mistral-inference, llama-models (Meta's reference).

* litgpt: ``build_rope_cache`` (the cos/sin table ``GPT.rope_cache`` builds) indexed by the
  positions as ``GPT.forward(input_pos=...)`` does, then ``apply_rope`` on (batch, heads,
  seq, rope_n_elem); a Llama 3.1 config and a Pythia (partial rotary 0.25) config.
* mistral-inference: ``precompute_freqs_cis`` + ``apply_rotary_emb`` on flattened tokens
  (``freqs_cis[positions]``), as ``Transformer.forward`` does; interleaved complex form.
* llama-models: ``precompute_freqs_cis(use_scaled=True)`` + ``apply_rotary_emb`` with the
  slice ``freqs_cis[start_pos : start_pos + seqlen]`` (the ``fn(x, offset)`` convention), as
  ``Transformer.forward(tokens, start_pos)`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..schedules import Llama3
from ..spec import RopeSpec
from .registry import Adapter, positions_fn, register

__all__ = [
    "LITGPT_INSTALL",
    "LITGPT_PYTHIA_SPEC",
    "LLAMA_MODELS_INSTALL",
    "LLAMA_MODELS_SPEC",
    "MISTRAL_INSTALL",
    "MISTRAL_SPEC",
]

# A plain `pip install` of these breaks the environment: litgpt pins huggingface-hub<1.4 (transformers 5
# needs a newer one), mistral-inference pulls xformers (built for another torch) and an older numpy.
# Their RoPE code needs neither, so they install with --no-deps; llama-models imports an undeclared fairscale.
_PIN = "; c.txt holds torch==2.13.0"
LITGPT_INSTALL = (
    "pip install -c c.txt lightning 'jsonargparse[signatures]>=4.37,<=4.41' && pip install --no-deps litgpt" + _PIN
)
MISTRAL_INSTALL = "pip install --no-deps mistral-inference"
LLAMA_MODELS_INSTALL = "pip install -c c.txt llama-models fairscale==0.4.13" + _PIN

LITGPT_LLAMA3_SPEC = RopeSpec(
    head_dim=128, base=500000.0, layout="half", scaling=Llama3(8.0, 1.0, 4.0, 8192), max_position_embeddings=131072
)
LITGPT_PYTHIA_SPEC = RopeSpec(head_dim=256, rotary_dim=64, base=10000.0, layout="half", max_position_embeddings=2048)
MISTRAL_SPEC = RopeSpec(head_dim=128, base=1000000.0, layout="interleaved", max_position_embeddings=32768)
LLAMA_MODELS_SPEC = RopeSpec(
    head_dim=128,
    base=500000.0,
    layout="interleaved",
    scaling=Llama3(8.0, 1.0, 4.0, 8192),
    max_position_embeddings=131072,
)


def _litgpt(spec: RopeSpec, extra: dict[str, Any] | None, name: str) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        import torch  # heavy: imported when used
        from litgpt.model import apply_rope, build_rope_cache

        n_elem = spec.rotary_dim
        cos_t, sin_t = build_rope_cache(
            seq_len=spec.max_position_embeddings, n_elem=n_elem, base=int(spec.base), extra_config=extra
        )

        def fn(x: Any, positions: Any) -> Any:
            # GPT.forward: cos = self.cos[input_pos] (batch, seq, n_elem), cast like the model's buffers
            cos, sin = cos_t[positions].to(x.dtype), sin_t[positions].to(x.dtype)
            q = x.transpose(1, 2)  # (batch, heads, seq, head_dim), as CausalSelfAttention holds q
            roped = apply_rope(q[..., :n_elem], cos, sin)
            return torch.cat([roped, q[..., n_elem:]], -1).transpose(1, 2)

        return positions_fn(fn, name)

    return make


def _mistral() -> Callable[..., Any]:
    from mistral_inference.rope import apply_rotary_emb, precompute_freqs_cis

    freqs_cis = precompute_freqs_cis(MISTRAL_SPEC.head_dim, MISTRAL_SPEC.max_position_embeddings, MISTRAL_SPEC.base)

    def fn(x: Any, positions: Any) -> Any:
        b, s, h, d = x.shape
        q = x.reshape(b * s, h, d)
        fc = freqs_cis.to(x.device)[positions.reshape(-1)]
        out, _ = apply_rotary_emb(q, q, fc)
        return out.reshape(b, s, h, d)

    return positions_fn(fn, "mistral-inference")


def _llama_models() -> Callable[..., Any]:
    from llama_models.llama3.model import apply_rotary_emb, precompute_freqs_cis

    s = LLAMA_MODELS_SPEC
    freqs_cis = precompute_freqs_cis(s.head_dim, s.max_position_embeddings, s.base, use_scaled=True)

    def fn(x: Any, offset: int = 0) -> Any:
        seqlen = x.shape[1]
        fc = freqs_cis.to(x.device)[offset : offset + seqlen]
        out, _ = apply_rotary_emb(x, x, fc)
        return out

    fn.rope_convention = "offset"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = "llama-models"
    return fn


_LLAMA3_EXTRA = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_seq_len": 8192}

register(
    Adapter(
        "litgpt-llama3",
        "litgpt",
        "litgpt",
        LITGPT_LLAMA3_SPEC,
        _litgpt(LITGPT_LLAMA3_SPEC, _LLAMA3_EXTRA, "litgpt-llama3"),
        install=LITGPT_INSTALL,
        description="litgpt build_rope_cache (Llama 3.1 rope_adjustments) + apply_rope",
    )
)
register(
    Adapter(
        "litgpt-pythia",
        "litgpt",
        "litgpt",
        LITGPT_PYTHIA_SPEC,
        _litgpt(LITGPT_PYTHIA_SPEC, None, "litgpt-pythia"),
        install=LITGPT_INSTALL,
        description="litgpt build_rope_cache + apply_rope, Pythia shape: rope_n_elem 64 of 256",
    )
)
register(
    Adapter(
        "mistral-inference",
        "mistral-inference",
        "mistral_inference",
        MISTRAL_SPEC,
        _mistral,
        install=MISTRAL_INSTALL,
        description="mistral_inference.rope precompute_freqs_cis(128, 32768, 1e6) + apply_rotary_emb",
    )
)
register(
    Adapter(
        "llama-models",
        "llama-models",
        "llama_models",
        LLAMA_MODELS_SPEC,
        _llama_models,
        install=LLAMA_MODELS_INSTALL,
        description="llama_models.llama3.model precompute_freqs_cis(use_scaled=True) + apply_rotary_emb",
    )
)
