"""MBPP+ inputs as EvalPlus reads them back from JSON (its `mbpp_deserialize_inputs`).

MbppPlus.jsonl stores each input as a JSON list of arguments, so the tuples, sets and complex numbers
some MBPP functions take were written as lists (complex numbers and some floats as strings). EvalPlus
rebuilds them per task number before calling anything; expected outputs and the candidate's calls
both see the rebuilt values, so a reader must rebuild them the same way. The rules are EvalPlus's,
quirks included: where it rebuilds a fixed number of arguments, later ones are dropped, and Mbpp/115
turns an empty (or non-list) item into `{}`, an empty dict.

HumanEval+ inputs are used as stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Arguments = list[Any]


def _deep_tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_deep_tuple(item) for item in value)
    return value


def _each_tuple(args: Arguments) -> Arguments:  # every argument is a tuple
    return [tuple(arg) for arg in args]


def _each_list_of_tuples(args: Arguments) -> Arguments:  # every argument is a list of tuples
    return [[tuple(item) for item in arg] for arg in args]


def _each_tuple_of_tuples(args: Arguments) -> Arguments:
    return [tuple(tuple(item) for item in arg) for arg in args]


def _list_of_tuples_then_one(args: Arguments) -> Arguments:
    return [[tuple(item) for item in args[0]], args[1]]


def _one_then_tuple(args: Arguments) -> Arguments:
    return [args[0], tuple(args[1])]


def _tuple_then_one(args: Arguments) -> Arguments:
    return [tuple(args[0]), args[1]]


def _tuple_then_two(args: Arguments) -> Arguments:
    return [tuple(args[0]), args[1], args[2]]


def _list_of_sets(args: Arguments) -> Arguments:  # Mbpp/115; an empty item becomes {} as in EvalPlus
    return [[set(item) if isinstance(item, list) and item else {} for item in args[0]]]


def _float_and_complex(args: Arguments) -> Arguments:  # Mbpp/124: both stored as strings
    return [float(args[0]), complex(args[1])]


def _complex(args: Arguments) -> Arguments:  # Mbpp/252: stored as a string
    return [complex(args[0])]


def _tuple_of_items(args: Arguments) -> Arguments:  # Mbpp/278: one tuple whose list items are tuples
    return [tuple(tuple(item) if isinstance(item, list) else item for item in args[0])]


def _dict_of_tuples(args: Arguments) -> Arguments:  # Mbpp/722
    return [{key: tuple(value) for key, value in args[0].items()}, *args[1:]]


def _all_tuples(args: Arguments) -> Arguments:  # every list at any depth is a tuple
    return list(_deep_tuple(args))


# MBPP+ task numbers -> how EvalPlus rebuilds their inputs
_RULES: dict[int, Callable[[Arguments], Arguments]] = {
    int(number): rule
    for numbers, rule in (
        (
            "2 116 132 143 222 261 273 394 399 421 424 429 470 560 579 596 616 630 726 740 744 809",
            _each_tuple,
        ),
        ("63 64 70 94 120 237 272 299 400 409 417 438 473 614 780", _each_list_of_tuples),
        ("75 413 444 753", _list_of_tuples_then_one),
        ("106 750", _one_then_tuple),
        ("115", _list_of_sets),
        ("124", _float_and_complex),
        ("250 405 446 617 720 763 808", _tuple_then_one),
        ("259 401 445", _each_tuple_of_tuples),
        ("278", _tuple_of_items),
        ("307", _tuple_then_two),
        ("722", _dict_of_tuples),
        ("252", _complex),
        ("580 615 791", _all_tuples),
    )
    for number in numbers.split()
}


def mbpp_arguments(task_number: int, args: Arguments) -> tuple[Any, ...]:
    """One stored MBPP+ input (its list of arguments) as the arguments EvalPlus calls with."""
    rule = _RULES.get(task_number)
    return tuple(args if rule is None else rule(args))


def rebuilt_tasks() -> frozenset[int]:
    """The MBPP+ task numbers whose inputs are rebuilt."""
    return frozenset(_RULES)
