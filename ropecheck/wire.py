"""The message format between ropecheck and the process that runs a target: data only, checked on arrival.

A judged target runs in a child process (:mod:`ropecheck.isolate`, :mod:`ropecheck.host`), and
whatever that process sends back is the target's word, not ropecheck's: it may be malformed,
oversized or crafted. So a reply is never unpickled. A frame is::

    b"RCW1" | total length (8 bytes, big-endian) | header length (4 bytes) | JSON header | array bytes

The JSON header holds ``None``, booleans, numbers, strings, lists and string-keyed objects; an
array stands in it as ``{"$nd": [offset, nbytes, dtype, shape]}``, its bytes after the header.
:func:`decode` accepts only the dtypes of :data:`DTYPES`, checks that every array's bytes are
exactly ``prod(shape) * itemsize`` and lie inside the frame, and refuses a frame over the size
the caller allows -- all before any array is built. A malformed frame is a :class:`WireError`,
which the supervisor reports as the target corrupting its channel, never as ropecheck's bug.

Design constraints: standard library and numpy only (the judging process imports no torch for
it); arrays travel C-contiguous in native byte order; decoding copies nothing but the arrays.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np

__all__ = ["DTYPES", "MAGIC", "WireError", "decode", "encode", "frame_length"]

MAGIC = b"RCW1"
_PREFIX = struct.Struct("!4sQ")
_HEADER = struct.Struct("!I")
#: The array dtypes a frame may carry (every float a target's output is sent as float64).
DTYPES = frozenset({"float64", "float32", "int64", "int32", "bool", "complex128"})
_MAX_HEADER = 16 << 20
_MAX_DEPTH = 32


class WireError(ValueError):
    """A frame that is not a well-formed message (the sender wrote something else into the channel)."""


def _flatten(obj: Any, blobs: list[bytes], offset: list[int], depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueError("message nested too deeply")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else {"$f": repr(value)}
    if isinstance(obj, np.ndarray):
        name = str(obj.dtype)
        if name not in DTYPES:
            raise ValueError(f"arrays of dtype {name} do not travel")
        data = np.ascontiguousarray(obj).tobytes()
        ref = {"$nd": [offset[0], len(data), name, [int(n) for n in obj.shape]]}
        blobs.append(data)
        offset[0] += len(data)
        return ref
    if isinstance(obj, (list, tuple)):
        return [_flatten(v, blobs, offset, depth + 1) for v in obj]
    if isinstance(obj, dict):
        if not all(isinstance(k, str) and not k.startswith("$") for k in obj):
            raise ValueError("message keys must be strings not starting with '$'")
        return {k: _flatten(v, blobs, offset, depth + 1) for k, v in obj.items()}
    raise ValueError(f"a {type(obj).__name__} does not travel")


def encode(obj: Any) -> bytes:
    """One frame holding ``obj`` (JSON data with numpy arrays inside).

    Example:
        >>> decode(encode({"out": np.arange(3.0), "ok": True}))["out"].tolist()
        [0.0, 1.0, 2.0]
    """
    blobs: list[bytes] = []
    header = json.dumps(_flatten(obj, blobs, [0]), separators=(",", ":"), allow_nan=False).encode("utf-8")
    body = _HEADER.pack(len(header)) + header + b"".join(blobs)
    return _PREFIX.pack(MAGIC, len(body)) + body


def frame_length(prefix: bytes, limit: int) -> int:
    """The body length announced by a frame's 12-byte prefix; WireError if it is not ours or over ``limit``."""
    if len(prefix) != _PREFIX.size:
        raise WireError("truncated frame prefix")
    magic, size = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise WireError("the channel carried bytes that are not a ropecheck frame")
    if size > limit:
        raise WireError(f"a frame of {size} bytes, over the {limit} bytes this reply may take")
    return int(size)


def _rebuild(node: Any, blobs: memoryview, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise WireError("message nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_rebuild(v, blobs, depth + 1) for v in node]
    if not isinstance(node, dict):
        raise WireError(f"unexpected {type(node).__name__} in a message")
    if "$f" in node:
        text = node["$f"]
        if len(node) != 1 or text not in ("inf", "-inf", "nan"):
            raise WireError("a malformed float")
        return float(text)
    if "$nd" in node:
        return _array(node, blobs)
    if any(k.startswith("$") for k in node):
        raise WireError("a malformed message key")
    return {k: _rebuild(v, blobs, depth + 1) for k, v in node.items()}


def _array(node: dict[str, Any], blobs: memoryview) -> np.ndarray:
    spec = node["$nd"]
    if len(node) != 1 or not isinstance(spec, list) or len(spec) != 4:
        raise WireError("a malformed array reference")
    offset, nbytes, dtype, shape = spec
    if dtype not in DTYPES or not isinstance(shape, list) or len(shape) > 8:
        raise WireError(f"an array of dtype {dtype!r} or shape {shape!r} is not accepted")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in [offset, nbytes, *shape]):
        raise WireError("a malformed array reference")
    itemsize = np.dtype(dtype).itemsize
    if math.prod(shape) * itemsize != nbytes or offset + nbytes > len(blobs):
        raise WireError("an array's bytes do not match its shape, or lie outside the frame")
    return np.frombuffer(blobs[offset : offset + nbytes], dtype=dtype).reshape(shape).copy()


def decode(body: bytes | bytearray | memoryview) -> Any:
    """The object a frame's body (or a whole frame) holds; :class:`WireError` for anything malformed."""
    view = memoryview(body)
    if bytes(view[:4]) == MAGIC:
        frame_length(bytes(view[: _PREFIX.size]), len(view))
        view = view[_PREFIX.size :]
    if len(view) < _HEADER.size:
        raise WireError("truncated frame")
    (size,) = _HEADER.unpack(view[: _HEADER.size])
    if size > min(_MAX_HEADER, len(view) - _HEADER.size):
        raise WireError("a header longer than its frame")
    try:
        tree = json.loads(bytes(view[_HEADER.size : _HEADER.size + size]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WireError(f"a header that is not JSON: {type(exc).__name__}") from None
    return _rebuild(tree, view[_HEADER.size + size :])
