"""The program's side of a run: imports the candidate code and answers the harness's calls.

This module runs in the untrusted program process (its own uid, rlimits, seccomp; see zygote.py),
after the process was set up and before any of the program's code ran. From the moment the
candidate module is imported, everything in this process — this module included — belongs to the
program: it can rewrite any of it. Nothing here decides anything. The harness trusts no byte of what
this side sends beyond what the codec (wire.py) decodes into plain data, and the program never sees
a test, an expected value or the verdict channel: it only receives calls.

Protocol (frames of wire.Channel: a kind byte and one encoded value):
  program -> harness first: b"r" exports, or b"i" the import's exception;
  harness -> program: requests (b"C" call, b"M" method call, b"G" getattr, ...; see _OPS), answered
  with b"o" value, b"m" (value, mutated arguments) or b"e" exception. During a call the program may send b"c"
  (run a harness callable) or b"n" (next items of a harness iterator) and waits for b"k" (value) or
  b"x" (exception), serving nested requests meanwhile. b"A" (again) starts the coverage pass in this
  process: answered as the first message, b"r" or b"i" (see _rearm). b"P" (op_replay) serves the
  verdict pass's requests again under the tracer instead of the harness sending them one by one.
"""

import functools
import importlib
import importlib.util
import marshal
import os
import sys
import types

import wire

MAX_MESSAGE_CHARS = 2000
MAX_FRAMES = 12
MAX_METHODS = 256
MAX_CHAIN = 16
MAX_EXCEPTION_ATTRIBUTES = 64
EXPORT_LIMIT = 512


def _safe_text(function, value, limit=MAX_MESSAGE_CHARS):
    try:
        text = function(value)
        if not isinstance(text, str):
            return "<unprintable>"
        return text[:limit]
    except BaseException:
        return "<unprintable>"


class Callback:
    """A harness callable, called back over the connection (valid during the call it came with)."""

    __slots__ = ("_id", "_server")

    def __init__(self, server, number):
        self._server = server
        self._id = number

    def __call__(self, *args, **kwargs):
        return self._server.call_back(self._id, args, kwargs)

    def __repr__(self):
        return f"<harness callable #{self._id}>"


class CallbackIterator:
    """A harness iterator (a generator a test passed), read over the connection: one item per
    next() for the first `wire.EXACT_ITEMS` (the test may read it on after the call, so nothing is
    read ahead of the program; the harness serves no more anyway), then in growing batches."""

    __slots__ = ("_batch", "_done", "_id", "_items", "_received", "_server")

    def __init__(self, server, number):
        self._server = server
        self._id = number
        self._items = []
        self._done = False
        self._batch = 1
        self._received = 0

    def __iter__(self):
        return self

    def __next__(self):
        if not self._items:
            if self._done:
                raise StopIteration
            items, done = self._server.next_items(self._id, self._batch)
            self._items, self._done = list(items)[::-1], done
            self._received += len(self._items)
            if self._received >= wire.EXACT_ITEMS:
                self._batch = min(64, self._batch * 2)
            if not self._items:
                self._done = True
                raise StopIteration
        return self._items.pop()


