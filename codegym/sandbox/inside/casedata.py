"""Plain data as tagged JSON, shared by the host (packs, requests) and the harness (case data, recorded
return values). JSON values stand for themselves; `{"$t": [...]}` is a tuple, `{"$s": [...]}` a set,
`{"$fs": [...]}` a frozenset, `{"$d": [[k, v], ...]}` a dict with non-string keys, `{"$f": "nan" |
"inf" | "-inf"}` a non-finite float, `{"$b": "<hex>"}` bytes, `{"$c": [re, im]}` a complex number.

Pure standard library: it runs inside the sandbox's harness as well as in codegym itself.
"""

import math


def encode_value(value):
    """Plain data -> tagged JSON (see the module docstring); anything else is a ValueError."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return {"$f": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, tuple):
        return {"$t": [encode_value(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$fs": [encode_value(v) for v in _stable(value)]}
    if isinstance(value, set):
        return {"$s": [encode_value(v) for v in _stable(value)]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not _looks_tagged(value):
            return {k: encode_value(v) for k, v in value.items()}
        return {"$d": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if isinstance(value, (bytes, bytearray)):
        return {"$b": bytes(value).hex()}
    if isinstance(value, complex):
        return {"$c": [encode_value(value.real), encode_value(value.imag)]}
    raise ValueError(f"not plain data: {type(value).__name__}")


def decode_value(data):
    """Tagged JSON -> plain data."""
    if isinstance(data, list):
        return [decode_value(v) for v in data]
    if isinstance(data, dict):
        if len(data) == 1:
            ((tag, body),) = data.items()
            if tag == "$t":
                return tuple(decode_value(v) for v in body)
            if tag == "$s":
                return {decode_value(v) for v in body}
            if tag == "$fs":
                return frozenset(decode_value(v) for v in body)
            if tag == "$d":
                return {decode_value(k): decode_value(v) for k, v in body}
            if tag == "$f":
                return float(body)
            if tag == "$b":
                return bytes.fromhex(body)
            if tag == "$c":
                return complex(decode_value(body[0]), decode_value(body[1]))
        return {k: decode_value(v) for k, v in data.items()}
    return data


def _looks_tagged(value):
    return len(value) == 1 and next(iter(value)) in ("$t", "$s", "$fs", "$d", "$f", "$b", "$c")


def _stable(items):
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)
