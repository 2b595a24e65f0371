"""The harness's view of the program: proxies over a connection to the program process.

Runs in the trusted harness. Tests see the candidate module through `RemoteModule` (installed in
sys.modules under the solution's module name): attribute reads, calls, instantiation, method calls,
iteration, len/getitem/contains each become a request to the program process. What comes back is
decoded by wire.py into plain data, into the task's own trusted classes (repo tasks), or into a
`Remote` handle for anything else. A handle never decides equality (== is identity) or truth
(bool() raises) here: the verdict always rests on Python's own comparison of plain data.

Exceptions raised in the program arrive as the same builtin (or trusted) exception class, or as a
harness-side stand-in class for a class the program defined, so `except` and `pytest.raises` work;
SystemExit, KeyboardInterrupt and GeneratorExit raised by the program never escape as such: they
become `ProgramAborted`, which fails the test.
"""

import builtins
import os
import sys
import types

import wire

MAX_REPR = 200


class ProgramGone(BaseException):
    """The program process ended, or broke the protocol, during a request (fails the test)."""


class ProgramAborted(BaseException):
    """The program raised SystemExit, KeyboardInterrupt or GeneratorExit (fails the test)."""


class PassBudgetSpent(BaseException):
    """A measurement pass ran out of its time budget (the harness stops that pass)."""


class StaleHandle(TypeError):
    """A program object from an earlier program process was used."""


def short_repr(value):
    try:
        text = repr(value)
    except PassBudgetSpent:
        raise
    except BaseException:
        return f"<unrepresentable {type(value).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