class ProgramServer:
    def __init__(
        self,
        channel,
        module_name,
        scratch,
        code_fd=None,
        module_template=None,
        standby=None,
        standby_template=None,
    ):
        self.channel = channel
        self.standby = standby  # a coverage tracer for a coverage pass in this process (see _rearm)
        self.standby_template = standby_template  # and that pass's module object
        self.code = None  # the candidate's code object, kept for that pass
        self.code_fd = code_fd  # the candidate's code, compiled by the worker (see _import_candidate)
        self.module_template = module_template  # see module_template()
        self.module_name = module_name
        self.scratch = os.path.abspath(scratch) + os.sep  # a real path (the worker's layout has no links)
        self.objects = {}
        self.handle_of = {}
        self.described = set()
        self.next_handle = 1
        self.methods_of = {}
        self.chains = {}
        self.repo_classes = {}
        self.plain_bases = {}
        self.module = None
        self.coverage = None
        self.pending_errors = {}  # id(iterator) -> (iterator, exception raised after a batch's items)
        self.items_read = {}  # id(iterator) -> (iterator, requests served): exact reading, then batches
        self.known = []  # per request in flight: {id(obj): index} of the objects the harness sent
        self.hooks = {
            b"h": self._decode_handle,
            b"k": self._decode_callback,
            b"j": self._decode_callback_iterator,
            b"n": self._decode_named,
            b"o": self._decode_object,
            b"e": self._decode_enum,
        }

    # -- connection ------------------------------------------------------------------------
    def send(self, kind, value, known=None, extra=None):
        self.channel.send(*self._frame(kind, value, known, extra))

    def _frame(self, kind, value, known=None, extra=None):
        """A message as (kind, body), as `send` would send it."""
        encoder = wire.Encoder(self._encode_other, claim=self._claim)
        try:
            with wire.deep_codec():
                if extra is None:
                    encoder.known = known
                    encoder.value(value)
                else:
                    encoder.out += b"t\x02\x00\x00\x00"
                    # the value and the arguments: each object the harness sent is marked, with
                    # its contents (the harness puts them into its own original: see wire.settle)
                    encoder.same = known
                    encoder.value(value)
                    encoder.value(extra)
                    encoder.same = None
            if len(encoder.out) > encoder.max_bytes:
                raise wire.Uncrossable(f"the value is larger than the {encoder.max_bytes}-byte limit")
            body = bytes(encoder.out)
        except (wire.Uncrossable, RecursionError, MemoryError) as exc:
            kind, body = b"e", wire.encode(self._exception_info(exc), self._encode_other, claim=self._claim)
        return kind, body

    def receive(self):
        kind, body = self.channel.receive()
        return (kind, *self._decode(body))

    def _decode(self, body):
        decoder = wire.Decoder(body, self.hooks)
        value = decoder.decode()
        return value, decoder.memo

    def _untraced(self, function, *args):
        """`function(*args)`, with the coverage tracer paused during a coverage pass: for the
        server's own work between the candidate's calls (decoding a request, describing and encoding
        an answer). Those lines are not the program's, and traced they ran ~3 times slower (the
        coverage pass serves every request again). Paused and resumed in this one frame, so the
        tracer's record of the frames it entered stays balanced."""
        coverage = self.coverage
        if coverage is None:
            return function(*args)
        coverage.pause()
        try:
            return function(*args)
        finally:
            coverage.resume()

    def _exception_frame(self, kind, exc):
        return self._frame(kind, self._exception_info(exc))

    def _exports_frame(self):
        return self._frame(b"r", self._exports())

    # -- start -----------------------------------------------------------------------------
    def start(self, coverage=None):
        self.coverage = coverage
        try:
            if coverage is not None:
                coverage.start()
            self.module = self._import_candidate()
        except BaseException as exc:  # SystemExit at import included: reported, never re-raised
            self.channel.send(*self._untraced(self._exception_frame, b"i", exc))
            return False
        self.channel.send(*self._untraced(self._exports_frame))
        return True

    def _import_candidate(self):
        """The candidate module. A top-level module file in scratch is read, compiled and executed
        here as the import system would (its spec and module attributes; registered in sys.modules
        first, removed again when it raises), without its finders: they touch objects
        all over the inherited heap, and each touched page is a copy-on-write fault (~125 of them,
        a third of this process's start). Packages and anything else go through importlib."""
        name = self.module_name
        path = os.path.join(self.scratch, name + ".py")
        if "." in name or not os.path.isfile(path):
            return importlib.import_module(name)
        template = self.module_template
        if template is not None and template.__name__ == name and template.__file__ == path:
            module = template  # made by the zygote with _new_module, never run there
        else:
            module = _new_module(name, path)
        sys.modules[name] = module
        try:
            code = self.code or self._precompiled()
            if code is None:
                with open(path, "rb") as handle:
                    source = handle.read()
                code = compile(source, path, "exec", dont_inherit=True)
            self.code = code
            exec(code, module.__dict__)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return sys.modules.get(name, module)  # a module may put something else in its place

    def _rearm(self):
        """The coverage pass, in this process (see harness._measurement_continue): the standard
        streams to /dev/null (the verdict pass's output is complete), the verdict pass's handles
        dropped, the tracer started and the candidate's module executed again, in a new module
        object (made as the import system would, see _import_candidate)."""
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        for table in (self.objects, self.handle_of, self.pending_errors, self.items_read, self.methods_of):
            table.clear()
        self.described.clear()
        self.next_handle = 1  # numbered as in the verdict pass: its requests can be served again
        self.coverage, self.module_template = self.standby, self.standby_template
        sys.modules.pop(self.module_name, None)
        return self.start(self.coverage)

    def _precompiled(self):
        """The module's code as the worker compiled it from the same bytes, if it sent it."""
        if self.code_fd is None:
            return None
        chunks = []
        try:
            while chunk := os.read(self.code_fd, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(self.code_fd)
            self.code_fd = None
        return marshal.loads(b"".join(chunks)) if chunks else None

    def _exports(self):
        namespace = vars(self.module)
        declared = namespace.get("__all__")
        if isinstance(declared, (list, tuple)) and all(isinstance(n, str) for n in declared):
            names, explicit = list(declared)[:EXPORT_LIMIT], True
        else:
            names = [n for n in namespace if isinstance(n, str) and not n.startswith("_")][:EXPORT_LIMIT]
            explicit = False
        values = {}
        for name in names:
            value = namespace.get(name)
            if callable(value) or isinstance(value, types.ModuleType):
                values[name] = value  # handles (or trusted names); plain values are fetched when used
        return {"names": names, "explicit": explicit, "values": values}

    def serve(self):
        while True:
            try:
                kind, message, memo = self._untraced(self.receive)
            except EOFError:
                return
            if kind == b"Q":
                return
            if kind == b"A":
                if not self._rearm():
                    return
                continue
            self.handle(kind, message, memo)
            if self.coverage is not None:
                self.coverage.finish_if_complete()

    # -- requests --------------------------------------------------------------------------
    def handle(self, kind, message, memo):
        self.channel.send(*self._answer(kind, message, memo))

    def _answer(self, kind, message, memo):
        """Serve one request; its answer as (kind, body)."""
        handler = _OPS.get(kind)
        self.known.append({id(obj): index for index, obj in enumerate(memo)} if memo else None)
        try:
            if handler is None or not isinstance(message, tuple):
                raise TypeError(f"unknown request {kind!r}")
            result = handler(self, *message)
        except BaseException as exc:
            self.known.pop()
            return self._untraced(self._exception_frame, b"e", exc)
        known = self.known.pop()
        if type(result) is tuple and len(result) == 2 and result[0] is _MUTATED:
            value, mutations = result[1]
            return self._untraced(self._frame, b"m", value, known, mutations)
        return self._untraced(self._frame, b"o", result, known)

    def _call(self, function, args, kwargs):
        if not (any(type(a) not in wire.IMMUTABLE_SCALARS for a in args) or kwargs):
            return function(*args, **kwargs)
        snapshot = _flat_snapshot(args, kwargs)
        before = self._fingerprint((args, kwargs)) if snapshot is None else None
        result = function(*args, **kwargs)
        if snapshot is not None:
            if _flat_unchanged(args, kwargs, snapshot):
                return result
        elif self._fingerprint((args, kwargs)) == before:
            return result
        mutations = {}
        for index, value in enumerate(args):
            if type(value) not in wire.IMMUTABLE_SCALARS:
                mutations[index] = value
        for name, value in kwargs.items():
            if type(value) not in wire.IMMUTABLE_SCALARS:
                mutations[name] = value
        return (_MUTATED, (result, mutations))

    def _fingerprint(self, value):
        """The arguments' contents as bytes, to see whether a call changed them (handles stand for
        themselves and are never registered)."""
        try:
            return wire.encode(value, self._encode_probe, claim=self._claim)
        except BaseException:
            return None

    def op_call(self, target, args, kwargs):
        return self._call(target, args, kwargs)

    def op_callattr(self, target, name, args, kwargs):
        result = self._call(getattr(target, name), args, kwargs)
        if self._plain_base(type(target)) is None:
            return result
        # a method of a value-like object: send the object back too, so the harness's copy follows
        if type(result) is tuple and len(result) == 2 and result[0] is _MUTATED:
            value, mutations = result[1]
        else:
            value, mutations = result, {}
        mutations["self"] = target
        return (_MUTATED, (value, mutations))

    def op_getattr(self, target, name):
        return getattr(target, name)

    def op_resolve(self, path):
        value = self.module
        for name in path:
            value = getattr(value, name)
        return value

    def op_setattr(self, target, name, value):
        setattr(target, name, value)

    def op_delattr(self, target, name):
        delattr(target, name)

    def op_getitem(self, target, key):
        return target[key]

    def op_setitem(self, target, key, value):
        target[key] = value

    def op_delitem(self, target, key):
        del target[key]

    def op_len(self, target):
        return len(target)

    def op_contains(self, target, item):
        return item in target

    def op_bool(self, target):
        return bool(target)

    def op_iter(self, target):
        return iter(target)

    def op_next(self, target, count):
        """Up to `count` items; an exhausted iterator ends the batch (items, True, StopIteration.value).
        Only an iterator whose reading has no observable effect (wire.PURE_ITERATORS) is read ahead
        at once: any other gives one item per request, as plain Python's next() would, for its first
        `wire.EXACT_ITEMS` requests, then batches (a test iterating a long generator). An exception
        after some items is kept and raised at the next request, once the harness has used those
        items."""
        pending = self.pending_errors.pop(id(target), None)
        if pending is not None and pending[0] is target:
            raise pending[1]
        if type(target) not in wire.PURE_ITERATORS:
            read = self.items_read.get(id(target))
            done = read[1] if read is not None and read[0] is target else 0
            if done < wire.EXACT_ITEMS:
                count = 1
            self.items_read[id(target)] = (target, done + 1)  # (a batch counts once: enough here)
        items = []
        for _ in range(max(1, min(int(count), 256))):
            try:
                items.append(next(target))
            except StopIteration as stop:
                return (items, True, stop.value)
            except Exception as exc:
                if not items:
                    raise
                self.pending_errors[id(target)] = (target, exc)
                break
        return (items, False, None)

    def op_str(self, target):
        return str(target)

    def op_repr(self, target):
        return repr(target)

    def op_isinstance(self, target, klass):
        return isinstance(target, klass)

    def op_release(self, handles):
        for number in handles:
            obj = self.objects.pop(number, None)
            if obj is not None:
                self.handle_of.pop(id(obj), None)
                self.items_read.pop(id(obj), None)
                self.described.discard(number)

    def op_describe(self, number):
        if number not in self.objects:
            raise KeyError(f"no handle {number}")
        return self._describe(self.objects[number])

    def op_coverage(self):
        if self.coverage is None:
            return None
        self.coverage.stop()
        return self.coverage.raw_arcs()

    def op_coverage_target(self, statements, possible, multiline, fixers=()):
        if self.coverage is not None:
            self.coverage.set_target(statements, possible, multiline, fixers)

    def op_replay(self, statements, possible, multiline, fixers, entries):
        """The coverage pass without the tests running again: with the target set (see
        op_coverage_target), serve again, under the tracer, the verdict pass's requests
        (remote.ReplayLog), each checked against the answer it got then. Serving stops at the first
        different answer and once every statement and branch arc has run (the figure is final then).
        Answers (requests served, whether every answer was the same, whether the figure was
        complete first, the executed arcs as op_coverage gives them)."""
        self.op_coverage_target(statements, possible, multiline, fixers)
        served, same, complete = 0, True, False
        for entry in entries:
            if not (type(entry) is tuple and len(entry) == 4):
                same = False
                break
            kind, body, answer_kind, answer_body = entry
            try:
                message, memo = self._untraced(self._decode, body)
            except Exception:
                same = False
                break
            if self._answer(kind, message, memo) != (answer_kind, answer_body):
                same = False
                break
            served += 1
            if self.coverage is not None:
                self.coverage.finish_if_complete()
                if self.coverage.complete:
                    complete = True
                    break
        return served, same, complete, self.op_coverage() if same else None

    # -- callbacks -------------------------------------------------------------------------
    def _await_answer(self):
        while True:
            kind, message, memo = self.receive()
            if kind == b"k":
                return message
            if kind == b"x":
                raise self._exception_from_info(message)
            if kind == b"Q":
                raise SystemExit(0)
            self.handle(kind, message, memo)

    def call_back(self, number, args, kwargs):
        self.send(b"c", (number, args, kwargs), known=self.known[-1] if self.known else None)
        return self._await_answer()

    def next_items(self, number, count):
        self.send(b"n", (number, count))
        answer = self._await_answer()
        if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], (list, tuple))):
            raise TypeError("the harness sent a malformed batch")
        return answer

    # -- encoding hooks --------------------------------------------------------------------
    def _is_repo_module(self, name):
        if not isinstance(name, str) or name == self.module_name:
            return False
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        return isinstance(path, str) and os.path.abspath(path).startswith(self.scratch)

    def _named(self, obj):
        """(module, qualname) when obj is a class or function the harness can resolve by name."""
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            return None
        if module != "builtins" and not self._is_repo_module(module):
            return None
        target = sys.modules.get(module)
        for part in qualname.split("."):
            target = getattr(target, part, None)
        return (module, qualname) if target is obj else None

    def _repo_class(self, kind):
        """`kind` itself when it is a class of the task's repo (its instances travel by value)."""
        if self._is_repo_module(getattr(kind, "__module__", None)) and self._named(kind) is not None:
            return kind
        return None

    def _plain_base(self, kind):
        """The plain base type when `kind` is a subclass of one that the program (not the standard
        library, not the task's repo) defined: such objects travel as their base value *and* a handle
        (tag `v`), so the tests compare them as plain data and still reach their methods."""
        try:
            return self.plain_bases[kind]
        except KeyError:
            pass
        except TypeError:
            return None
        base = None
        module = getattr(kind, "__module__", None)
        if (
            isinstance(module, str)
            and module != "builtins"
            and module.partition(".")[0] not in sys.stdlib_module_names
            and not self._is_repo_module(module)
        ):
            base = next((b for b in kind.__mro__ if b in _VALUE_BASES), None)
        self.plain_bases[kind] = base
        return base

    def _claim(self, encoder, obj):
        kind = type(obj)
        try:
            klass = self.repo_classes[kind]
        except KeyError:
            klass = self.repo_classes[kind] = self._repo_class(kind)
        except TypeError:
            klass = None
        if klass is not None:
            self._encode_repo_object(encoder, obj, klass)
            return True
        base = self._plain_base(kind)
        if base is None:
            return False
        encoder.out += b"v"
        if encoder.other == self._encode_probe:
            encoder.reference(b"P", id(obj))
        else:
            self._encode_handle(encoder, obj)
        wire.encode_as_base(encoder, obj, base)
        return True

    def _encode_other(self, encoder, obj):
        if isinstance(obj, Callback):
            encoder.reference(b"k", obj._id)
            return
        if isinstance(obj, CallbackIterator):
            encoder.reference(b"j", obj._id)
            return
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            named = self._named(obj)
            if named is not None:
                encoder.out += b"n"
                encoder.text(named[0])
                encoder.text(named[1])
                return
        if not isinstance(obj, (type, types.ModuleType)) and self._claim(encoder, obj):
            return
        self._encode_handle(encoder, obj)

    def _encode_probe(self, encoder, obj):
        if isinstance(obj, (Callback, CallbackIterator)):
            encoder.reference(b"k", obj._id)
        elif not isinstance(obj, (type, types.ModuleType)) and self._claim(encoder, obj):
            return
        else:
            encoder.reference(b"P", id(obj))

    def _encode_repo_object(self, encoder, obj, klass):
        wire.encode_class_instance(encoder, obj, klass)

    def _encode_handle(self, encoder, obj):
        number = self.handle_of.get(id(obj))
        if number is None:
            number = self.next_handle
            self.next_handle += 1
            self.objects[number] = obj
            self.handle_of[id(obj)] = number
        if number in self.described:
            encoder.reference(b"h", number)
            return
        self.described.add(number)
        encoder.reference(b"H", number)
        encoder.value(self._describe(obj))

    def _chain(self, klass):
        """(module, qualname) of each class of klass's MRO, for the harness's shadow classes."""
        chain = self.chains.get(klass) or _KNOWN_CHAINS.get(klass)
        if chain is None:
            chain = tuple(
                (
                    _safe_text(lambda k: str(k.__module__), k, 200),
                    _safe_text(lambda k: str(k.__qualname__), k, 200),
                )
                for k in klass.__mro__[:MAX_CHAIN]
            )
            self.chains[klass] = chain
        return chain

    def _describe(self, obj):
        """(kind, module, qualname, public method names, MRO chain) of an object kept here."""
        kind = type(obj)
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__, obj.__name__, (), ())
        if isinstance(obj, type):
            label = "exc_class" if issubclass(obj, BaseException) else "class"
            module = _safe_text(lambda o: str(o.__module__), obj, 200)
            return (label, module, _safe_text(lambda o: str(o.__qualname__), obj, 200), (), self._chain(obj))
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            module = _safe_text(lambda o: str(getattr(o, "__module__", "") or ""), obj, 200)
            return ("function", module, _safe_text(lambda o: str(o.__qualname__), obj, 200), (), ())
        module, qualname = (
            _safe_text(lambda k: str(k.__module__), kind, 200),
            _safe_text(lambda k: str(k.__qualname__), kind, 200),
        )
        if hasattr(kind, "__next__"):
            # an __iter__ of the program's own (one that resets the iteration, say) must run on
            # iter(); the harness skips the request only for the usual `return self`
            custom = _has_own_iter(kind)
            return ("iterator", module, qualname, ("__iter__",) if custom else (), self._chain(kind))
        label = "callable" if callable(obj) else "object"
        return (label, module, qualname, self._methods(kind), self._chain(kind))

    def _methods(self, kind):
        cached = self.methods_of.get(kind)
        if cached is None:
            cached = _KNOWN_METHODS.get(kind)
        if cached is None:
            names = []
            for name in dir(kind):
                if not name.startswith("_") and callable(getattr(kind, name, None)):
                    names.append(name)
            cached = self.methods_of[kind] = tuple(names[:MAX_METHODS])
        return cached

    # -- decoding hooks (the harness's data, which this side takes as it comes) ---------------
    def _decode_handle(self, decoder):
        number = decoder.u64()
        if number not in self.objects:
            raise wire.WireError(f"unknown handle {number}")
        return self.objects[number]

    def _decode_callback(self, decoder):
        return Callback(self, decoder.u64())

    def _decode_callback_iterator(self, decoder):
        return CallbackIterator(self, decoder.u64())

    @staticmethod
    def _resolve(module_name, qualname):
        target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        return target

    def _decode_named(self, decoder):
        module, qualname = decoder.text(), decoder.text()
        return self._resolve(module, qualname)

    def _decode_enum(self, decoder):
        module, qualname, member = decoder.text(), decoder.text(), decoder.text()
        return self._resolve(module, qualname)[member]

    def _decode_object(self, decoder):
        module, qualname = decoder.text(), decoder.text()
        layout = bytes(decoder._take(1))
        klass = self._resolve(module, qualname)
        base = next((b for b in klass.__mro__ if b in _VALUE_BASES), None)
        slot = len(decoder.memo)
        decoder.register(None)  # the object's place in the memo comes before its base value's
        if layout == b"V":
            base_value = decoder.value()
            if base in (list, dict, set):
                obj = base.__new__(klass)
                base.__init__(obj, base_value)
            else:
                obj = base.__new__(klass, base_value)
        else:
            obj = object.__new__(klass)
        decoder.memo[slot] = obj
        state, slots = decoder.value(), decoder.value()
        if state and hasattr(obj, "__dict__"):
            obj.__dict__.update(state)
        for name, value in slots.items():
            object.__setattr__(obj, name, value)
        return obj

    # -- exceptions ------------------------------------------------------------------------
    def _exception_info(self, exc, chained=True):
        """(module, qualname, bases, args, message, frames, state, is_exception, extra, chain):
        the exception's plain-data description (extra: see _exception_extra); with `chained`, chain
        is (cause, context), its __cause__ and __context__ described one level deep (None where
        absent, "cause" where the context is the cause), else None."""
        info = (*self._describe_exception(exc), self._exception_extra(exc))
        if not chained:
            return (*info, None)
        cause, context = _chained(exc, "__cause__"), _chained(exc, "__context__")
        if cause is None and context is None:
            return (*info, None)
        cause_info = self._exception_info(cause, chained=False) if cause is not None else None
        if context is None:
            context_info = None
        elif context is cause:
            context_info = "cause"
        else:
            context_info = self._exception_info(context, chained=False)
        return (*info, (cause_info, context_info))

    def _describe_exception(self, exc):
        kind = type(exc)
        bases = []
        for klass in kind.__mro__[1:]:
            bases.append(
                (_safe_text(lambda k: str(k.__module__), klass), _safe_text(lambda k: k.__qualname__, klass))
            )
            if klass.__module__ == "builtins":
                break
        try:
            args = tuple(exc.args)
            wire.encode(args, self._encode_other, max_bytes=64 * 1024, claim=self._claim)
        except BaseException:
            args = tuple(_safe_text(repr, a) for a in getattr(exc, "args", ()) or ())
        state = {}
        for name, value in (getattr(exc, "__dict__", None) or {}).items():
            if isinstance(name, str) and not name.startswith("__"):
                try:
                    wire.encode(value, self._encode_other, max_bytes=16 * 1024, claim=self._claim)
                    state[name] = value
                except BaseException:
                    pass
        return (
            _safe_text(lambda k: str(k.__module__), kind, 200),
            _safe_text(lambda k: k.__qualname__, kind, 200),
            tuple(bases),
            args,
            _safe_text(str, exc),
            self._frames(exc),
            state,
            isinstance(exc, Exception),
        )

    def _exception_extra(self, exc):
        """What an exception holds beyond args and its instance __dict__, as plain data only:
        {"class": the plain-data class attributes of the program's own classes along its MRO (no
        function, dunder or descriptor), "properties": the values of its properties, evaluated
        here (one that raises, or whose value is not plain data, is left out), "fields": the
        C-level fields of the builtin bases that EXCEPTION_FIELDS names (OSError's errno and
        filename...), read through the base's own descriptors, "suppress": __suppress_context__}."""
        kind = type(exc)
        class_attributes, properties, fields = {}, {}, {}
        seen = set()
        try:
            mro = type.__dict__["__mro__"].__get__(kind)
        except BaseException:
            mro = ()
        for klass in mro:
            module = _safe_text(lambda k: str(k.__module__), klass)
            if module == "builtins" or module.partition(".")[0] in sys.stdlib_module_names:
                break
            try:
                namespace = dict(type.__dict__["__dict__"].__get__(klass))
            except BaseException:
                continue
            for name, attribute in namespace.items():
                if type(name) is not str or name.startswith("__") or name in seen:
                    continue
                seen.add(name)
                if isinstance(attribute, (property, functools.cached_property)):
                    if len(properties) < MAX_EXCEPTION_ATTRIBUTES:
                        try:
                            value = attribute.__get__(exc, kind)
                        except BaseException:
                            continue
                        if _plain_data(value):
                            properties[name] = value
                elif (
                    not (callable(attribute) or hasattr(type(attribute), "__get__"))
                    and len(class_attributes) < MAX_EXCEPTION_ATTRIBUTES
                    and _plain_data(attribute)
                ):
                    class_attributes[name] = attribute
        for base, names in wire.EXCEPTION_FIELDS.items():
            if isinstance(exc, base):
                for name in names:
                    try:
                        value = base.__dict__[name].__get__(exc, base)
                    except BaseException:
                        continue
                    if type(value) in (type(None), int, str, bytes) and _plain_data(value):
                        fields[name] = value
        try:
            suppress = BaseException.__suppress_context__.__get__(exc) is True
        except BaseException:
            suppress = False
        return {"class": class_attributes, "properties": properties, "fields": fields, "suppress": suppress}

    def _frames(self, exc):
        frames = []
        try:
            tb = exc.__traceback__
            while tb is not None:
                code = tb.tb_frame.f_code
                path = os.path.realpath(code.co_filename)
                if path.startswith(self.scratch):
                    relative = path[len(self.scratch) :]
                    frames.append((relative, tb.tb_lineno, code.co_name, _source_line(path, tb.tb_lineno)))
                tb = tb.tb_next
        except BaseException:
            pass
        return tuple(frames[-MAX_FRAMES:])

    def _exception_from_info(self, info):
        """An exception the harness raised in a callback, as an exception of this process."""
        module, qualname, bases, args, message = info[0], info[1], info[2], info[3], info[4]
        klass = None
        for candidate_module, candidate_name in ((module, qualname), *bases):
            try:
                resolved = self._resolve(candidate_module, candidate_name)
            except Exception:
                continue
            if isinstance(resolved, type) and issubclass(resolved, BaseException):
                klass = resolved
                break
        if klass is None:
            klass = Exception
        if (module, qualname) != (klass.__module__, klass.__qualname__):
            klass = type(qualname.rpartition(".")[2] or "Error", (klass,), {"__module__": module})
        try:
            exc = klass(*args)
        except Exception:
            exc = klass.__new__(klass)
            exc.args = (message,)
        for name, value in (info[6] if len(info) > 6 and isinstance(info[6], dict) else {}).items():
            try:
                setattr(exc, name, value)
            except Exception:
                pass
        return exc


