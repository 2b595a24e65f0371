"""The worker <-> zygote messages, in a form that is cheap for the zygote to read and write.

After every fork, each page the zygote writes costs it a copy-on-write fault, and decoding a whole
message touches dozens of them (the objects it makes). The messages a
worker sends repeat exactly from run to run (the same limits, paths and flags), so the worker sends
each distinct message once, under a number, and afterwards only the number; the zygote's replies are
a fixed binary record, except errors and anything unusual.

Whole messages go marshalled (both ends are trusted processes of ours; no program process holds
this channel): the C codec, and no json module in the zygote, whose every loaded module each program
process inherits.
"""

import marshal
import struct
from collections import OrderedDict

REPEAT, STORE, RECORD, MARSHALLED = b"#", b"=", b"B", b"M"
MAX_STORED = 64
_NUMBER = struct.Struct(">H")
# op, pid (-1: none), flags (1: clean, 2: a pass's account follows), cpu_s, total_cpu_s,
# peak_memory_mb, exit_code (-1: none), signal (-1: none); then the pass's kind, UTF-8
_RECORD = struct.Struct(">BiBdddii")
_REPLY_OPS = ("spawned", "ended", "finished")
_ACCOUNT_KEYS = frozenset(("clean", "kind", "cpu_s", "total_cpu_s", "peak_memory_mb", "exit_code", "signal"))


class RequestEncoder:
    """The worker's side: a message it sent before goes as its number."""

    def __init__(self, max_stored=MAX_STORED):
        self.numbers = OrderedDict()
        self.max_stored = max_stored

    def __call__(self, message):
        # looked up by repr (C code, no sorting): a message built in another key order only costs
        # a second number
        key = repr(message)
        number = self.numbers.get(key)
        if number is not None:
            self.numbers.move_to_end(key)
            return REPEAT + _NUMBER.pack(number)
        if len(self.numbers) < self.max_stored:
            number = len(self.numbers)
        else:  # the least recently sent gives up its number
            _, number = self.numbers.popitem(last=False)
        self.numbers[key] = number
        return STORE + _NUMBER.pack(number) + marshal.dumps(message)


class RequestDecoder:
    """The zygote's side. Stored messages are only ever read."""

    def __init__(self):
        self.stored = {}

    def __call__(self, body):
        number = _NUMBER.unpack_from(body, 1)[0]
        if body[:1] == STORE:
            self.stored[number] = marshal.loads(bytes(body[3:]))
        return self.stored[number]


def encode_reply(reply):
    previous = reply.get("previous")
    op = reply.get("op")
    plain = (
        op in _REPLY_OPS
        and set(reply) <= {"op", "pid", "previous"}
        and isinstance(previous, dict)
        and set(previous) <= _ACCOUNT_KEYS
        and (op == "spawned" or reply.get("pid") is None)
    )
    if not plain:
        return MARSHALLED + marshal.dumps(reply)
    pid = reply.get("pid")
    kind = previous.get("kind")
    flags = 1 if previous.get("clean") else 0
    if kind is not None:
        flags |= 2
    exit_code, signal = previous.get("exit_code"), previous.get("signal")
    return (
        RECORD
        + _RECORD.pack(
            _REPLY_OPS.index(op),
            -1 if pid is None else pid,
            flags,
            previous.get("cpu_s", 0.0),
            previous.get("total_cpu_s", 0.0),
            previous.get("peak_memory_mb", 0.0),
            -1 if exit_code is None else exit_code,
            -1 if signal is None else signal,
        )
        + (kind or "").encode("utf-8")
    )


def decode_reply(body):
    if body[:1] == MARSHALLED:
        return marshal.loads(bytes(body[1:]))
    op, pid, flags, cpu, total, peak, exit_code, signal = _RECORD.unpack_from(body, 1)
    previous = {"clean": bool(flags & 1)}
    if flags & 2:
        previous.update(
            kind=bytes(body[1 + _RECORD.size :]).decode("utf-8"),
            cpu_s=cpu,
            total_cpu_s=total,
            peak_memory_mb=peak,
            exit_code=None if exit_code < 0 else exit_code,
            signal=None if signal < 0 else signal,
        )
    reply = {"op": _REPLY_OPS[op], "previous": previous}
    if _REPLY_OPS[op] == "spawned":
        reply["pid"] = None if pid < 0 else pid
    return reply