class Session:
    """Everything one harness run knows about the program side: the current connection, the stand-in
    classes for the program's exception classes, and which modules are trusted (the task's repo)."""

    def __init__(self, module_name, repo_dir, entry_point=None):
        self.module_name = module_name
        self.repo_dir = os.path.realpath(repo_dir) + os.sep if repo_dir else None
        self.entry_point = entry_point
        self.connection = None
        self.stand_ins = {}
        self.shadows = {}
        self.return_types = {}
        self.flags = set()
        self.remote_module = None
        self.repo_modules = {}  # module name -> whether it is the task repository's (is_repo_module)

    # -- trusted names -----------------------------------------------------------------------
    def is_repo_module(self, name):
        if not isinstance(name, str) or self.repo_dir is None or name == self.module_name:
            return False
        known = self.repo_modules.get(name)
        if known is None:
            module = sys.modules.get(name)
            if module is None:
                module = self._import_repo_module(name)
            path = getattr(module, "__file__", None)
            known = isinstance(path, str) and os.path.realpath(path).startswith(self.repo_dir)
            # one answer per name and run (each resolves the path, an lstat per component)
            self.repo_modules[name] = known
        return known

    def _import_repo_module(self, name):
        """Import a module of the task's repository (trusted code) that the tests have not imported yet,
        only when its file is in the pristine repo copy."""
        import importlib.util

        parts = name.split(".")
        if any(not part.isidentifier() for part in parts):
            return None
        top = os.path.join(self.repo_dir, parts[0])
        if not (os.path.isdir(top) or os.path.isfile(top + ".py")):
            return None  # never import (even the parent of) a name that is not the repo's
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not os.path.realpath(origin).startswith(self.repo_dir):
            return None
        import importlib

        return importlib.import_module(name)

    def trusted_module(self, name):
        """A module whose classes and functions may be named by the program: builtins, the repo's
        modules, and standard-library modules this process has already imported."""
        if name == "builtins":
            return builtins
        if not isinstance(name, str) or name == self.module_name:
            return None
        if self.is_repo_module(name):
            return sys.modules.get(name)
        module = sys.modules.get(name)
        top = name.partition(".")[0]
        if (
            isinstance(module, types.ModuleType)
            and not isinstance(module, RemoteModule)
            and (top in sys.stdlib_module_names)
        ):
            return module
        return None

    def resolve(self, module_name, qualname):
        module = self.trusted_module(module_name)
        if module is None or not isinstance(qualname, str) or not qualname:
            return None
        target = module
        for part in qualname.split("."):
            if not part.isidentifier():
                return None
            target = getattr(target, part, None)
            if target is None:
                return None
        return target

    # -- exceptions --------------------------------------------------------------------------
    def exception_from(self, info, chained=True):
        """The harness-side exception for a program exception's description (see program.py), with
        its __cause__ and __context__ (described one level deep) attached when they are exceptions."""
        chain = extra = None
        if isinstance(info, tuple) and len(info) == 9:
            info, chain = info[:8], info[8]
        elif isinstance(info, tuple) and len(info) == 10:
            info, extra, chain = info[:8], info[8], info[9]
        try:
            module, qualname, bases, args, message, frames, state, _is_exception = info
        except (TypeError, ValueError):
            return ProgramGone("the program sent a malformed exception")
        exc = self._exception_from(module, qualname, bases, args, message, frames, state)
        if isinstance(exc, Exception) and isinstance(extra, dict):
            _apply_exception_extra(exc, extra, state if isinstance(state, dict) else {})
        if chained and isinstance(exc, Exception) and isinstance(chain, tuple) and len(chain) == 2:
            cause = self.exception_from(chain[0], chained=False) if chain[0] is not None else None
            context = cause if chain[1] == "cause" else None
            if chain[1] is not None and chain[1] != "cause":
                context = self.exception_from(chain[1], chained=False)
            if isinstance(cause, Exception):
                exc.__cause__ = cause  # also sets __suppress_context__, as `raise ... from` does
            if isinstance(context, Exception) and context is not exc:
                exc.__context__ = context
        if isinstance(exc, Exception) and isinstance(extra, dict) and type(extra.get("suppress")) is bool:
            exc.__suppress_context__ = extra["suppress"]  # `raise ... from None`
        return exc

    def _exception_from(self, module, qualname, bases, args, message, frames, state):
        module, qualname = _text(module), _text(qualname)
        message = _text(message)[:2000]
        chain = [(module, qualname)]
        if isinstance(bases, tuple):
            chain += [(_text(m), _text(q)) for m, q in (b for b in bases if _pair(b))][:32]
        klass = self._exception_class(chain)
        if not issubclass(klass, Exception):
            return ProgramAborted(f"the program raised {qualname}: {message}")
        if issubclass(klass, (StopIteration, StopAsyncIteration)):
            # as PEP 479 does for generators: a StopIteration escaping a call must not end a test's loop
            return RuntimeError(f"the program raised {qualname} out of a call: {message}")
        args = args if isinstance(args, tuple) else (message,)
        exc = None
        if klass.__dict__.get("_codegym_stand_in") is None:
            try:
                exc = klass(*args)
            except Exception:
                exc = None
        if exc is None or type(exc) is not klass:
            exc = klass.__new__(klass)
            try:
                exc.args = args
            except Exception:
                exc.args = (message,)
        if klass.__dict__.get("_codegym_stand_in") is not None:
            exc._codegym_message = message
        if isinstance(state, dict):
            # the attributes the program's exception carried (`self.code = ...`), as the plain data
            # (or handles) the codec decoded; never a dunder or codegym's own name, and never a name
            # that is behaviour of the class (a method or property an instance attribute would hide)
            for name, value in state.items():
                if (
                    type(name) is str
                    and name.isidentifier()
                    and not name.startswith(("__", "_codegym"))
                    and not _behaviour_of(klass, name)
                ):
                    try:
                        object.__setattr__(exc, name, value)
                    except Exception:
                        pass
        exc._codegym_frames = tuple(f for f in frames if _frame(f))[:12] if isinstance(frames, tuple) else ()
        return exc

    def _exception_class(self, chain):
        """The trusted class the chain starts with, or stand-ins down from its first trusted ancestor."""
        resolved_index, base = len(chain), Exception
        for index, (module, qualname) in enumerate(chain):
            candidate = self.resolve(module, qualname)
            if isinstance(candidate, type) and issubclass(candidate, BaseException):
                resolved_index, base = index, candidate
                break
        for module, qualname in reversed(chain[:resolved_index]):
            base = self.stand_in(module, qualname, base)
        return base

    def stand_in(self, module, qualname, base):
        key = (module, qualname)
        klass = self.stand_ins.get(key)
        if klass is None or not issubclass(klass, base):
            name = qualname.rpartition(".")[2] or "ProgramError"
            namespace = {
                "__module__": module,
                "__qualname__": qualname,
                "_codegym_stand_in": key,
                "__str__": _stand_in_str,
            }
            try:
                klass = type(name, (base,), namespace)
            except TypeError:
                klass = type(name, (Exception,), namespace)
            self.stand_ins[key] = klass
        return klass

    def shadow_class(self, chain, remote, path=None):
        """The harness's class standing for the program's class chain[0] (chain: its MRO as
        (module, qualname) pairs). Program classes up to the first trusted one become shadows whose
        base is that trusted class (repo classes, builtins, loaded standard-library classes; see
        _may_base_a_shadow for the ones passed over)."""
        chain = [(m, q) for m, q in chain if m and q] or [("", "object")]
        first = chain[0]
        base, program_classes = object, []
        for module, qualname in chain:
            candidate = self.resolve(module, qualname)
            if not isinstance(candidate, type) or isinstance(candidate, ProgramClass):
                program_classes.append((module, qualname))
            elif not program_classes:
                return candidate  # not a program class at all: the trusted class itself
            elif self._may_base_a_shadow(candidate):
                base = candidate
                break
        klass = None
        for module, qualname in reversed(program_classes):
            klass = self._shadow(module, qualname, base)
            base = klass
        if remote is not None:
            type.__setattr__(klass, "_codegym_remote", remote)
        if path is not None and klass.__dict__.get("_codegym_path") is None:
            type.__setattr__(klass, "_codegym_path", tuple(path))
            type.__setattr__(klass, "_codegym_path_name", (first[0], ".".join(path)))
        return klass

    def _may_base_a_shadow(self, klass):
        """Whether a trusted class may be a base of the shadows of program classes. Not a
        standard-library subclass of a plain type: a program's value of a class derived from it is
        compared by the harness's copy, and such a class may carry its own comparison
        (importlib.metadata's case-insensitive `FoldedCase`, `DeprecatedList` comparing as a tuple) —
        the program would pick which trusted `__eq__` decides the verdict. The shadow then derives
        from the plain type further down the chain (the harness's own `Counter` or `OrderedDict` is
        only ever rebuilt for exactly those classes: wire.py's tag `u`). Builtins and the task's
        repository classes may."""
        if klass.__module__ == "builtins" or not issubclass(klass, _VALUE_BASES):
            return True
        return self.is_repo_module(klass.__module__)

    def value_class(self, chain, base):
        """The class of the harness's copies of a program class derived from the plain type `base`:
        RemoteValue mixed into the shadow of that class (so isinstance against the program's class and
        the task's classes holds); None when none can be made."""
        if not chain:
            return None
        key = ("value", chain[0], base)
        klass = self.shadows.get(key)
        if klass is not None:
            return klass
        shadow = self.shadow_class(chain, None)
        if not (isinstance(shadow, type) and issubclass(shadow, base)) or not all(
            isinstance(ancestor, ProgramClass) or self._may_base_a_shadow(ancestor)
            for ancestor in shadow.__mro__
        ):
            shadow = base  # e.g. a chain that starts with a standard-library class (a forged one)
        module, qualname = chain[0]
        name = qualname.rpartition(".")[2] or "ProgramValue"
        namespace = {"__module__": module, "__qualname__": qualname, "_codegym_session": self}
        try:
            klass = type(shadow)(name, (RemoteValue, shadow), namespace)
        except TypeError:
            return None
        self.shadows[key] = klass
        return klass

    def _shadow(self, module, qualname, base):
        key = (module, qualname)
        klass = self.shadows.get(key)
        if klass is not None:
            return klass
        name = qualname.rpartition(".")[2] or "ProgramClass"
        namespace = {"__module__": module, "__qualname__": qualname, "_codegym_session": self}
        try:
            klass = _metaclass_for((base,))(name, (base,), namespace)
            # bound to the program later through type.__setattr__, which some trusted metaclasses
            # refuse (ctypes' Structure): such a base is left out rather than failing the run
            type.__setattr__(klass, "_codegym_probe", None)
            type.__delattr__(klass, "_codegym_probe")
        except Exception:
            klass = ProgramClass(name, (object,), namespace)
        self.shadows[key] = klass
        return klass

    def exception_info(self, exc):
        """Describe a harness exception (raised by a callback) for the program side."""
        kind = type(exc)
        path = kind.__dict__.get("_codegym_stand_in")
        module, qualname = path if path else (str(kind.__module__), kind.__qualname__)
        bases = []
        for klass in kind.__mro__[1:]:
            bases.append((str(klass.__module__), klass.__qualname__))
            if klass.__module__ == "builtins":
                break
        if isinstance(exc, AssertionError):
            # a test callable's failed check fails the test whatever the program does; its text
            # (`actual != expected`, the test's own message) is the test's, never the program's
            return (module, qualname, tuple(bases), (), "", (), {}, True)
        try:
            args = tuple(exc.args)
            wire.encode(args, self.connection._encode_other if self.connection else None, max_bytes=64 * 1024)
        except BaseException:
            args = tuple(short_repr(a) for a in getattr(exc, "args", ()))
        state = {}
        if self.is_repo_module(module):
            for name, value in vars(exc).items():
                if not name.startswith("_"):
                    state[name] = value
        return (module, qualname, tuple(bases), args, _safe_str(exc), (), state, isinstance(exc, Exception))

    def record_return(self, value):
        if len(self.return_types) >= 32:
            return
        self.return_types[type_label(value)] = None


