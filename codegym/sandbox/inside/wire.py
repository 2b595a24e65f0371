"""The bounded binary codec between the trusted harness and the untrusted program process.

Stdlib only (it runs inside the sandbox). Never pickle: the program's side of a conversation is
hostile, so the harness decodes only a closed set of tags, each into a value of a type whose
equality and truth are implemented by Python itself (or by the task's own trusted code):

* plain data — None, bool, int (any size: big ints travel as bytes, never as decimal text, so
  Python's 4,300-digit str limit does not apply), float, complex, str (lone surrogates allowed),
  bytes, bytearray, tuple, list, dict, set, frozenset;
* a few stdlib value types — date, datetime, time, timedelta (fixed-offset time zones only),
  Decimal, Fraction, deque, range, compiled regular expressions;
* standard-library values by name (tag `u` and a label from this module's own fixed table, never a
  module path the peer chose): Counter, OrderedDict, defaultdict (its factory only when it is one
  of `DEFAULT_FACTORIES`), dict_keys and dict_items (as snapshots: a view of the receiver's own
  dict), pure paths (exactly PurePath, PurePosixPath, PureWindowsPath: a concrete Path asks the
  file system of its process, so the program's stays a handle), array.array, Ellipsis, and the
  named tuples of `STDLIB_TUPLES` (rebuilt only when the receiver has that module loaded already:
  decoding never imports);
* references the peer resolves in its own process — remote handles (`h`/`H`), harness callbacks
  (`k`), trusted classes and functions by name (`n`), instances of trusted classes by value (`o`,
  `e`) — each decoded by a hook of the receiving side, which decides what it accepts.

Subclasses of plain types are encoded as their base type (unless the side's `claim` hook takes
them first: the task's own classes). Shared and cyclic mutable containers keep their identity within
one message (back-references, `r`), and an object the harness passed in a call comes back as itself
(`a`: an index into the request's own objects). Limits: frame size, nesting depth, and every count is
checked against the bytes left before anything is allocated.

Transport: a pair of pipes per direction-agnostic `Channel` (a pipe round trip costs half a
socket's), frames of a 4-byte length, then a one-byte message kind and one encoded value.
"""

import array
import collections
import enum
import os
import re
import select
import struct
import sys
import time
import types

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 20000
MAX_BIGINT_BYTES = 4 * 1024 * 1024
MAX_FRACTION_PART_BYTES = 16 * 1024  # Fraction() normalises with gcd: quadratic in the parts' size
# the codec recurses once or twice per nesting level; deep values need a higher limit while it runs
_CODEC_RECURSION_LIMIT = 4 * MAX_DEPTH + 2000

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")
_C128 = struct.Struct("<dd")
_FRAME = struct.Struct(">I")
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

# datetime's, decimal's and fractions' types: set by load_value_types, on first use
_Date = _DateTime = _Time = _TimeDelta = _TimeZone = _Decimal = _Fraction = _IsoCalendarDate = None
_DecimalError = None
_OrderedDict = collections.OrderedDict
_Deque = collections.deque
_Pattern = type(re.compile(""))
_Enum = enum.Enum
_Counter, _DefaultDict, _Array = collections.Counter, collections.defaultdict, array.array
_DictKeys, _DictItems = type({}.keys()), type({}.items())
_OdictKeys, _OdictItems = type(_OrderedDict().keys()), type(_OrderedDict().items())
_Ellipsis = type(Ellipsis)
_ARRAY_TYPECODES = frozenset(array.typecodes) - {"u"}  # "u" (wchar_t) is deprecated
_PATTERN_FLAGS = re.IGNORECASE | re.LOCALE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE | re.ASCII


# Iterators whose reading has no effect anyone could observe (builtin containers' own iterators:
# no code of the program or of a test runs while they advance): only these are read ahead in
# batches when a test reads a program's iterator; any other (a generator, a map, a class with __next__) is
# read exactly one item per next(), as the consumer asks.
PURE_ITERATORS = frozenset(
    type(iterator)
    for iterator in (
        iter([]),
        reversed([]),
        iter(()),
        iter(range(0)),
        iter(range(1 << 70)),
        iter(""),
        iter("\u00e9"),
        iter(b""),
        iter(bytearray()),
        iter({}),
        iter({}.values()),
        iter({}.items()),
        reversed({}),
        reversed({}.values()),
        reversed({}.items()),
        iter(set()),
        iter(collections.deque()),
        reversed(collections.deque()),
    )
)

# How many items of an iterator whose reading may be observed (a generator, a test's shared
# iterator) are read exactly one per next() before batches begin: tests that check laziness take a
# few items; one that passes a million-item generator would otherwise pay a round trip per item
# (~25 us: 25 s), so past this many the reading goes ahead in batches of up to 64.
EXACT_ITEMS = 1024

# The factories a defaultdict may carry across (the receiver's own builtins and collections types;
# any other factory, a lambda or a program's function, arrives as a defaultdict without one).
DEFAULT_FACTORIES = {
    kind.__name__: kind for kind in (list, dict, set, frozenset, tuple, str, bytes, int, float, complex, bool)
}
DEFAULT_FACTORIES.update(Counter=_Counter, OrderedDict=_OrderedDict, deque=collections.deque)

# The C-level fields of builtin exceptions that cross with a program's exception (a subclass's
# super().__init__(errno, strerror, filename) fills OSError's; `self.name = ...` AttributeError's):
# read and set only through these classes' own descriptors, and only as None, int, str or bytes.
EXCEPTION_FIELDS = {
    OSError: ("errno", "strerror", "filename", "filename2"),
    AttributeError: ("name",),
    NameError: ("name",),
    ImportError: ("name", "path", "msg"),
    SyntaxError: ("msg", "filename", "lineno", "offset", "text", "end_lineno", "end_offset"),
}

# Standard-library named tuples that cross by value: label -> (module, attribute). The receiver
# rebuilds its own class, found only in a module it has already imported (the harness imports these
# modules itself: see harness.py); when that module is not loaded the value arrives as a tuple.
STDLIB_TUPLES = {
    "urllib.parse.ParseResult": ("urllib.parse", "ParseResult"),
    "urllib.parse.SplitResult": ("urllib.parse", "SplitResult"),
    "urllib.parse.DefragResult": ("urllib.parse", "DefragResult"),
    "urllib.parse.ParseResultBytes": ("urllib.parse", "ParseResultBytes"),
    "urllib.parse.SplitResultBytes": ("urllib.parse", "SplitResultBytes"),
    "urllib.parse.DefragResultBytes": ("urllib.parse", "DefragResultBytes"),
    "datetime.IsoCalendarDate": ("datetime", None),  # not a module attribute: the class of isocalendar()
    "time.struct_time": ("time", "struct_time"),
    "decimal.DecimalTuple": ("decimal", "DecimalTuple"),
    "functools.CacheInfo": ("functools", "_CacheInfo"),
    "difflib.Match": ("difflib", "Match"),
    "inspect.FullArgSpec": ("inspect", "FullArgSpec"),
}
STDLIB_TUPLE_MODULES = tuple(sorted({module for module, _ in STDLIB_TUPLES.values()}))


