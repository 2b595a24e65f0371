"""The worker <-> zygote messages (sandbox/inside/zygote_wire.py): a message sent again goes as its
number and comes back equal, numbers are reused least-recently-sent first, pass accounts survive the
binary record, and anything unusual goes marshalled whole."""

from __future__ import annotations

import pytest

from codegym.sandbox.inside.zygote_wire import (
    MARSHALLED,
    RECORD,
    REPEAT,
    STORE,
    RequestDecoder,
    RequestEncoder,
    decode_reply,
    encode_reply,
)

SPAWN = {"op": "spawn", "kind": "verdict", "limits": {"timeout_s": 10.0}, "keep_pids": [7], "code": True}


def test_a_repeated_message_goes_as_its_number_and_decodes_equal() -> None:
    encode, decode = RequestEncoder(), RequestDecoder()
    first, second = encode(SPAWN), encode(dict(SPAWN))
    assert first.startswith(STORE) and second.startswith(REPEAT) and len(second) == 3
    assert decode(first) == SPAWN and decode(second) == SPAWN
    finish = {"op": "finish", "scratch": "/tmp/s", "keep_pids": []}
    assert decode(encode(finish)) == finish and decode(encode(SPAWN)) == SPAWN


def test_numbers_are_reused_least_recently_sent_first() -> None:
    encode, decode = RequestEncoder(max_stored=2), RequestDecoder()
    messages = [{"op": "end", "keep_pids": [pid]} for pid in range(3)]
    for message in messages[:2]:
        assert decode(encode(message)) == message
    assert decode(encode(messages[0])) == messages[0]  # now the most recent: messages[1] goes first
    assert encode(messages[2]).startswith(STORE)  # takes messages[1]'s number
    assert decode(encode(messages[0])) == messages[0]
    stored_again = encode(messages[1])
    assert stored_again.startswith(STORE) and decode(stored_again) == messages[1]


@pytest.mark.parametrize(
    "reply",
    [
        {"op": "spawned", "pid": 41, "previous": {"clean": True}},
        {"op": "spawned", "pid": None, "previous": {"clean": False}},
        {
            "op": "finished",
            "previous": {
                "clean": True,
                "kind": "timing",
                "cpu_s": 0.0123,
                "total_cpu_s": 0.02,
                "peak_memory_mb": 12.5,
                "exit_code": None,
                "signal": 9,
            },
        },
        {
            "op": "ended",
            "previous": {
                "clean": False,
                "kind": "verdict",
                "cpu_s": 0.0,
                "total_cpu_s": 0.0,
                "peak_memory_mb": 0.0,
                "exit_code": 0,
                "signal": None,
            },
        },
    ],
)
def test_replies_survive_the_binary_record(reply: dict) -> None:
    body = encode_reply(reply)
    assert body.startswith(RECORD)
    assert decode_reply(body) == reply


def test_errors_and_unknown_replies_go_marshalled_whole() -> None:
    for reply in (
        {"op": "spawned", "pid": None, "error": "the program process did not start", "previous": {}},
        {"op": "error", "error": "unknown op 'x'"},
    ):
        body = encode_reply(reply)
        assert body.startswith(MARSHALLED) and decode_reply(body) == reply