def _plain_data(value):
    """Whether `value` encodes as plain data alone (no handle), within 16 KiB."""
    try:
        wire.encode(value, None, max_bytes=16 * 1024)
    except BaseException:
        return False
    return True


def _chained(exc, name):
    """exc.__cause__ or exc.__context__ when it is an exception (read through BaseException's own
    descriptor), else None."""
    try:
        value = getattr(BaseException, name).__get__(exc)
    except BaseException:
        return None
    return value if isinstance(value, BaseException) else None


_FLAT = {list: list.copy, dict: dict.copy, set: set.copy, bytearray: bytes}


def _has_own_iter(kind):
    """Whether `kind`'s __iter__ is Python code (any code at all may run there); True when unsure."""
    try:
        for klass in type.__dict__["__mro__"].__get__(kind):
            namespace = type.__dict__["__dict__"].__get__(klass)
            if "__iter__" in namespace:
                return type(namespace["__iter__"]) is not types.WrapperDescriptorType
    except Exception:
        return True
    return False


def _flat_snapshot(args, kwargs):
    """Copies of the arguments when each is a scalar or a flat list/dict/set of scalars (most calls):
    comparing those after the call is far cheaper than encoding them twice. None otherwise."""
    copies = []
    for value in (*args, *kwargs.values()):
        kind = type(value)
        if kind in wire.IMMUTABLE_SCALARS:
            copies.append(None)
            continue
        copy = _FLAT.get(kind)
        if copy is None:
            return None
        items = (*value.keys(), *value.values()) if kind is dict else value  # keys too (a tuple key
        # compares equal to one of floats where ints were: only the full fingerprint tells them apart)
        if kind is not bytearray and not all(type(item) in wire.IMMUTABLE_SCALARS for item in items):
            return None
        copies.append(copy(value))
    return copies