def _stand_in_str(self):
    message = self.__dict__.get("_codegym_message")
    if message is not None:
        return message
    return Exception.__str__(self)


def _text(value):
    return value if type(value) is str else ""


def _pair(value):
    return isinstance(value, tuple) and len(value) == 2


def _frame(value):
    return isinstance(value, tuple) and len(value) == 4 and type(value[0]) is str and type(value[1]) is int


def _safe_str(exc):
    try:
        return str(exc)[:2000]
    except BaseException:
        return "<unprintable>"


def type_label(value):
    if isinstance(value, Remote):
        return f"program:{value._label}"
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


# -- the connection -------------------------------------------------------------------------


class ReplayLog:
    """A pass's requests with the answers they got, in order, for a coverage pass that serves them
    again in the program process (program.op_replay) instead of running the tests again. Kept only
    while the program never called back into the harness (a test's callable or iterator: there is
    no harness to answer during a replay) and while it stays under MAX_BYTES."""

    MAX_BYTES = 8 * 1024 * 1024

    def __init__(self):
        self.entries = []
        self.size = 0
        self.usable = True
        self._request = None

    def sent(self, kind, body):
        self._request = (kind, body) if self.usable else None

    def answered(self, kind, body):
        if self._request is None:
            return
        self.entries.append((*self._request, kind, body))
        self._request = None
        self.size += len(body) + len(self.entries[-1][1]) + 16
        if self.size > self.MAX_BYTES:
            self.spoil()

    def spoil(self):
        self.usable = False
        self.entries = []
        self._request = None