def _stdlib_tuple_class(label):
    """The receiver's own class for a label of STDLIB_TUPLES, or None (unknown label, or its module
    is not loaded here). Never imports: only sys.modules entries that are plain modules count."""
    entry = STDLIB_TUPLES.get(label)
    if entry is None:
        return None
    module_name, attribute = entry
    if attribute is None:
        if "datetime" in sys.modules:
            load_value_types()
        return _IsoCalendarDate
    module = sys.modules.get(module_name)
    if type(module) is not types.ModuleType:
        return None
    klass = module.__dict__.get(attribute)
    return klass if isinstance(klass, type) and issubclass(klass, tuple) else None


def _stdlib_tuple_label(kind):
    """The STDLIB_TUPLES label of exactly `kind`, or None."""
    if kind is _IsoCalendarDate:
        return "datetime.IsoCalendarDate"
    for label in STDLIB_TUPLES:
        if _stdlib_tuple_class(label) is kind:
            return label
    return None


def _pure_path_classes():
    """pathlib's classes when this process has loaded pathlib (never imported for a value)."""
    module = sys.modules.get("pathlib")
    if type(module) is not types.ModuleType:
        return None
    names = ("PurePath", "PurePosixPath", "PureWindowsPath", "PosixPath", "WindowsPath")
    classes = tuple(module.__dict__.get(name) for name in names)
    return classes if all(isinstance(k, type) for k in classes) else None


# The harness's class for a path the program returns (set by use_program_paths, in the harness
# only): a real PosixPath for ==, hash, isinstance(p, Path) and every pure operation, whose file
# system methods refuse, since the files it names are the program's, out of the tests' reach.
_PROGRAM_PATH = None
_PATH_FILE_SYSTEM_METHODS = (
    "absolute", "chmod", "exists", "expanduser", "glob", "group", "hardlink_to", "is_block_device",
    "is_char_device", "is_dir", "is_fifo", "is_file", "is_junction", "is_mount", "is_socket",
    "is_symlink", "iterdir", "lchmod", "link_to", "lstat", "mkdir", "open", "owner", "read_bytes",
    "read_text", "readlink", "rename", "replace", "resolve", "rglob", "rmdir", "samefile", "stat",
    "symlink_to", "touch", "unlink", "walk", "write_bytes", "write_text",
)  # fmt: skip


def use_program_paths():
    """In the harness: decode a program's concrete paths as ProgramPath (pathlib must be loaded)."""
    global _PROGRAM_PATH
    paths = _pure_path_classes()
    if paths is None or _PROGRAM_PATH is not None:
        return

    def refuse(name):
        def method(self, *args, **kwargs):
            raise PermissionError(
                f"{name}() of a path the program returned: it names the program's files, which the "
                "tests cannot reach (compare it, or ask the program about the file)"
            )

        method.__name__ = name
        return method

    namespace = {name: refuse(name) for name in _PATH_FILE_SYSTEM_METHODS}
    namespace["__slots__"] = ()
    namespace["__module__"] = "pathlib"
    _PROGRAM_PATH = type("PosixPath", (paths[3],), namespace)


def encode_pure_path(encoder, obj, paths=None):
    """Write a path (pure or concrete) as the pure path of its flavour: its text, no file system."""
    paths = paths or _pure_path_classes()
    windows = isinstance(obj, paths[2])
    encoder._labelled("PureWindowsPath" if windows else "PurePosixPath")
    encoder.string(paths[0].__str__(obj))


def concrete_path_classes():
    """pathlib's PosixPath and WindowsPath when this process has loaded pathlib, else ()."""
    paths = _pure_path_classes()
    return paths[3:] if paths is not None else ()


class WireError(Exception):
    """A message that is not valid in this codec, or over its limits."""


class Uncrossable(TypeError):
    """A value that cannot be sent to the peer (neither plain data nor a reference it can resolve)."""


# -- frames -------------------------------------------------------------------------------------


class Channel:
    """Framed messages over a read pipe and a write pipe: (kind byte, body bytes)."""

    def __init__(self, read_fd, write_fd, max_bytes=MAX_FRAME_BYTES):
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.max_bytes = max_bytes
        self.buffer = bytearray()
        self.deadline = None  # monotonic; None waits for ever

    def send(self, kind, body):
        data = _FRAME.pack(len(body) + 1) + kind + body
        view = memoryview(data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]

    def _fill(self):
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.read_fd], [], [], remaining)[0]:
                raise TimeoutError("no answer before the deadline")
        chunk = os.read(self.read_fd, 1 << 16)
        if not chunk:
            raise EOFError("the peer closed the connection")
        self.buffer += chunk

    def receive(self):
        buffer = self.buffer
        while len(buffer) < 4:
            self._fill()
        (size,) = _FRAME.unpack_from(buffer)
        if size > self.max_bytes or size < 1:
            raise WireError(f"a frame of {size} bytes is outside the limits (1..{self.max_bytes})")
        while len(buffer) < 4 + size:
            self._fill()
        kind = bytes(buffer[4:5])
        body = bytes(buffer[5 : 4 + size])
        del buffer[: 4 + size]
        return kind, body

    def close(self):
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


class deep_codec:
    """Raise the recursion limit while the codec walks a deeply nested value (Python 3.11+ keeps
    Python-to-Python calls off the C stack, so this costs heap, not stack)."""

    def __enter__(self):
        self.saved = sys.getrecursionlimit()
        if self.saved < _CODEC_RECURSION_LIMIT:
            sys.setrecursionlimit(_CODEC_RECURSION_LIMIT)

    def __exit__(self, *exc_info):
        if sys.getrecursionlimit() == _CODEC_RECURSION_LIMIT:
            sys.setrecursionlimit(self.saved)


# -- encoding -----------------------------------------------------------------------------------