def _flat_unchanged(args, kwargs, copies):
    for value, copy in zip((*args, *kwargs.values()), copies, strict=True):
        if copy is None:
            continue
        if type(value) is dict:
            now, before = list(value.items()), list(copy.items())
            if len(now) != len(before) or not all(  # order counts too
                wire.same_value(k, ck) and wire.same_value(v, cv)
                for (k, v), (ck, cv) in zip(now, before, strict=True)
            ):
                return False
        elif type(value) is bytearray:
            if bytes(value) != copy:
                return False
        elif not (
            len(value) == len(copy) and all(wire.same_value(a, b) for a, b in zip(value, copy, strict=True))
        ):
            return False
    return True


def _source_line(path, lineno):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if number == lineno:
                    return line.strip()[:200]
    except OSError:
        pass
    return ""


_VALUE_BASES = wire.VALUE_BASES
_MUTATED = object()


_OPS = {
    b"C": ProgramServer.op_call,
    b"M": ProgramServer.op_callattr,
    b"G": ProgramServer.op_getattr,
    b"R": ProgramServer.op_resolve,
    b"S": ProgramServer.op_setattr,
    b"D": ProgramServer.op_delattr,
    b"I": ProgramServer.op_getitem,
    b"J": ProgramServer.op_setitem,
    b"K": ProgramServer.op_delitem,
    b"L": ProgramServer.op_len,
    b"N": ProgramServer.op_contains,
    b"B": ProgramServer.op_bool,
    b"T": ProgramServer.op_iter,
    b"X": ProgramServer.op_next,
    b"U": ProgramServer.op_str,
    b"V": ProgramServer.op_repr,
    b"Y": ProgramServer.op_isinstance,
    b"E": ProgramServer.op_release,
    b"O": ProgramServer.op_coverage,
    b"W": ProgramServer.op_coverage_target,
    b"P": ProgramServer.op_replay,
    b"Z": ProgramServer.op_describe,
}