class Connection:
    """One program process: requests, replies, callbacks and the handles it gave out."""

    def __init__(self, channel, session, pid=None):
        self.channel = channel
        self.session = session
        self.pid = pid
        self.remotes = {}
        self.callbacks = []  # a stack: one table per request in flight
        self.callback_ids = {}
        self.items_served = {}  # callback number -> items of a test's iterator read so far
        self.pending_iterator_errors = {}  # callback number -> its exception, after a batch's items
        self.sent = []  # a stack: the objects each request in flight sent by value (for `a`)
        self.same_as = []  # a stack: per request, id of a decoded copy -> (copy, original) (for `A`)
        self.last_same_as = {}
        self.last_settled = {}  # the settle record of the last reply's value (see _settled)
        self.next_callback = 1
        self.failed_assertions = []
        self.violation = False  # the program broke the protocol (as opposed to ending)
        self.closed = False
        self.exports = None
        self.resolved = {}
        self.lost = None
        self._trusted_classes = {}
        self._hooks = {
            b"h": self._decode_known_handle,
            b"H": self._decode_new_handle,
            b"k": self._decode_callback,
            b"n": self._decode_named,
            b"o": self._decode_object,
            b"e": self._decode_enum,
            b"a": self._decode_sent,
            b"A": self._decode_same,
            b"v": self._decode_value_object,
        }
        self.values = {}  # handle -> the harness's copy of a value-like program object
        self.log = None  # a ReplayLog when this pass's requests may be served again (see harness)
        self._last_body = b""

    @property
    def deadline(self):
        return self.channel.deadline

    @deadline.setter
    def deadline(self, value):
        self.channel.deadline = value

    # -- framing ---------------------------------------------------------------------------
    def _encode(self, value):
        encoder = wire.Encoder(self._encode_other, claim=self._claim)
        try:
            body = wire.encode_into(encoder, value)
        except RecursionError:
            raise wire.Uncrossable("the value is nested too deeply to pass to the program") from None
        return body, encoder.keep

    def _send(self, kind, body):
        try:
            self.channel.send(kind, body)
        except OSError as exc:
            self._lose(f"the program process closed its connection ({exc.strerror or exc})")

    def _receive(self):
        try:
            kind, body = self.channel.receive()
        except TimeoutError:
            raise PassBudgetSpent() from None
        except (EOFError, OSError) as exc:
            self._lose(f"the program process ended during the call ({exc})")
        except wire.WireError as exc:
            self._lose(f"the program sent an invalid message: {exc}", violation=True)
        self._last_body = body
        try:
            return kind, wire.Decoder(body, self._hooks).decode()
        except wire.WireError as exc:
            self._lose(f"the program sent an invalid message: {exc}", violation=True)
        except RecursionError:
            self._lose("the program sent a value nested too deeply", violation=True)
        except MemoryError:
            self._lose("the program sent a value too large to decode", violation=True)

    def _lose(self, reason, violation=False):
        self.closed = True
        self.lost = self.lost or reason
        self.violation = self.violation or violation
        self.channel.close()
        raise ProgramGone(self.lost)

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.channel.send(b"Q", wire.encode(None))
            except OSError:
                pass
            self.channel.close()

    # -- the first message ---------------------------------------------------------------------
    def hello(self):
        """The program's exports, or raises the program's import-time exception."""
        kind, message = self._receive()
        if kind == b"r" and isinstance(message, dict):
            names, values = message.get("names"), message.get("values")
            self.exports = {
                "names": [n for n in names if type(n) is str and n.isidentifier()][:4096]
                if isinstance(names, list)
                else [],
                "explicit": message.get("explicit") is True,
                "values": values if isinstance(values, dict) else {},
            }
            return self.exports
        if kind == b"i":
            raise self.session.exception_from(message)
        self._lose("the program sent something other than its exports first", violation=True)

    # -- requests --------------------------------------------------------------------------
    def request(self, kind, *fields):
        """Send one request and return the program's answer: (value, mutations)."""
        if self.closed:
            raise ProgramGone(self.lost or "the program process is gone")
        self.callbacks.append({})
        self.sent.append(None)
        self.same_as.append({})
        sent = answered = False
        failures_before = len(self.failed_assertions)
        try:
            body, keep = self._encode(fields)
            self.sent[-1] = keep
            log = self.log
            if log is not None:
                if len(self.callbacks) > 1 or self.callbacks[-1]:
                    log.spoil()  # nested in a callback, or passing the program a test's callable
                else:
                    log.sent(kind, body)
            self._send(kind, body)
            sent = True
            while True:
                reply_kind, reply = self._receive()
                if reply_kind in (b"o", b"m", b"e"):
                    answered = True
                    if log is not None:
                        log.answered(reply_kind, self._last_body)
                    if len(self.failed_assertions) > failures_before:
                        raise self.failed_assertions[failures_before]
                if reply_kind == b"o":
                    return self._settled(reply), None
                if reply_kind == b"m" and isinstance(reply, tuple) and len(reply) == 2:
                    return self._settled(reply[0]), reply[1] if isinstance(reply[1], dict) else None
                if reply_kind == b"e":
                    raise self.session.exception_from(reply)
                if reply_kind == b"c" and isinstance(reply, tuple) and len(reply) == 3:
                    self._run_callback(*reply)
                    continue
                if reply_kind == b"n" and isinstance(reply, tuple) and len(reply) == 2:
                    self._next_items(*reply)
                    continue
                self._lose(f"the program sent an unexpected {reply_kind!r} message", violation=True)
        except BaseException:
            if sent and not answered and not self.closed:
                # left mid-exchange (a budget ran out, a nested call failed): the program is still busy
                # with our request, so this connection cannot be used again
                self.closed = True
                self.lost = self.lost or "the conversation with the program was interrupted"
            raise
        finally:
            self.sent.pop()
            self.last_same_as = self.same_as.pop()
            for number in self.callbacks.pop():
                self.callback_ids.pop(number, None)
                self.items_served.pop(number, None)
                self.pending_iterator_errors.pop(number, None)

    def _settled(self, value):
        """A reply's value with the objects the harness sent, as the program marked them, put back
        into the harness's originals (an argument the program changed and returned: `inner =
        xs.pop(); inner.append(99); return inner` is the test's own `inner`, changed); the
        arguments that come back after it are settled with the same record (see call)."""
        self.last_settled = {}
        same_as = self.same_as[-1] if self.same_as else None
        if not same_as:
            return value
        return wire.settle(value, same_as, self.last_settled, objects=self._by_value)

    def _by_value(self, obj):
        """Whether `obj` is an instance of the task's repository classes (rebuilt by value, so its
        state may be settled: see wire.settle); never a handle or any object of the harness's own."""
        kind = type(obj)
        return not issubclass(kind, Remote) and self.session.is_repo_module(getattr(kind, "__module__", ""))

    def ask(self, kind, *fields):
        return self.request(kind, *fields)[0]

    def call(self, target, args, kwargs, method=None):
        if method is None:
            value, mutations = self.request(b"C", target, args, kwargs)
        else:
            value, mutations = self.request(b"M", target, method, args, kwargs)
        if mutations:
            same_as, done = self.last_same_as, self.last_settled
            for key, new in mutations.items():
                if type(key) is int and 0 <= key < len(args):
                    old = args[key]
                elif type(key) is str and key in kwargs:
                    old = kwargs[key]
                else:
                    continue
                entry = same_as.get(id(new))
                if (entry is not None and entry[1] is old) or type(old) in (tuple, frozenset):
                    # into `old` itself (a tuple is never marked: what it holds is), by identity
                    wire.settle(new, same_as, done, objects=self._by_value)
                else:  # an argument that crossed as a handle or a program value: by shape
                    wire.merge_into(old, new)
        return value

    def _answer(self, value):
        try:
            body, _keep = self._encode(value)
        except wire.Uncrossable as exc:
            self._send(b"x", self._encode(self.session.exception_info(TypeError(str(exc))))[0])
            return
        self._send(b"k", body)

    def _fail(self, exc):
        self._send(b"x", self._encode(self.session.exception_info(exc))[0])

    def _run_callback(self, number, args, kwargs):
        if self.log is not None:
            self.log.spoil()
        function = self.callback_ids.get(number) if type(number) is int else None
        if function is None or (getattr(function, "__next__", None) is not None and not callable(function)):
            self._fail(RuntimeError("that harness callable has expired"))
            return
        if (
            not isinstance(args, tuple)
            or not isinstance(kwargs, dict)
            or not all(type(k) is str for k in kwargs)
        ):
            self._lose("the program sent a malformed callback", violation=True)
        try:
            result = function(*args, **kwargs)
        except Exception as exc:
            if isinstance(exc, AssertionError):
                self.failed_assertions.append(exc)  # the test failed, whatever the program does with it
            self._fail(exc)
            return
        self._answer(result)

    def _next_items(self, number, count):
        """The next items of a test's iterator that the program reads: exactly one per request for
        the first `wire.EXACT_ITEMS` items, as many next() calls as the program makes (a test's
        iterator is the test's to read on after the call: a shared `iter(range(10))`, a generator
        that records what was taken), then up to 64 per request (a long iterable passed whole). An
        AssertionError the iterator raises fails the test whatever the program does with it, as for
        a test callable."""
        if self.log is not None:
            self.log.spoil()
        iterator = self.callback_ids.get(number) if type(number) is int else None
        if iterator is None or not hasattr(iterator, "__next__"):
            self._fail(RuntimeError("that harness iterator has expired"))
            return
        pending = self.pending_iterator_errors.pop(number, None)
        if pending is not None:
            if isinstance(pending, AssertionError):
                self.failed_assertions.append(pending)
            self._fail(pending)
            return
        served = self.items_served.get(number, 0)
        batch = 1 if served < wire.EXACT_ITEMS else max(1, min(int(count) if type(count) is int else 1, 64))
        items, done = [], False
        try:
            for _ in range(batch):
                items.append(next(iterator))
        except StopIteration:
            done = True
        except Exception as exc:
            if items:  # raised at the next request, once the program has these items
                self.pending_iterator_errors[number] = exc
            else:
                if isinstance(exc, AssertionError):
                    self.failed_assertions.append(exc)  # the test failed, whatever the program does
                self._fail(exc)
                return
        self.items_served[number] = served + len(items)
        self._answer((items, done))

    # -- encoding (harness -> program) -------------------------------------------------------
    def _register_callback(self, obj):
        number = self.next_callback
        self.next_callback += 1
        self.callbacks[-1][number] = None
        self.callback_ids[number] = obj
        return number

    def _claim(self, encoder, obj):
        kind = type(obj)
        if kind is Remote or kind is NamedRemote:
            encoder.reference(b"h", obj._target()._id)
            return True
        if isinstance(obj, RemoteValue):
            remote = obj.__dict__.get("_codegym_remote")
            if remote is not None:
                encoder.reference(b"h", remote._target()._id)
                return True
        try:
            klass = self._trusted_classes[kind]
        except KeyError:
            klass = self._trusted_classes[kind] = self._trusted_class_of(kind)
        except TypeError:
            klass = None
        if klass is None:
            return False
        self._encode_trusted_object(encoder, obj, klass)
        return True

    def _encode_other(self, encoder, obj):
        if isinstance(obj, Remote):
            encoder.reference(b"h", obj._target()._id)
            return
        if isinstance(obj, type):
            path = obj.__dict__.get("_codegym_stand_in") or obj.__dict__.get("_codegym_path_name")
            if path is not None:
                encoder.out += b"n"
                encoder.text(path[0])
                encoder.text(path[1])
                return
            remote = obj.__dict__.get("_codegym_remote")
            if remote is not None:
                encoder.reference(b"h", remote._target()._id)
                return
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            named = _name_of(obj)
            if named is not None and self.session.resolve(*named) is obj:
                encoder.out += b"n"
                encoder.text(named[0])
                encoder.text(named[1])
                return
        if not isinstance(obj, (type, types.ModuleType)) and self._claim(encoder, obj):
            return
        if type(obj) in wire.concrete_path_classes():
            # a test's Path (tmp_path / "x"; a WindowsPath cannot be one here) reaches the program
            # as the pure path of its text: the program cannot reach the harness's files, and the
            # harness's Path must not be a handle (a PosixPath crosses as a Path by the codec)
            wire.encode_pure_path(encoder, obj)
            return
        if hasattr(type(obj), "__next__") and not callable(obj):
            encoder.reference(b"j", self._register_callback(obj))  # a generator or other iterator
            return
        if callable(obj):
            encoder.reference(b"k", self._register_callback(obj))
            return
        raise wire.Uncrossable(f"a {type(obj).__qualname__} object cannot be passed to the program")

    def _trusted_class_of(self, kind):
        """`kind` when its instances may travel by value: a class of the task's repo (never a subclass
        the tests or the program defined)."""
        if (
            self.session.is_repo_module(kind.__module__)
            and self.session.resolve(kind.__module__, kind.__qualname__) is kind
        ):
            return kind
        return None

    def _encode_trusted_object(self, encoder, obj, klass):
        wire.encode_class_instance(encoder, obj, klass)

    def _decode_same(self, decoder):
        """What became of an object the harness sent (a call's argument, or one inside it): its
        contents as the program has them now, decoded as a fresh copy and recorded against the
        original, for `wire.settle` to put into the original alone."""
        original = self._decode_sent(decoder)
        copy = decoder.value()
        if self.same_as:
            self.same_as[-1][id(copy)] = (copy, original)
        return copy

    def _decode_sent(self, decoder):
        index = decoder.u32()
        keep = self.sent[-1] if self.sent else None
        if keep is None or index >= len(keep):
            raise wire.WireError("a reference to an object the harness did not send")
        return keep[index]

    def _decode_value_object(self, decoder):
        """An object of a program class derived from a plain type (a list subclass with methods, a
        named tuple the program defined): its base value, compared by the base type's own __eq__, in
        an instance of the harness's shadow of its class, whose public attributes are the program's
        (each method call brings the value back up to date)."""
        remote = decoder.value()
        value = decoder.value()
        if not isinstance(remote, Remote):
            raise wire.WireError("a value object without a handle")
        base = type(value)
        if base not in _VALUE_BASES:
            raise wire.WireError("a value object whose value is not plain data")
        known = self.values.get(remote._id)
        if known is not None and type(known).__mro__[-2] is base:
            _refresh(known, value)
            return known
        klass = self.session.value_class(remote._chain or (), base)
        if klass is None:
            return value  # no shadow for this class: the plain value alone
        obj = base.__new__(klass) if base in (list, dict, set) else base.__new__(klass, value)
        if base in (list, dict, set):
            base.__init__(obj, value)
        obj.__dict__["_codegym_remote"] = remote
        self.values[remote._id] = obj
        return obj

    def _decode_known_handle(self, decoder):
        number = decoder.u64()
        remote = self.remotes.get(number)
        if remote is None:
            # described in a message we are still decoding (a trusted module imported while decoding
            # it asked the program for something): ask for the description again
            description = self.ask(b"Z", number)
            remote = self.remotes.get(number) or self._register_handle(number, description)
        return remote

    def _decode_new_handle(self, decoder):
        number = decoder.u64()
        description = decoder.value()
        known = self.remotes.get(number)
        if known is not None:
            return known  # registered meanwhile by a nested request (see _decode_known_handle)
        return self._register_handle(number, description)

    def _register_handle(self, number, description):
        if not (isinstance(description, tuple) and len(description) == 5):
            raise wire.WireError("a malformed handle description")
        kind, module, qualname, methods, chain = description
        if kind not in _REMOTE_KINDS:
            raise wire.WireError(f"unknown handle kind {kind!r}")
        module, qualname = _text(module)[:200], _text(qualname)[:200]
        methods = (
            frozenset(m for m in methods if type(m) is str) if isinstance(methods, tuple) else frozenset()
        )
        pairs = (
            [(_text(m), _text(q)) for m, q in (c for c in chain if _pair(c))][:16]
            if isinstance(chain, tuple)
            else []
        )
        label = f"{module}.{qualname}".strip(".") or "object"
        if kind == "exc_class":
            klass = self.session._exception_class(pairs or [(module, qualname)])
            self.remotes[number] = klass
            return klass
        remote = Remote(self, number, kind, label, methods)
        if pairs:
            object.__setattr__(remote, "_chain", tuple(pairs))
        if kind == "class":
            shadow = self.session.shadow_class(pairs or [(module, qualname)], remote)
            self.remotes[number] = shadow
            return shadow
        self.remotes[number] = remote
        return remote

    def _decode_callback(self, decoder):
        number = decoder.u64()
        function = self.callback_ids.get(number)
        if function is None:
            raise wire.WireError("a callback id the harness did not give out (or that expired)")
        return function

    def _decode_named(self, decoder):
        module, qualname = decoder.text(), decoder.text()
        # only what an honest program side names (program._named): builtins and the task's code; a
        # standard-library function under the program's name would be a trusted callable it chose
        if module != "builtins" and not self.session.is_repo_module(module):
            raise wire.WireError(f"{module}.{qualname} is not a builtin or a name of the task's code")
        target = self.session.resolve(module, qualname)
        if not isinstance(target, (type, types.FunctionType, types.BuiltinFunctionType)):
            raise wire.WireError(f"{module}.{qualname} is not a trusted class or function")
        return target

    def _decode_enum(self, decoder):
        import enum

        module, qualname, member = decoder.text(), decoder.text(), decoder.text()
        klass = self.session.resolve(module, qualname) if self.session.is_repo_module(module) else None
        if not (isinstance(klass, type) and issubclass(klass, enum.Enum)):
            raise wire.WireError(f"{module}.{qualname} is not an enum of the task's code")
        try:
            return klass[member]
        except KeyError:
            raise wire.WireError(f"{qualname} has no member {member!r}") from None

    def _decode_object(self, decoder):
        """An instance of one of the task's trusted classes, rebuilt from plain state (no method of the
        class runs while it is decoded)."""
        module, qualname = decoder.text(), decoder.text()
        layout = bytes(decoder._take(1))
        klass = self.session.resolve(module, qualname) if self.session.is_repo_module(module) else None
        if not isinstance(klass, type) or klass.__module__ != module:
            raise wire.WireError(f"{module}.{qualname} is not a class of the task's code")
        base = next((b for b in klass.__mro__ if b in _VALUE_BASES), None)
        slot = len(decoder.memo)
        decoder.register(None)  # the object's place in the memo comes before its base value's
        try:
            if layout == b"V":
                if base is None:
                    raise wire.WireError(f"{qualname} is not a subclass of a plain type")
                value = decoder.value()
                if not isinstance(value, base):
                    raise wire.WireError(f"{qualname} needs a {base.__name__} value")
                if base in (list, dict, set):
                    obj = base.__new__(klass)
                    base.__init__(obj, value)
                else:
                    obj = base.__new__(klass, value)
            elif layout == b"O":
                if base is not None or issubclass(klass, BaseException):
                    raise wire.WireError(f"{qualname} cannot be rebuilt from attributes alone")
                obj = object.__new__(klass)
            else:
                raise wire.WireError("unknown object layout")
        except wire.WireError:
            raise
        except Exception as exc:
            raise wire.WireError(f"cannot rebuild {qualname}: {type(exc).__name__}: {exc}") from None
        decoder.memo[slot] = obj
        state, slots = decoder.value(), decoder.value()
        if not isinstance(state, dict) or not isinstance(slots, dict):
            raise wire.WireError("malformed object state")
        allowed_slots = set(wire.slot_names(klass))
        if state:
            target = getattr(obj, "__dict__", None)
            if not isinstance(target, dict):
                raise wire.WireError(f"{qualname} has no attribute dictionary")
            for name, value in state.items():
                if type(name) is not str:
                    raise wire.WireError("a non-string attribute name")
                if _behaviour_of(klass, name):
                    # an instance attribute would hide the class's method (`m.same_as = f`): a
                    # test calling it would be answered by the program. Left out: the task's
                    # class behaves as the task wrote it
                    continue
                target[name] = value
        for name, value in slots.items():
            if name not in allowed_slots:
                raise wire.WireError(f"{qualname} has no slot {name!r}")
            object.__setattr__(obj, name, value)
        return obj


