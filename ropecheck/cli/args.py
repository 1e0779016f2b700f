"""What the commands share: exit codes, the spec flags, and writing JSON.

Design constraints: every command module imports from here, never from another command or
from :mod:`.main`; a flag's parsing problem is a :class:`~ropecheck.errors.UsageError`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from ..errors import UsageError
from ..hf import scaling_from_dict
from ..io import write_output
from ..spec import RopeSpec

__all__ = [
    "EXIT_FAIL",
    "EXIT_OK",
    "EXIT_UNDECIDED",
    "EXIT_USAGE",
    "add_spec_arguments",
    "conventions_from_args",
    "spec_from_args",
    "write_json",
]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3


def add_spec_arguments(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """Flags that describe a RopeSpec, shared by every command that needs one."""
    g = parser.add_argument_group("RoPE spec (flags, or --hf-config)")
    g.add_argument("--hf-config", metavar="PATH", help="read the spec from a Hugging Face config.json (or its folder)")
    g.add_argument(
        "--head-dim",
        type=int,
        metavar="D",
        help="head dimension (even)" + (" [required without --hf-config]" if required else ""),
    )
    g.add_argument("--rotary-dim", type=int, metavar="R", help="rotated dims (partial rotary); default: head dim")
    g.add_argument("--base", type=float, metavar="THETA", help="rope_theta (default 10000)")
    g.add_argument(
        "--layout",
        choices=("interleaved", "half"),
        help="pairing: interleaved (x2i,x2i+1) or half (xi,xi+r/2); default half",
    )
    g.add_argument(
        "--rope-scaling",
        metavar="JSON",
        help="schedule as HF rope_scaling JSON, e.g. "
        '\'{"rope_type":"yarn","factor":4,"original_max_position_embeddings":4096}\'',
    )
    g.add_argument(
        "--max-position-embeddings", type=int, metavar="N", help="the model's context length (dynamic NTK, LongRoPE)"
    )
    c = parser.add_argument_group("conventions (deliberate differences a model was trained with)")
    c.add_argument(
        "--direction",
        type=_direction,
        metavar="+1|-1",
        help="rotation direction: +1 turns each pair by +m*theta_i (default), -1 by -m*theta_i",
    )
    c.add_argument(
        "--attention-factor-in",
        choices=("cos_sin", "softmax"),
        help="where the model applies the YaRN/LongRoPE attention factor: on cos and sin (default, as transformers) "
        "or on the softmax scale (the RoPE output is then a pure rotation)",
    )
    c.add_argument(
        "--rotary-dims",
        choices=("first", "last"),
        help="which end of the head holds the rotary_dim rotated dims (default first; last: DeepSeek MLA's "
        "cat(q_nope, q_pe))",
    )


def _direction(text: str) -> int:
    value = text.strip()
    if value in ("+1", "1"):
        return 1
    if value == "-1":
        return -1
    raise argparse.ArgumentTypeError(f"must be +1 or -1, got {text!r}")


def conventions_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The convention flags given (``direction``, ``attention_factor_in``, ``rotary_dims``)."""
    out: dict[str, Any] = {}
    for key in ("direction", "attention_factor_in", "rotary_dims"):
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


def spec_from_args(args: argparse.Namespace) -> RopeSpec:
    """Build the RopeSpec the shared flags describe; flags override an --hf-config."""
    scaling_json = None
    if args.rope_scaling is not None:
        try:
            scaling_json = json.loads(args.rope_scaling)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--rope-scaling is not valid JSON: {exc.msg}") from None
        if not isinstance(scaling_json, dict):
            raise UsageError("--rope-scaling must be a JSON object")
    if args.hf_config:
        spec = RopeSpec.from_hf_config(args.hf_config, layout=args.layout)
        changes: dict[str, Any] = {}
        if args.head_dim is not None:
            changes["head_dim"] = args.head_dim
            changes["rotary_dim"] = args.rotary_dim
        elif args.rotary_dim is not None:
            changes["rotary_dim"] = args.rotary_dim
        if args.base is not None:
            changes["base"] = args.base
        if args.max_position_embeddings is not None:
            changes["max_position_embeddings"] = args.max_position_embeddings
        if scaling_json is not None:
            changes["scaling"] = scaling_from_dict(
                scaling_json,
                max_position_embeddings=changes.get("max_position_embeddings", spec.max_position_embeddings),
            )
        changes.update(conventions_from_args(args))
        return spec.with_(**changes) if changes else spec
    if args.head_dim is None:
        raise UsageError("give --head-dim (or --hf-config PATH)")
    scaling = scaling_from_dict(scaling_json, max_position_embeddings=args.max_position_embeddings)
    return RopeSpec(
        head_dim=args.head_dim,
        rotary_dim=args.rotary_dim,
        base=10000.0 if args.base is None else args.base,
        layout=args.layout or "half",
        scaling=scaling,
        max_position_embeddings=args.max_position_embeddings,
        **conventions_from_args(args),
    )


def write_json(data: Any, target: str) -> None:
    """Write JSON to a path (atomically), through a FIFO or device, or to stdout for ``-`` (see :mod:`ropecheck.io`)."""
    text = json.dumps(data, indent=2, sort_keys=False, default=_json_default) + "\n"
    write_output(target, text)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