_REHEARSAL_SOURCE = "def echo(*args, **kwargs):\n    return args\n"


def module_template(module_name, scratch):
    """The module object importlib makes for the candidate's file (spec, loader, attributes), made
    by the zygote before it forks: each program process executes the candidate in its own
    copy-on-write copy of this untouched object instead of running importlib's spec and module
    code itself (~75 copy-on-write faults). None for a module inside a package (imported through
    importlib in the program process)."""
    if "." in module_name:
        return None
    return _new_module(module_name, os.path.join(os.path.abspath(scratch) + os.sep, module_name + ".py"))


def _new_module(name, path):
    """The module importlib makes for the file at `path`: spec, loader and every attribute it sets."""
    return importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))


# What _describe works out for the types of what the preloaded modules export, worked out once in
# the zygote (learn_types) and read by every program process: the candidate's module exports what it
# imported too (nearly every HumanEval prompt has `from typing import List`), and describing an
# instance means a dir() over its type, whose every attribute touched would be a copy-on-write fault
# (~55 of them per program for typing's aliases). Only standard-library types are kept here.
_KNOWN_METHODS = {}
_KNOWN_CHAINS = {}


def learn_types(module_names):
    """Describe (see ProgramServer._describe) what the loaded modules MODULE_NAMES export and keep
    what that worked out for their types, for every program process forked afterwards."""
    server = ProgramServer(None, "_codegym_learning", "/")
    for name in module_names:
        module = sys.modules.get(name)
        if not isinstance(module, types.ModuleType) or name.partition(".")[0] not in sys.stdlib_module_names:
            continue
        for attribute, value in list(vars(module).items()):
            if attribute.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
                continue
            try:
                server._describe(value)
            except Exception:  # a type that cannot describe itself is described when used, if ever
                pass
    _KNOWN_METHODS.update(server.methods_of)
    _KNOWN_CHAINS.update(server.chains)


def rehearse(rounds=24):
    """Serve a trusted stand-in module through the real serving path (exports, a decoded call, the
    answer), in the zygote, before any program exists. CPython quickens and specialises code on its
    first executions, writing into code objects; done here, those writes are inherited instead of
    repeated, as copy-on-write faults, in every program process."""
    read_fd, write_fd = os.pipe()
    module = types.ModuleType("_codegym_rehearsal")
    exec(_REHEARSAL_SOURCE, module.__dict__)
    server = ProgramServer(wire.Channel(read_fd, write_fd), module.__name__, "/")
    server.module = module
    calls = ((1, 2.5, "text"), ([1, 2, 3], True), ({"key": [1, (2, 3)]}, None), ("x" * 40, -7))

    def call_request(encoder, _obj):
        encoder.reference(b"h", server.handle_of[id(module.echo)])

    try:
        for _ in range(rounds):
            server.send(b"r", server._exports())
            server.channel.receive()
            for args in calls:
                body = wire.encode((object(), args, {}), call_request)
                decoder = wire.Decoder(body, server.hooks)
                server.handle(b"C", decoder.decode(), decoder.memo)
                server.channel.receive()
    finally:
        os.close(read_fd)
        os.close(write_fd)