_VALUE_BASES = wire.VALUE_BASES


def _behaviour_of(klass, name):
    """Whether `name` is behaviour the class defines (a method, a property, any descriptor), which
    an instance attribute must not replace; plain class-level defaults (a dataclass field's) may."""
    for owner in klass.__mro__:
        if name in owner.__dict__:
            attribute = owner.__dict__[name]
            return callable(attribute) or hasattr(type(attribute), "__get__")
    return False


wire.load_value_types()  # the harness's tests may hold dates, Decimals and Fractions from the start
_PLAIN_LEAVES = frozenset((type(None), bool, int, float, complex, str, bytes, bytearray, range))
_PLAIN_LEAVES |= {type(Ellipsis)}
_PLAIN_LEAVES |= {wire._Date, wire._DateTime, wire._Time, wire._TimeDelta, wire._Decimal, wire._Fraction}
_PLAIN_LEAVES |= {wire._Pattern, wire._Array}
_PLAIN_CONTAINERS = (list, tuple, set, frozenset, wire._Deque)
_FIELD_TYPES = (type(None), int, str, bytes)


def _plain(value, depth=0):
    """Whether value is plain data the codec builds (no handle, callback or trusted-class object)."""
    kind = type(value)
    if kind in _PLAIN_LEAVES:
        return True
    if depth > 50:
        return False
    if kind in _PLAIN_CONTAINERS:
        return all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict) and kind in (dict, wire._OrderedDict, wire._Counter, wire._DefaultDict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in dict.items(value))
    return False