class Encoder:
    """Encodes one message. `other(encoder, obj)` handles every non-plain object (it appends a
    reference or raises Uncrossable)."""

    def __init__(self, other=None, max_bytes=MAX_FRAME_BYTES, claim=None):
        self.out = bytearray()
        self.other = other
        self.claim = claim  # (encoder, obj) -> bool, offered non-exact types before their plain base
        self.max_bytes = max_bytes
        self.memo = {}
        self.keep = []  # objects whose id() is in memo stay alive until the message is done
        self.known = None  # {id: index} of the objects the peer sent in its request (see `a`)
        # the same, while writing what became of them (a call's arguments): each such object is
        # written with its contents, marked `A` + index, so that the peer puts its contents into
        # its own original and only there (see settle)
        self.same = None
        self.depth = 0

    def encode(self, value):
        self.value(value)
        if len(self.out) > self.max_bytes:
            raise Uncrossable(f"the value needs {len(self.out)} bytes, over the {self.max_bytes}-byte limit")
        return bytes(self.out)

    def _check_size(self):
        if len(self.out) > self.max_bytes:
            raise Uncrossable(f"the value is larger than the {self.max_bytes}-byte limit")

    def value(self, obj):
        known = self.known
        if known is not None:
            index = known.get(id(obj))
            if index is not None:
                self.out += b"a" + _U32.pack(index)
                return
        kind = type(obj)
        same = self.same
        if same is not None and kind not in _NEVER_CHANGED:
            index = same.get(id(obj))
            if index is not None:
                self.out += b"A" + _U32.pack(index)
        method = _ENCODERS.get(kind)
        if method is None and _Date is None and _value_types_in_use():
            load_value_types()
            method = _ENCODERS.get(kind)
        if method is not None:
            method(self, obj)
            return
        if self.claim is not None and self.claim(self, obj):
            return
        if self._stdlib_value(obj, kind):
            return
        # subclasses of plain types travel as their base type; bool cannot be subclassed
        for base, method in _SUBCLASS_ENCODERS:
            if isinstance(obj, base):
                method(self, obj)
                return
        if self.other is None:
            raise Uncrossable(f"a {kind.__name__} object cannot cross as plain data")
        self.other(self, obj)

    # scalars
    def none(self, obj):
        self.out += b"N"

    def boolean(self, obj):
        self.out += b"T" if obj else b"F"

    def integer(self, obj):
        obj = int.__index__(obj)
        if _I64_MIN <= obj <= _I64_MAX:
            self.out += b"i" + _I64.pack(obj)
            return
        data = obj.to_bytes((obj.bit_length() + 8) // 8, "little", signed=True)
        if len(data) > MAX_BIGINT_BYTES:
            raise Uncrossable(f"an integer of {len(data)} bytes is over the limit")
        self.out += b"I" + _U32.pack(len(data)) + data

    def floating(self, obj):
        self.out += b"f" + _F64.pack(float.__float__(obj))

    def complex_(self, obj):
        self.out += b"c" + _C128.pack(complex.real.__get__(obj), complex.imag.__get__(obj))

    def string(self, obj):
        data = str.__str__(obj).encode("utf-8", "surrogatepass")
        self.out += b"s" + _U32.pack(len(data)) + data
        self._check_size()

    def raw_bytes(self, obj):
        # a full slice copies the C buffer; bytes(obj) would call a subclass's __bytes__
        data = bytes.__getitem__(obj, slice(None)) if type(obj) is not bytes else obj
        self.out += b"b" + _U32.pack(len(data)) + data
        self._check_size()

    # containers
    def _remember(self, obj):
        """True (and a back-reference written) when obj was already encoded in this message."""
        index = self.memo.get(id(obj))
        if index is not None:
            self.out += b"r" + _U32.pack(index)
            return True
        self.memo[id(obj)] = len(self.memo)
        self.keep.append(obj)
        return False

    def _items(self, items):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Uncrossable(f"the value is nested deeper than {MAX_DEPTH} levels")
        for item in items:
            self.value(item)
        self.depth -= 1
        self._check_size()

    def byte_array(self, obj):
        if self._remember(obj):
            return
        data = bytes(bytearray.__getitem__(obj, slice(None)))
        self.out += b"B" + _U32.pack(len(data)) + data

    def list_(self, obj):
        if self._remember(obj):
            return
        items = list.copy(obj)
        if len(items) > 8:
            if all(type(x) is int for x in items) and min(items) >= _I64_MIN and max(items) <= _I64_MAX:
                self.out += b"L" + _U32.pack(len(items)) + struct.pack(f"<{len(items)}q", *items)
                self._check_size()
                return
            if all(type(x) is float for x in items):
                self.out += b"G" + _U32.pack(len(items)) + struct.pack(f"<{len(items)}d", *items)
                self._check_size()
                return
        self.out += b"l" + _U32.pack(len(items))
        self._items(items)

    def tuple_(self, obj):
        items = tuple.__iter__(obj)
        self.out += b"t" + _U32.pack(tuple.__len__(obj))
        self._items(items)

    def dict_(self, obj):
        if self._remember(obj):
            return
        pairs = list(_OrderedDict.items(obj) if isinstance(obj, _OrderedDict) else dict.items(obj))
        self.out += b"d"
        self._pairs(pairs)

    def _pairs(self, pairs):
        self.out += _U32.pack(len(pairs))
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Uncrossable(f"the value is nested deeper than {MAX_DEPTH} levels")
        for key, item in pairs:
            self.value(key)
            self.value(item)
        self.depth -= 1
        self._check_size()

    def set_(self, obj):
        if self._remember(obj):
            return
        items = list(set.__iter__(obj))
        self.out += b"S" + _U32.pack(len(items))
        self._items(items)

    def frozenset_(self, obj):
        items = list(frozenset.__iter__(obj))
        self.out += b"z" + _U32.pack(len(items))
        self._items(items)

    def deque_(self, obj):
        if self._remember(obj):
            return
        items = list(_Deque.__iter__(obj))
        maxlen = _Deque.maxlen.__get__(obj)
        if maxlen is not None and maxlen > 0x7FFFFFFF:
            raise Uncrossable(f"a deque with maxlen {maxlen} cannot cross")
        self.out += b"q" + _I32.pack(-1 if maxlen is None else maxlen) + _U32.pack(len(items))
        self._items(items)

    # standard-library values by name (tag `u`): exact classes only, read at C level
    def _labelled(self, label):
        self.out += b"u"
        self.text(label)

    def counter_(self, obj):
        if self._remember(obj):
            return
        self._labelled("Counter")
        self._pairs(list(dict.items(obj)))

    def ordered_dict_(self, obj):
        if self._remember(obj):
            return
        self._labelled("OrderedDict")
        self._pairs(list(_OrderedDict.items(obj)))

    def default_dict_(self, obj):
        if self._remember(obj):
            return
        factory = _DefaultDict.default_factory.__get__(obj)
        # by identity: a factory is looked up without hashing or comparing it
        name = next((n for n, f in DEFAULT_FACTORIES.items() if f is factory), "")
        self._labelled("defaultdict")
        self.text(name)
        self._pairs(list(dict.items(obj)))

    def dict_keys_(self, obj):
        self._labelled("dict_keys")
        items = list(obj)  # the view's own C iterator (exact type): no method of the dict runs
        self.out += b"t" + _U32.pack(len(items))
        self._items(items)

    def dict_items_(self, obj):
        self._labelled("dict_items")
        self._pairs(list(obj))

    def array_(self, obj):
        if self._remember(obj):
            return
        typecode = _Array.typecode.__get__(obj)
        if typecode not in _ARRAY_TYPECODES:
            raise Uncrossable(f"an array of typecode {typecode!r} cannot cross")
        data = _Array.tobytes(obj)
        self._labelled("array")
        self.text(typecode)
        self.out += b"b" + _U32.pack(len(data)) + data
        self._check_size()

    def ellipsis_(self, obj):
        self._labelled("Ellipsis")

    def _stdlib_value(self, obj, kind):
        """Standard-library named tuples and paths of exactly a known class (True when written)."""
        if issubclass(kind, tuple):
            label = _stdlib_tuple_label(kind)
            if label is None:
                return False
            items = list(tuple.__iter__(obj))
            if label == "time.struct_time":  # its zone fields are not part of the tuple
                items += [kind.tm_zone.__get__(obj), kind.tm_gmtoff.__get__(obj)]
            self._labelled(label)
            self.out += b"t" + _U32.pack(len(items))
            self._items(items)
            return True
        paths = _pure_path_classes()
        if paths is None:
            return False
        if kind in paths[:3] or kind is paths[4]:
            encode_pure_path(self, obj, paths)
            return True
        if kind is paths[3] or (_PROGRAM_PATH is not None and kind is _PROGRAM_PATH):
            # a PosixPath: its text, and the receiver makes its own concrete path of it (see the
            # decoder): == and hash are a path's, its file system is the receiver's own or none
            self._labelled("Path")
            self.string(paths[0].__str__(obj))
            return True
        return False

    # stdlib value types
    def _tz(self, tzinfo, moment):
        offset = tzinfo.utcoffset(moment) if tzinfo is not None else None
        if tzinfo is not None and offset is None:
            raise Uncrossable("a time zone without a fixed UTC offset cannot cross")
        self.value(offset)

    def date_(self, obj):
        self.out += b"D" + _I32.pack(_Date.toordinal(obj))

    # Fields are read through the base type's own descriptors: a subclass's properties could lie.
    def datetime_(self, obj):
        base = _DateTime
        seconds = base.hour.__get__(obj) * 3600 + base.minute.__get__(obj) * 60 + base.second.__get__(obj)
        self.out += b"X" + _I32.pack(_Date.toordinal(obj)) + _U32.pack(seconds)
        self.out += _U32.pack(base.microsecond.__get__(obj)) + bytes((base.fold.__get__(obj),))
        self._tz(base.tzinfo.__get__(obj), obj)

    def time_(self, obj):
        base = _Time
        seconds = base.hour.__get__(obj) * 3600 + base.minute.__get__(obj) * 60 + base.second.__get__(obj)
        self.out += b"Y" + _U32.pack(seconds) + _U32.pack(base.microsecond.__get__(obj))
        self.out += bytes((base.fold.__get__(obj),))
        self._tz(base.tzinfo.__get__(obj), None)

    def timedelta_(self, obj):
        base = _TimeDelta
        days, seconds, micro = (
            base.days.__get__(obj),
            base.seconds.__get__(obj),
            base.microseconds.__get__(obj),
        )
        self.out += b"W" + _I32.pack(days) + _I32.pack(seconds) + _I32.pack(micro)

    def decimal_(self, obj):
        self.out += b"M"
        self.string(_Decimal.__str__(obj))

    def fraction_(self, obj):
        numerator, denominator = _Fraction.numerator.fget(obj), _Fraction.denominator.fget(obj)
        if max(int.bit_length(numerator), int.bit_length(denominator)) > 8 * MAX_FRACTION_PART_BYTES:
            raise Uncrossable("a Fraction whose parts exceed the size limit")
        self.out += b"Q"
        self.integer(numerator)
        self.integer(denominator)

    def range_(self, obj):
        self.out += b"R"
        self.integer(obj.start)
        self.integer(obj.stop)
        self.integer(obj.step)

    def pattern_(self, obj):
        self.out += b"p"
        self.value(obj.pattern)
        self.integer(obj.flags)

    # references (written by the sides' `other` hooks)
    def reference(self, tag, number):
        self.out += tag + _U64.pack(number)

    def text(self, value):
        self.string(value)


_ENCODERS = {
    type(None): Encoder.none,
    bool: Encoder.boolean,
    int: Encoder.integer,
    float: Encoder.floating,
    complex: Encoder.complex_,
    str: Encoder.string,
    bytes: Encoder.raw_bytes,
    bytearray: Encoder.byte_array,
    list: Encoder.list_,
    tuple: Encoder.tuple_,
    dict: Encoder.dict_,
    set: Encoder.set_,
    frozenset: Encoder.frozenset_,
    _Deque: Encoder.deque_,
    range: Encoder.range_,
    _Pattern: Encoder.pattern_,
    _Counter: Encoder.counter_,
    _OrderedDict: Encoder.ordered_dict_,
    _DefaultDict: Encoder.default_dict_,
    _DictKeys: Encoder.dict_keys_,
    _OdictKeys: Encoder.dict_keys_,
    _DictItems: Encoder.dict_items_,
    _OdictItems: Encoder.dict_items_,
    _Array: Encoder.array_,
    _Ellipsis: Encoder.ellipsis_,
}
# datetime before date (a datetime is a date); the rest are disjoint
_SUBCLASS_ENCODERS = [
    (int, Encoder.integer),
    (float, Encoder.floating),
    (complex, Encoder.complex_),
    (str, Encoder.string),
    (bytes, Encoder.raw_bytes),
    (bytearray, Encoder.byte_array),
    (list, Encoder.list_),
    (tuple, Encoder.tuple_),
    (dict, Encoder.dict_),
    (set, Encoder.set_),
    (frozenset, Encoder.frozenset_),
    (_Deque, Encoder.deque_),
]
_BASE_ENCODERS = dict(_SUBCLASS_ENCODERS)
# the plain types a class instance can carry as its value (tag `o`, layout `V`)
VALUE_BASES = (tuple, list, dict, set, frozenset, int, float, str, bytes)


_MUTABLE_COPIES = {list: list.copy, dict: dict.copy, set: set.copy}


def encode_as_base(encoder: Encoder, obj: object, base: type) -> None:
    """Encode obj (an instance of a subclass of `base`) as its base value, read at C level:
    calling base(obj) would run the subclass's own __iter__/__int__/__str__, which can lie."""
    _BASE_ENCODERS[base](encoder, obj)


def encode_class_instance(encoder: Encoder, obj: object, klass: type) -> None:
    """An instance of a class both sides resolve by name (the task's trusted code): an enum member
    by name (tag `e`), anything else (tag `o`) as its base value when it subclasses a plain type,
    then its __dict__ and its slots."""
    if isinstance(obj, _Enum):
        encoder.out += b"e"
        encoder.text(klass.__module__)
        encoder.text(klass.__qualname__)
        encoder.text(obj.name)
        return
    if encoder._remember(obj):
        return
    base = next((b for b in klass.__mro__ if b in VALUE_BASES), None)
    encoder.out += b"o"
    encoder.text(klass.__module__)
    encoder.text(klass.__qualname__)
    if base is None:
        encoder.out += b"O"
    else:
        encoder.out += b"V"
        # a mutable base's value from a C-level copy: the object itself is already in the memo, and
        # encoding it again would send its value as a reference to itself
        copy = _MUTABLE_COPIES.get(base)
        encode_as_base(encoder, copy(obj) if copy is not None else obj, base)
    state = getattr(obj, "__dict__", None)
    encoder.value(dict(state) if isinstance(state, dict) else {})
    encoder.value({name: getattr(obj, name) for name in slot_names(klass) if hasattr(obj, name)})


# range and compiled patterns cannot be subclassed: only their exact types are encoded

# Types whose values can never change in place: the program's copy of such an argument is never
# sent back after a call.
IMMUTABLE_SCALARS = frozenset((type(None), bool, int, float, complex, str, bytes))
# values whose identity no call can change the contents of: never marked `A`
_NEVER_CHANGED = set(IMMUTABLE_SCALARS | {tuple, frozenset, range})

# Modules whose loading means values of datetime's, decimal's or fractions' types may exist here.
_VALUE_TYPE_MODULES = ("datetime", "_datetime", "decimal", "_decimal", "_pydecimal", "fractions")


def _value_types_in_use():
    modules = sys.modules
    return any(name in modules for name in _VALUE_TYPE_MODULES)


def load_value_types():
    """Load datetime, decimal and fractions and add their types to the codec's tables: on the first
    value of one of them to encode or decode (a process holding such a value has loaded its module).
    Not at import: a program process inherits every module its zygote loaded, and these weigh
    ~400 kB and two shared libraries, copied at each program's fork and torn down at its exit,
    while few programs use them."""
    global _Date, _DateTime, _Time, _TimeDelta, _TimeZone, _Decimal, _Fraction, _IsoCalendarDate
    global _DecimalError
    if _Date is not None:
        return
    import datetime
    import decimal
    import fractions

    _DateTime, _Time, _TimeDelta = datetime.datetime, datetime.time, datetime.timedelta
    _TimeZone, _Decimal, _Fraction = datetime.timezone, decimal.Decimal, fractions.Fraction
    _DecimalError = decimal.InvalidOperation
    _IsoCalendarDate = type(datetime.date(2000, 1, 1).isocalendar())
    encoders = (
        (_DateTime, Encoder.datetime_),  # before date: a datetime is a date
        (datetime.date, Encoder.date_),
        (_Time, Encoder.time_),
        (_TimeDelta, Encoder.timedelta_),
        (_Decimal, Encoder.decimal_),
        (_Fraction, Encoder.fraction_),
    )
    _ENCODERS.update(encoders)
    _SUBCLASS_ENCODERS.extend(encoders)
    _BASE_ENCODERS.update(encoders)
    _NEVER_CHANGED.update((_Decimal, _Fraction, datetime.date, _DateTime, _Time))
    _Date = datetime.date  # last: the others are in place once it is set


def encode(value, other=None, max_bytes=MAX_FRAME_BYTES, claim=None):
    return encode_into(Encoder(other, max_bytes, claim), value)


def encode_into(encoder, value):
    """Encode with the default recursion limit, and again with a raised one only when a value turns
    out to be nested that deeply (most messages are shallow; raising the limit costs a little)."""
    try:
        encoder.value(value)
    except RecursionError:
        encoder.out.clear()
        encoder.memo.clear()
        encoder.keep.clear()
        encoder.depth = 0
        with deep_codec():
            encoder.value(value)
    if len(encoder.out) > encoder.max_bytes:
        raise Uncrossable(
            f"the value needs {len(encoder.out)} bytes, over the {encoder.max_bytes}-byte limit"
        )
    return bytes(encoder.out)


# -- decoding -----------------------------------------------------------------------------------


class Decoder:
    """Decodes one message. `hooks` maps a reference tag (b"h", b"H", b"k", b"j", b"n", b"o", b"e",
    b"a") to a function `(decoder) -> value` that reads the reference's fields and decides whether to
    accept it; a tag without a hook is refused."""

    __slots__ = ("data", "depth", "hooks", "memo", "pos", "size")

    def __init__(self, data, hooks=None):
        self.data = data if type(data) is bytes else bytes(data)
        self.size = len(self.data)
        self.pos = 0
        self.hooks = hooks or {}
        self.memo = []
        self.depth = 0

    def decode(self):
        with deep_codec():
            value = self.value()
        if self.pos != self.size:
            raise WireError(f"{self.size - self.pos} trailing bytes after the value")
        return value

    def _take(self, size):
        start = self.pos
        end = start + size
        if end > self.size:
            raise WireError("the message ends in the middle of a value")
        self.pos = end
        return self.data[start:end]

    def _unpack(self, layout):
        start = self.pos
        end = start + layout.size
        if end > self.size:
            raise WireError("the message ends in the middle of a value")
        self.pos = end
        return layout.unpack_from(self.data, start)

    def u32(self):
        return self._unpack(_U32)[0]

    def i32(self):
        return self._unpack(_I32)[0]

    def u64(self):
        return self._unpack(_U64)[0]

    def _count(self, minimum_item_bytes):
        count = self._unpack(_U32)[0]
        if count * minimum_item_bytes > self.size - self.pos:
            raise WireError(f"a container claims {count} items, more than the message holds")
        return count

    def text(self):
        if self.pos >= self.size or self.data[self.pos] != 115:  # b"s"
            raise WireError("expected a string")
        self.pos += 1
        return self._string()

    def _string(self):
        size = self._count(1)
        start = self.pos
        self.pos = start + size
        try:
            return str(self.data[start : start + size], "utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            raise WireError(f"a string is not valid UTF-8: {exc}") from None

    def value(self):
        pos = self.pos
        if pos >= self.size:
            raise WireError("the message ends where a value should start")
        tag = self.data[pos]
        self.pos = pos + 1
        if tag == 105:  # i: the common case first
            return self._unpack(_I64)[0]
        if tag == 115:  # s
            return self._string()
        decoder = _DECODERS.get(tag)
        if decoder is not None:
            return decoder(self)
        hook = self.hooks.get(bytes((tag,)))
        if hook is None:
            raise WireError(f"unknown or refused tag {bytes((tag,))!r}")
        return hook(self)

    def _enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise WireError(f"the value is nested deeper than {MAX_DEPTH} levels")

    def register(self, obj):
        """Mutable objects are registered before their contents, so back-references resolve (hooks
        that build such objects call this too)."""
        self.memo.append(obj)
        return obj

    def _list(self):
        count = self._count(1)
        result = self.register([])
        self._enter()
        append, value = result.append, self.value
        for _ in range(count):
            append(value())
        self.depth -= 1
        return result

    def _packed(self, code):
        count = self._count(8)
        start = self.pos
        self.pos = start + 8 * count
        return self.register(list(struct.unpack_from(f"<{count}{code}", self.data, start)))

    def _tuple(self):
        count = self._count(1)
        self._enter()
        value = self.value
        result = tuple([value() for _ in range(count)])
        self.depth -= 1
        return result

    def _dict(self):
        return self._fill(self.register({}))

    def _fill(self, result):
        """Read a dict's pairs into `result` (already registered), with dict's own __setitem__."""
        count = self._count(2)
        self._enter()
        value = self.value
        for _ in range(count):
            key = value()
            try:
                result[key] = value()  # a dict, or the receiver's own Counter/OrderedDict/defaultdict
            except TypeError as exc:
                raise WireError(f"unhashable dict key: {exc}") from None
        self.depth -= 1
        return result

    def _set(self):
        count = self._count(1)
        result = self.register(set())
        self._enter()
        for _ in range(count):
            try:
                result.add(self.value())
            except TypeError as exc:
                raise WireError(f"unhashable set item: {exc}") from None
        self.depth -= 1
        return result

    def _frozenset(self):
        count = self._count(1)
        self._enter()
        try:
            result = frozenset([self.value() for _ in range(count)])
        except TypeError as exc:
            raise WireError(f"unhashable set item: {exc}") from None
        self.depth -= 1
        return result

    def _deque(self):
        maxlen = self.i32()
        count = self._count(1)
        result = self.register(_Deque(maxlen=None if maxlen < 0 else maxlen))
        self._enter()
        for _ in range(count):
            result.append(self.value())
        self.depth -= 1
        return result

    def _stdlib(self):
        """A standard-library value by the label of this module's table (see Encoder._labelled)."""
        label = self.text()
        if label == "Counter":
            return self._fill(self.register(_Counter()))
        if label == "OrderedDict":
            return self._fill(self.register(_OrderedDict()))
        if label == "defaultdict":
            name = self.text()
            factory = DEFAULT_FACTORIES.get(name) if name else None
            if name and factory is None:
                raise WireError(f"a defaultdict factory {name[:40]!r} that cannot cross")
            return self._fill(self.register(_DefaultDict(factory)))
        if label == "dict_keys":
            keys = self._nested_value()
            if type(keys) is not tuple:
                raise WireError("dict_keys needs a tuple of keys")
            try:
                return dict.fromkeys(keys).keys()
            except TypeError as exc:
                raise WireError(f"unhashable dict key: {exc}") from None
        if label == "dict_items":
            return self._fill({}).items()
        if label == "array":
            typecode = self.text()
            data = self._nested_value()
            if typecode not in _ARRAY_TYPECODES or type(data) is not bytes:
                raise WireError("an array needs a known typecode and bytes")
            result = _Array(typecode)
            if len(data) % result.itemsize:
                raise WireError("an array's bytes are not a whole number of items")
            result.frombytes(data)
            return self.register(result)
        if label == "Ellipsis":
            return Ellipsis
        if label in ("Path", "PurePosixPath", "PureWindowsPath"):
            text = self._nested_value()
            paths = _pure_path_classes()
            if type(text) is not str:
                raise WireError("a path needs a str")
            if paths is None:
                return text  # pathlib not loaded here: its string
            if label == "Path":  # a concrete path: the harness's ProgramPath, else this process's own
                return (_PROGRAM_PATH or paths[3])(text)
            return (paths[1] if label == "PurePosixPath" else paths[2])(text)
        if label in STDLIB_TUPLES:
            items = self._nested_value()
            if type(items) is not tuple:
                raise WireError(f"{label} needs a tuple")
            klass = _stdlib_tuple_class(label)
            if klass is None:
                return items
            try:
                if hasattr(klass, "_make"):  # collections.namedtuple: exactly its fields
                    if len(items) != len(klass._fields):
                        raise ValueError(f"{len(items)} items for {len(klass._fields)} fields")
                    return tuple.__new__(klass, items)
                if klass is _IsoCalendarDate:
                    if len(items) != 3 or any(type(i) is not int for i in items):
                        raise ValueError("three ints expected")
                    return klass(*items)
                return klass(items)  # struct_time: a structseq of 9 to 11 items
            except (TypeError, ValueError, OverflowError) as exc:
                raise WireError(f"bad {label}: {exc}") from None
        raise WireError(f"unknown standard-library value {label[:60]!r}")

    def _ref(self):
        index = self.u32()
        if index >= len(self.memo):
            raise WireError(f"a back-reference to object {index}, which was not sent")
        return self.memo[index]

    def _bigint(self):
        size = self._count(1)
        if size > MAX_BIGINT_BYTES:
            raise WireError(f"an integer of {size} bytes is over the limit")
        return int.from_bytes(self._take(size), "little", signed=True)

    def _nested_value(self):
        self._enter()
        value = self.value()
        self.depth -= 1
        return value

    def _integer_value(self):
        value = self._nested_value()
        if type(value) is not int:
            raise WireError("expected an integer")
        return value

    def _offset(self):
        offset = self._nested_value()
        if offset is None:
            return None
        if type(offset) is not _TimeDelta:
            raise WireError("a time zone offset must be a timedelta")
        try:
            return _TimeZone(offset)
        except ValueError as exc:
            raise WireError(f"bad time zone offset: {exc}") from None

    def _datetime(self):
        load_value_types()
        ordinal, seconds, micro = self.i32(), self.u32(), self.u32()
        fold = self._take(1)[0]
        tz = self._offset()
        try:
            day = _Date.fromordinal(ordinal)
            hour, rest = divmod(seconds, 3600)
            return _DateTime(day.year, day.month, day.day, hour, rest // 60, rest % 60, micro, tz, fold=fold)
        except (ValueError, OverflowError) as exc:
            raise WireError(f"bad datetime: {exc}") from None

    def _time(self):
        load_value_types()
        seconds, micro = self.u32(), self.u32()
        fold = self._take(1)[0]
        tz = self._offset()
        try:
            hour, rest = divmod(seconds, 3600)
            return _Time(hour, rest // 60, rest % 60, micro, tz, fold=fold)
        except (ValueError, OverflowError) as exc:
            raise WireError(f"bad time: {exc}") from None

    def _date(self):
        load_value_types()
        try:
            return _Date.fromordinal(self.i32())
        except (ValueError, OverflowError) as exc:
            raise WireError(f"bad date: {exc}") from None

    def _timedelta(self):
        load_value_types()
        try:
            return _TimeDelta(days=self.i32(), seconds=self.i32(), microseconds=self.i32())
        except (ValueError, OverflowError) as exc:
            raise WireError(f"bad timedelta: {exc}") from None

    def _decimal(self):
        load_value_types()
        text = self.text()
        if len(text) > 10_000:
            raise WireError("a Decimal of more than 10,000 characters")
        try:
            return _Decimal(text)
        except _DecimalError:
            raise WireError(f"bad Decimal {text[:40]!r}") from None

    def _fraction(self):
        load_value_types()
        numerator, denominator = self._integer_value(), self._integer_value()
        if max(numerator.bit_length(), denominator.bit_length()) > 8 * MAX_FRACTION_PART_BYTES:
            raise WireError(
                "a Fraction whose parts exceed the size limit (normalising it would take too long)"
            )
        if denominator == 0:
            raise WireError("a Fraction with denominator 0")
        return _Fraction(numerator, denominator)

    def _range(self):
        start, stop, step = self._integer_value(), self._integer_value(), self._integer_value()
        if step == 0:
            raise WireError("a range with step 0")
        return range(start, stop, step)

    def _pattern(self):
        pattern = self._nested_value()
        flags = self._integer_value()
        if flags & ~_PATTERN_FLAGS:
            raise WireError(f"a regular expression with unsupported flags {flags:#x}")
        if type(pattern) not in (str, bytes) or len(pattern) > 100_000:
            raise WireError("a regular expression must be a str or bytes of at most 100,000 characters")
        try:
            return re.compile(pattern, flags)
        except (re.error, ValueError, TypeError, OverflowError, RecursionError) as exc:
            raise WireError(f"bad regular expression: {exc}") from None


_DECODERS = {
    ord("N"): lambda d: None,
    ord("T"): lambda d: True,
    ord("F"): lambda d: False,
    ord("I"): Decoder._bigint,
    ord("f"): lambda d: d._unpack(_F64)[0],
    ord("c"): lambda d: complex(*d._unpack(_C128)),
    ord("b"): lambda d: d._take(d._count(1)),
    ord("B"): lambda d: d.register(bytearray(d._take(d._count(1)))),
    ord("l"): Decoder._list,
    ord("L"): lambda d: d._packed("q"),
    ord("G"): lambda d: d._packed("d"),
    ord("t"): Decoder._tuple,
    ord("d"): Decoder._dict,
    ord("S"): Decoder._set,
    ord("z"): Decoder._frozenset,
    ord("q"): Decoder._deque,
    ord("r"): Decoder._ref,
    ord("D"): Decoder._date,
    ord("X"): Decoder._datetime,
    ord("Y"): Decoder._time,
    ord("W"): Decoder._timedelta,
    ord("M"): Decoder._decimal,
    ord("Q"): Decoder._fraction,
    ord("R"): Decoder._range,
    ord("p"): Decoder._pattern,
    ord("u"): Decoder._stdlib,
}


def decode(data, hooks=None):
    return Decoder(data, hooks).decode()


# -- in-place updates ---------------------------------------------------------------------------

_MERGE_DEPTH = 200


def merge_into(old, new, depth=0, seen=None):
    """Make `old` equal to `new` in place, keeping the identity of `old` and, where shapes match, of
    the containers inside it (a test holding an inner row of a matrix sees it change). Returns the
    object that should stand where `old` stood (old itself, or new for immutable values). Each pair
    is merged once, so shared and cyclic structures cost linear time."""
    if depth > _MERGE_DEPTH or old is new:
        return new
    if seen is None:
        seen = set()
    pair = (id(old), id(new))
    if pair in seen:
        return old if type(old) is type(new) else new
    seen.add(pair)
    kind = type(old)
    if kind is not type(new):
        return new
    merged = False
    if isinstance(old, list):
        if list.__len__(old) == list.__len__(new):
            for index, item in enumerate(list.copy(new)):
                list.__setitem__(old, index, merge_into(list.__getitem__(old, index), item, depth + 1, seen))
        else:
            list.__setitem__(old, slice(None), list.copy(new))
        merged = True
    elif isinstance(old, dict):
        # every key old and new share keeps its value's identity (merged in place); the keys then
        # follow new's order. An OrderedDict through its own methods: dict's would bypass its
        # order, which is part of its value. Counter and defaultdict are dicts here (dict's own
        # methods: no __missing__, and the test's default_factory stays)
        ordered = kind is _OrderedDict
        missing = object()
        pairs = []
        for key, item in list(_OrderedDict.items(new) if ordered else dict.items(new)):
            before = dict.get(old, key, missing)
            pairs.append((key, item if before is missing else merge_into(before, item, depth + 1, seen)))
        clear, store = (
            (_OrderedDict.clear, _OrderedDict.__setitem__) if ordered else (dict.clear, dict.__setitem__)
        )
        clear(old)
        for key, item in pairs:
            store(old, key, item)
        merged = True
    elif isinstance(old, set):
        set.clear(old)
        set.update(old, set.__iter__(new))
        merged = True
    elif isinstance(old, bytearray):
        bytearray.__setitem__(old, slice(None), bytes(new))
        merged = True
    elif kind is _Array:
        if _Array.typecode.__get__(old) != _Array.typecode.__get__(new):
            return new
        _Array.__setitem__(old, slice(None), new)
        return old
    elif isinstance(old, _Deque):
        _Deque.clear(old)
        _Deque.extend(old, list(new))
        merged = True
    elif kind is tuple:
        if len(old) == len(new):
            for item_old, item_new in zip(old, new, strict=True):
                merge_into(item_old, item_new, depth + 1, seen)
        return old
    elif kind in _ENCODERS:
        return new  # the codec's value types (Fraction has slots) never change in place
    state = getattr(new, "__dict__", None)
    if isinstance(state, dict) and isinstance(getattr(old, "__dict__", None), dict):
        old_state = old.__dict__
        if old_state.keys() == state.keys():
            for key, item in state.items():
                old_state[key] = merge_into(old_state[key], item, depth + 1, seen)
        else:
            old_state.clear()
            old_state.update(state)
        merged = True
    names = slot_names(kind)
    for name in names:
        if hasattr(new, name):
            object.__setattr__(old, name, getattr(new, name))
    return old if merged or names else new


_SETTLED_CONTAINERS = (list, dict, set, bytearray, _Deque, _Array)


def settle(new, same_as, done=None, depth=0, objects=None):
    """What stands, in the test's objects, where the program's `new` was decoded from a call's
    arguments sent back: the test's own original object where the program sent back that very
    object (`same_as`: id of the decoded copy -> (copy, original), from the `A` marks), updated in
    place to the copy's contents; otherwise `new` itself, a fresh object, with what it holds settled
    the same way. So a value the program replaced (`d[k] = sorted(d[k])`) is a new object, and the
    test's old one keeps its contents, as under plain Python; one it changed in place (`d[k].sort()`)
    is the test's, changed. Only the codec's own containers are walked, and the objects for which
    `objects(obj)` is true (the task's repository classes, rebuilt by value): never a handle, nor
    anything of the harness's own. An original is changed only where it differs, in place (a dict
    key by key, a set by its difference), so a test's loop over an argument the call left alone
    goes on undisturbed."""
    if done is None:
        done = {}
    key = id(new)
    if key in done:
        return done[key]
    entry = same_as.get(key)
    if entry is not None:
        original = entry[1]
        done[key] = original
        if original is not new and depth <= _MERGE_DEPTH and _refillable(original, new, objects):
            _refill(original, new, same_as, done, depth, objects)
        return original
    done[key] = new
    if depth > _MERGE_DEPTH:
        return new
    if type(new) is tuple:
        items = tuple(settle(item, same_as, done, depth + 1, objects) for item in tuple.__iter__(new))
        if any(a is not b for a, b in zip(items, new, strict=True)):
            done[key] = items
            return items
        return new
    if type(new) is frozenset:  # an undirected edge of the test's own nodes, say
        pairs = [(item, settle(item, same_as, done, depth + 1, objects)) for item in frozenset.__iter__(new)]
        if any(a is not b for a, b in pairs):
            done[key] = frozenset(after for _, after in pairs)
            return done[key]
        return new
    if isinstance(new, _SETTLED_CONTAINERS) or (objects is not None and objects(new)):
        _refill(new, new, same_as, done, depth, objects)
    return new


def _same_key(current, settled):
    """Whether two equal-looking values are the same value here, exactly: the same object, or of
    one type and the same in every detail Python's == may overlook — a float or a complex by its
    repr (-0.0 is not 0.0, and a NaN is a NaN), a Decimal by its digits and exponent (1.50 is not
    1.5), a date, time or datetime by its repr (its time zone), tuples and frozensets element by
    element. 1, 1.0 and True are not the same, nor two objects of a class that compares by
    identity."""
    if current is settled:
        return True
    kind = type(current)
    if kind is not type(settled):
        return False
    if kind is tuple:
        return len(current) == len(settled) and all(
            _same_key(a, b) for a, b in zip(current, settled, strict=True)
        )
    if kind is frozenset:
        if len(current) != len(settled):
            return False
        by_value = {_canonical(item): item for item in settled}
        missing = object()
        return all(_same_key(item, dict.get(by_value, _canonical(item), missing)) for item in current)
    if kind in (float, complex, _Date, _DateTime, _Time, _TimeDelta, _Fraction, range):
        return repr(current) == repr(settled)
    if kind is _Decimal:
        return current.as_tuple() == settled.as_tuple()
    return kind in IMMUTABLE_SCALARS and current == settled


def _canonical(item):
    """A key under which equal values meet, NaNs included (a NaN equals nothing, itself aside)."""
    kind = type(item)
    return (kind, repr(item)) if kind is float or kind is complex else item


def _canonical_all(items):
    """`_canonical` of each of `items`, the NaNs of one kind numbered in turn: two NaN objects in
    one set or dict are two members, paired one to one with the other side's (red team 26)."""
    seen = {}
    keys = []
    for item in items:
        key = _canonical(item)
        if (type(item) is float or type(item) is complex) and item != item:
            number = seen.get(key, 0)
            seen[key] = number + 1
            key = (key, number)
        keys.append(key)
    return keys


def same_value(current, settled):
    """Whether a held value needs no store: the same object, or the same immutable scalar (the
    copy's own strings and numbers are fresh objects). The program's quick check of its flat
    arguments asks the same question (program._flat_unchanged)."""
    return current is settled or (type(settled) in IMMUTABLE_SCALARS and _same_key(current, settled))


def _refillable(original, copy, objects):
    """Whether the copy's contents may go into the original: the same container base (a test's own
    dict subclass comes back as the dict the program had), or the same class of the task's own."""
    for base in _SETTLED_CONTAINERS:
        if isinstance(original, base):
            return isinstance(copy, base)
    return type(original) is type(copy) and objects is not None and objects(original)


def _refill(target, source, same_as, done, depth, objects):
    """Give `target` the contents of `source` (the same object for a fresh one), each held value
    settled (see settle), touching only what differs."""
    kind = type(target)

    def settled(value):
        return settle(value, same_as, done, depth + 1, objects)

    if isinstance(target, list):
        items = [settled(item) for item in list.copy(source)]
        before = list.copy(target)
        # slot by slot: what is exactly the same stays the test's object (a NaN too)
        for index, current in enumerate(before[: len(items)]):
            if same_value(current, items[index]):
                items[index] = current
        if len(before) != len(items):
            list.__setitem__(target, slice(None), items)
        else:
            for index, (current, item) in enumerate(zip(before, items, strict=True)):
                if current is not item:
                    list.__setitem__(target, index, item)
    elif isinstance(target, dict):
        _refill_dict(target, source, settled)
    elif isinstance(target, set):
        elements = [(item, settled(item)) for item in list(set.__iter__(source))]
        wanted = [after for _, after in elements]
        if target is source:  # fresh: only the test's own objects put in for their copies
            if any(before is not after for before, after in elements):
                set.clear(target)
                set.update(target, wanted)
        else:
            # element by element: set.update may resize the table even when nothing is new, which
            # reorders it under a test's loop over the set; an element not exactly the same (1.0
            # for 1, another object) is replaced, one that is (a NaN too) stays the test's
            wanted_keys = _canonical_all(wanted)
            by_value = dict(zip(wanted_keys, wanted, strict=True))
            present = list(set.__iter__(target))
            kept, missing = set(), object()
            for item, key in zip(present, _canonical_all(present), strict=True):
                after = dict.get(by_value, key, missing)
                if after is missing or not _same_key(item, after):
                    set.discard(target, item)
                else:
                    kept.add(key)
            for item, key in zip(wanted, wanted_keys, strict=True):
                if key not in kept:
                    set.add(target, item)
    elif isinstance(target, bytearray):
        if target is not source:
            bytearray.__setitem__(target, slice(None), bytes(source))
    elif isinstance(target, _Deque):
        items = [settled(item) for item in list(source)]
        if len(target) != len(items):
            _Deque.clear(target)
            _Deque.extend(target, items)
        else:  # item by item: a deque's iterators fail on any clear or extend, not on a store
            for index, (current, item) in enumerate(zip(list(target), items, strict=True)):
                if not same_value(current, item):
                    _Deque.__setitem__(target, index, item)
    elif kind is _Array:
        if target is not source and _Array.typecode.__get__(target) == _Array.typecode.__get__(source):
            _Array.__setitem__(target, slice(None), source)
    else:  # an object of the task's own classes (see settle)
        state = getattr(source, "__dict__", None)
        if isinstance(state, dict) and isinstance(getattr(target, "__dict__", None), dict):
            values = {name: settled(value) for name, value in list(state.items())}
            if target is not source:
                target.__dict__.clear()
            target.__dict__.update(values)
        for name in slot_names(kind):
            if hasattr(source, name):
                object.__setattr__(target, name, settled(getattr(source, name)))


def _refill_dict(target, source, settled):
    """A dict (OrderedDict, Counter, defaultdict) made like `source` in place: keys the program
    removed deleted, values that differ stored, new keys added; emptied and refilled only when the
    program changed the order of the keys that stay."""
    ordered = isinstance(target, _OrderedDict)  # a test's own OrderedDict subclass too
    items = _OrderedDict.items if isinstance(source, _OrderedDict) else dict.items
    store = _OrderedDict.__setitem__ if ordered else dict.__setitem__
    delete = _OrderedDict.__delitem__ if ordered else dict.__delitem__
    clear = _OrderedDict.clear if ordered else dict.clear
    raw = list(items(source))
    pairs = [(settled(k), settled(v)) for k, v in raw]
    if target is source:  # fresh: the test's own objects put in for their copies, keys and values
        if any(k is not after for (k, _), (after, _) in zip(raw, pairs, strict=True)):
            clear(target)
            for k, v in pairs:
                store(target, k, v)
            return
        for k, v in pairs:
            if dict.get(target, k) is not v:
                store(target, k, v)
        return
    pair_keys = _canonical_all([k for k, _ in pairs])
    wanted = dict(zip(pair_keys, [k for k, _ in pairs], strict=True))
    present = list(target)
    stored = dict(zip(_canonical_all(present), present, strict=True))  # the test's own key objects
    kept = [c for c in stored if c in wanted]
    reordered = kept != pair_keys[: len(kept)]
    if reordered or any(not _same_key(stored[c], wanted[c]) for c in kept):
        # the program reordered the keys that stay, or put a key not exactly the same in one's
        # place (1.0 for 1, a datetime in another zone): only a refill gives its dict
        clear(target)
        for k, v in pairs:
            store(target, k, v)
        return
    for c, k in list(stored.items()):
        if c not in wanted:
            delete(target, k)
    missing = object()
    for (k, v), c in zip(pairs, pair_keys, strict=True):
        key = stored.get(c, k)  # an existing key is stored under the test's own object (a NaN too)
        current = dict.get(target, key, missing)
        if current is missing or not same_value(current, v):
            store(target, key, v)


def slot_names(kind):
    names = []
    for klass in kind.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        names.extend(name for name in slots if name not in ("__dict__", "__weakref__"))
    return names