def _apply_exception_extra(exc, extra, state):
    """Set what the program described beyond args and __dict__ (program.py's _exception_extra) on
    the harness's exception. The builtin bases' C-level fields only from wire.EXCEPTION_FIELDS,
    through the harness's own descriptors, and only as None/int/str/bytes. Class attributes and
    property values only on a stand-in (a class the harness made: its attributes are not behaviour
    of a trusted class), as instance attributes holding plain data; never a dunder, codegym's own
    name, or a name that is behaviour of the class (`args`, `with_traceback`, a trusted method)."""
    fields = extra.get("fields")
    if isinstance(fields, dict):
        for base, names in wire.EXCEPTION_FIELDS.items():
            if not isinstance(exc, base):
                continue
            for name in names:
                value = fields.get(name, fields)
                if value is fields or type(value) not in _FIELD_TYPES:
                    continue
                try:
                    base.__dict__[name].__set__(exc, value)
                except Exception:
                    pass
    if type(exc).__dict__.get("_codegym_stand_in") is None:
        return
    klass = type(exc)
    for key in ("class", "properties"):
        values = extra.get(key)
        if not isinstance(values, dict):
            continue
        for name, value in values.items():
            if (
                type(name) is str
                and name.isidentifier()
                and not name.startswith(("__", "_codegym"))
                and (key == "properties" or name not in state)  # an instance attribute hides a class one
                and not _behaviour_of(klass, name)
                and _plain(value)
            ):
                try:
                    object.__setattr__(exc, name, value)
                except Exception:
                    pass


def _refresh(obj, value):
    """Bring the harness's copy of a value-like program object up to date (mutable bases only)."""
    if isinstance(obj, list):
        list.__setitem__(obj, slice(None), value)
    elif isinstance(obj, dict):
        dict.clear(obj)
        dict.update(obj, value)
    elif isinstance(obj, set):
        set.clear(obj)
        set.update(obj, value)


# the immutable plain types and their public attributes (methods, properties)
_IMMUTABLE_ATTRIBUTES = {
    base: {name: value for name, value in vars(base).items() if not name.startswith("_")}
    for base in (str, bytes, int, float, tuple, frozenset)
}


class RemoteValue:
    """Mixin of the shadows of program classes derived from plain types: the instance holds the value
    (so ==, len, iteration and indexing are the base type's own); public attributes and methods are
    the program's, reached through the handle — except the attributes of an immutable base type
    (`startswith`, `index`, `bit_length`...), which answer on the value the test holds: the value
    cannot change, so a program's override could only disagree with the value it returned (a wrong
    str whose `startswith` says what a hidden test checks). A mutable base's methods stay the
    program's: an LRU cache's `get` moves the key it reads."""

    def __getattribute__(self, name):
        if name.startswith("_"):
            return object.__getattribute__(self, name)
        remote = object.__getattribute__(self, "__dict__").get("_codegym_remote")
        if remote is None:
            return object.__getattribute__(self, name)
        for base, attributes in _IMMUTABLE_ATTRIBUTES.items():
            if name in attributes and isinstance(self, base):
                attribute = attributes[name]
                binder = getattr(type(attribute), "__get__", None)
                return binder(attribute, self, base) if binder is not None else attribute
        target = remote._target()
        if name in target._methods:
            return RemoteMethod(target, name)
        return target._conn.ask(b"G", target, name)


def _name_of(obj):
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        return module, qualname
    if isinstance(obj, types.BuiltinFunctionType) and getattr(obj, "__self__", None) is builtins:
        return "builtins", obj.__name__
    return None


# -- proxies --------------------------------------------------------------------------------


class Remote:
    """An object that stays in the program process. Equality is identity; its truth, length and
    string are asked of the program as plain data (as any method's result would be)."""

    __slots__ = ("__weakref__", "_buffer", "_chain", "_conn", "_id", "_kind", "_label", "_methods", "_shadow")

    def __init__(self, conn, number, kind, label, methods):
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_id", number)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_label", label)
        object.__setattr__(self, "_methods", methods)
        object.__setattr__(self, "_buffer", None)
        object.__setattr__(self, "_chain", ())
        object.__setattr__(self, "_shadow", None)

    def _target(self):
        if self._conn is not self._conn.session.connection:
            raise StaleHandle(f"the program object {self._label} belongs to an earlier run of the program")
        return self

    def _ask(self, kind, *fields):
        target = self._target()
        return target._conn.request(kind, target, *fields)[0]

    @property
    def __class__(self):
        """The harness's shadow of the object's class (so isinstance() sees the task's own base
        classes); `type()` still says Remote."""
        shadow = object.__getattribute__(self, "_shadow")
        if shadow is None:
            chain = object.__getattribute__(self, "_chain")
            shadow = Remote
            if chain and object.__getattribute__(self, "_kind") in ("object", "callable", "iterator"):
                session = object.__getattribute__(self, "_conn").session
                shadow = session.shadow_class(chain, None)
            object.__setattr__(self, "_shadow", shadow)
        return shadow

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        target = self._target()
        if name in target._methods:
            return RemoteMethod(target, name)
        return target._conn.ask(b"G", target, name)

    def __setattr__(self, name, value):
        self._ask(b"S", name, value)

    def __delattr__(self, name):
        self._ask(b"D", name)

    def __call__(self, *args, **kwargs):
        target = self._target()
        value = target._conn.call(target, args, kwargs)
        if target._label.rpartition(".")[2] == target._conn.session.entry_point:
            target._conn.session.record_return(value)
        return value

    def __len__(self):
        value = self._ask(b"L")
        if type(value) is not int or value < 0:
            raise TypeError(f"len() of the program's {self._label} gave {short_repr(value)}")
        return value

    def __bool__(self):
        value = self._ask(b"B")
        if type(value) is not bool:
            raise TypeError(f"bool() of the program's {self._label} gave {short_repr(value)}")
        return value

    def __getitem__(self, key):
        return self._ask(b"I", key)

    def __setitem__(self, key, value):
        self._ask(b"J", key, value)

    def __delitem__(self, key):
        self._ask(b"K", key)

    def __contains__(self, item):
        value = self._ask(b"N", item)
        if type(value) is not bool:
            raise TypeError(f"`in` on the program's {self._label} gave {short_repr(value)}")
        return value

    def __iter__(self):
        target = self._target()
        if target._kind == "iterator" and "__iter__" not in target._methods:
            return target  # its __iter__ is the usual `return self`: no need to ask
        iterator = target._conn.ask(b"T", target)
        if not isinstance(iterator, Remote):
            raise TypeError(f"iter() on the program's {self._label} gave {short_repr(iterator)}")
        object.__setattr__(iterator, "_kind", "iterator")
        # the program's own __iter__ ran (it may have restarted the iteration): what was read before
        # is the old iteration's (items are read one by one for the first wire.EXACT_ITEMS, so this
        # drops nothing unread but an earlier end, or a later batch's unread items)
        object.__setattr__(iterator, "_buffer", None)
        return iterator

    def __next__(self):
        """The program's next item. The program reads ahead (a batch of up to 64) only over builtin
        iterators whose reading has no effect (wire.PURE_ITERATORS); a generator's is read one item
        per next(), and an exception after some items of a batch is raised on the next request."""
        target = self._target()
        buffer = target._buffer
        if buffer is None:
            buffer = {"items": [], "done": False, "stop": None, "batch": 1}
            object.__setattr__(target, "_buffer", buffer)
        if not buffer["items"]:
            if buffer["done"]:
                raise StopIteration(buffer["stop"])
            reply = target._conn.ask(b"X", target, buffer["batch"])
            if not (isinstance(reply, tuple) and len(reply) == 3 and isinstance(reply[0], list)):
                raise TypeError(f"the program's iterator {self._label} answered {short_repr(reply)}")
            buffer["items"], buffer["done"], buffer["stop"] = reply[0][::-1], reply[1] is True, reply[2]
            buffer["batch"] = min(64, buffer["batch"] * 2)  # adaptive: long iterations cost few round trips
            if not buffer["items"]:
                buffer["done"] = True
                raise StopIteration(buffer["stop"])
        return buffer["items"].pop()

    def __str__(self):
        value = self._ask(b"U")
        return value if type(value) is str else short_repr(value)

    def __repr__(self):
        """The program's own repr(), asked of it like str(): a plain str, which decides nothing
        (== stays identity). Where the program cannot answer, the handle's label."""
        fallback = f"<program {self._label} object #{self._id}>"
        if self._kind not in ("object", "callable", "iterator"):
            return fallback
        try:
            target = self._target()
            if target._conn.closed:
                return fallback
            value = target._conn.ask(b"V", target)
        except Exception:
            return fallback
        return value if type(value) is str else fallback

    def __format__(self, spec):
        return format(str(self), spec)

    __hash__ = object.__hash__

    def __enter__(self):
        return RemoteMethod(self._target(), "__enter__")()

    def __exit__(self, *exc_info):
        RemoteMethod(self._target(), "__exit__")(None, None, None)
        return False  # the program's context manager never swallows a test's exception


class RemoteMethod:
    """`obj.name` for a method the program's object has: one request per call, none to look it up."""

    __slots__ = ("_name", "_owner")

    def __init__(self, owner, name):
        self._owner = owner
        self._name = name

    def __call__(self, *args, **kwargs):
        owner = self._owner._target()
        return owner._conn.call(owner, args, kwargs, method=self._name)

    def __repr__(self):
        return f"<program method {self._owner._label}.{self._name}>"


class NamedRemote(Remote):
    """A module-level object of the program, bound by name: it resolves in whichever program process
    is current, so tests that imported it once keep working in every pass."""

    __slots__ = ("_path",)

    def __init__(self, session, path, kind, label, methods):
        object.__setattr__(self, "_path", path)
        Remote.__init__(self, session, 0, kind, label, methods)

    def _target(self):
        return _resolve_path(self._conn, self._path)

    @property
    def __class__(self):
        return NamedRemote

    def __repr__(self):
        if self._kind == "object":
            return Remote.__repr__(self)
        return f"<program {self._label}>"


def _resolve_path(session, path):
    connection = session.connection
    if connection is None or connection.closed:
        raise ProgramGone((connection.lost if connection else None) or "the program process is gone")
    remote = connection.resolved.get(path)
    if remote is None:
        remote = connection.ask(b"R", path)
        if isinstance(remote, type):
            remote = remote.__dict__.get("_codegym_remote")
        if not isinstance(remote, Remote):
            raise TypeError(f"{'.'.join(path)} is no longer an object of the program")
        connection.resolved[path] = remote
    return remote


class ProgramClass(type):
    """Metaclass of the harness's shadows of the program's classes. A shadow subclasses the task's
    trusted classes the program's class derives from (so isinstance/issubclass against them work);
    calling it instantiates the class in the program, and its public attributes are the program's."""

    def __call__(cls, *args, **kwargs):
        target = cls._codegym_target()
        return target._conn.call(target, args, kwargs)

    def __getattribute__(cls, name):
        if name.startswith("_"):
            return type.__getattribute__(cls, name)
        namespace = type.__getattribute__(cls, "__dict__")
        if namespace.get("_codegym_path") is None and namespace.get("_codegym_remote") is None:
            return type.__getattribute__(cls, name)  # not bound to the program (yet): a plain class
        target = type.__getattribute__(cls, "_codegym_target")()
        if name in target._methods:
            return RemoteMethod(target, name)
        return target._conn.ask(b"G", target, name)

    def _codegym_target(cls):
        path = cls.__dict__.get("_codegym_path")
        if path is not None:
            return _resolve_path(cls.__dict__["_codegym_session"], path)
        remote = cls.__dict__.get("_codegym_remote")
        if remote is None:
            raise TypeError(f"the program's class {cls.__qualname__} cannot be reached from here")
        return remote._target()

    def __repr__(cls):
        return f"<program class {cls.__module__}.{cls.__qualname__}>"


_META_CACHE = {}


def _metaclass_for(bases):
    metas = [type(b) for b in bases if type(b) is not type]
    if not metas:
        return ProgramClass
    key = tuple(metas)
    meta = _META_CACHE.get(key)
    if meta is None:
        meta = type("ProgramClass", (ProgramClass, *dict.fromkeys(metas)), {})
        _META_CACHE[key] = meta
    return meta


_REMOTE_KINDS = ("module", "class", "function", "callable", "object", "iterator", "exc_class")


class RemoteModule(types.ModuleType):
    """The candidate module as the tests see it (`import solution`, `from solution import *`)."""

    def __init__(self, session, name):
        super().__init__(name)
        object.__setattr__(self, "_codegym_session", session)
        session.remote_module = self

    def _codegym_bind(self, exports):
        names = [name for name in exports["names"] if not _test_machinery(name)]
        self.__dict__["__all__"] = names
        for name, value in exports["values"].items():
            if type(name) is str and name.isidentifier() and not _test_machinery(name):
                self.__dict__[name] = self._codegym_wrap((name,), value)

    def _codegym_wrap(self, path, value):
        session = self.__dict__["_codegym_session"]
        if isinstance(value, type) and isinstance(value, ProgramClass):
            remote = value.__dict__.get("_codegym_remote")
            if remote is not None and len(path) == 1:
                return session.shadow_class(remote._chain or ((self.__name__, path[0]),), None, path=path)
            return value
        if (
            isinstance(value, Remote)
            and not isinstance(value, NamedRemote)
            and value._kind in ("function", "callable", "object", "module")
        ):
            label = ".".join(path) if value._kind == "function" else value._label
            named = NamedRemote(session, path, value._kind, label, value._methods)
            object.__setattr__(named, "_chain", value._chain)
            return named
        return value

    def __getattr__(self, name):
        if (name.startswith("__") and name.endswith("__")) or _test_machinery(name):
            raise AttributeError(name)
        session = self.__dict__["_codegym_session"]
        connection = session.connection
        if connection is None:
            raise AttributeError(name)
        try:
            value = connection.ask(b"R", (name,))
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None
        wrapped = self._codegym_wrap((name,), value)
        if isinstance(wrapped, (NamedRemote, type)):
            self.__dict__[name] = wrapped  # stable across passes: bound by name
        return wrapped


def _test_machinery(name):
    """Names pytest reads from a test module or a plugin (`pytest_plugins`, `pytest_*` hooks,
    `pytestmark`, `collect_ignore`): never the program's to provide. A star import would put them in
    a test module, and `pytest_plugins = ["solution"]` would register the program's module as a
    plugin whose hooks (a `pytest_pyfunc_call` that skips every test body) run the session."""
    return type(name) is not str or name.startswith(("pytest", "collect_ignore"))


def connect(read_fd, write_fd, session, pid):
    return Connection(wire.Channel(read_fd, write_fd), session, pid)
