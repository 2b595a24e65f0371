"""Coverage of the program's own file: coverage.py's tracer runs in the program process, the
analysis (which lines and branches exist) runs in the harness.

The tracer lives in the untrusted process, so its data is the program's to bend: a program can
stop the tracer or add arcs. The figure feeds only the coverage component, never the verdict (see
the README's list of what the program can still influence).
"""

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import token
import tokenize
import types

try:  # CPython 3.11's C tokenizer as an iterator (from 3.12 it backs tokenize, with other arguments)
    from _tokenize import TokenizerIter as _C_TOKENS
except ImportError:
    _C_TOKENS = None
if sys.version_info[:2] != (3, 11):
    _C_TOKENS = None
_LAYOUT_TOKENS = frozenset((token.NEWLINE, token.INDENT, token.DEDENT, token.ENDMARKER))
_WORD_TOKENS = frozenset((token.NAME, token.NUMBER, token.STRING))

_STAND_IN = "import math\n\n\ndef stand_in(x):\n    return math.floor(x)\n"


class Tracer:
    """coverage.py's C tracer for the solution file: created and warmed once in the zygote, started
    in each traced program process before the import."""

    def __init__(self, scratch_dir, solution_path):
        self.path = os.path.join(scratch_dir, solution_path)
        # Only the solution file is traced: the repo's files and our own lines would cost time and
        # mean nothing.
        try:
            self.recorder = _LeanRecorder(self.path)
        except (ImportError, OSError, AttributeError, TypeError):
            self.recorder = _CoverageRecorder(self.path)
        self._running = False
        self._bits = None  # the C tracer's packing width, learnt in warm_import
        self._lines_left = self._arcs_left = None  # set_target: what must still run for a full figure
        self._multiline = {}
        self._fixers = {}
        self._seen = frozenset()

    def warm_import(self, scratch_dir, solution_path):
        """Import a stand-in module at the solution's own path under the tracer, then forget it: the
        import machinery's and the tracer's first-use work for that path happens once here rather than
        in every program process (~6 ms each)."""
        module_name = os.path.splitext(solution_path)[0].replace("/", ".")
        parts = module_name.split(".")
        for depth in range(1, len(parts)):
            package = os.path.join(scratch_dir, *parts[:depth])
            os.makedirs(package, exist_ok=True)
            with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8"):
                pass
        with open(self.path, "w", encoding="utf-8") as handle:
            handle.write(_STAND_IN)
        sys.path.insert(0, scratch_dir)
        try:
            self.start()
            importlib.import_module(module_name).stand_in(1.5)
        finally:
            self.stop()
            sys.path.remove(scratch_dir)
            for depth in range(1, len(parts) + 1):
                sys.modules.pop(".".join(parts[:depth]), None)
            data = self.recorder.data
            if data is not None:
                self._bits = _packing_width(data.get(self.path), line_count=6)
                data.pop(self.path, None)  # the stand-in's arcs are not the program's

    def warm_serving(self, rounds=24):
        """Rehearse a traced program process's own work here, in the zygote: the serving path
        (program.rehearse) under the tracer, and our target, completion check and arc reading on
        the stand-in's arcs. Code run while tracing gets its line table on first use, and CPython
        specialises code on its first executions, writing into code objects: done here, those writes
        are inherited instead of repeated, as copy-on-write faults, in every program process."""
        import program

        code = compile(_STAND_IN, self.path, "exec", dont_inherit=True)
        for _ in range(rounds):
            self.start()
            try:
                namespace = {}
                exec(code, namespace)
                namespace["stand_in"](1.5)
                self.set_target([1, 3, 4, 5], [(4, 5), (5, -4)], [(6, 5)])
                self.finish_if_complete()
                program.rehearse(rounds=1)
                self.raw_arcs()
            finally:
                self.stop()
            if self.recorder.data is not None:
                self.recorder.data.pop(self.path, None)
        self._lines_left = self._arcs_left = None
        self._multiline, self._fixers, self._seen = {}, {}, frozenset()

    def start(self):
        self.recorder.start()
        self._running = True

    def stop(self):
        if not self._running:
            return
        self._running = False
        self.recorder.stop()

    def pause(self):
        """Stop recording this thread for a moment: the program server's own work between the
        candidate's calls (decoding a request, encoding an answer). Its lines are not the program's
        and traced they ran ~3 times slower. `resume`, called in the same frame, goes on."""
        if self._running:
            self.recorder.pause()

    def resume(self):
        if self._running:
            self.recorder.resume()

    def set_target(self, statements, possible, multiline=(), fixers=()):
        """The statements and branch arcs of the solution (`analyse`, done by the harness). Once all
        of them have run the figure is final, 100% of both: `finish_if_complete` then stops the
        tracer, so a test that loops long after that runs at full speed (HumanEval/75's triple loop
        took 5.5 times its untraced time)."""
        if self._bits is None or self.recorder.data is None:
            return  # the raw data cannot be read as it grows: trace to the end, as before
        self._multiline = {pair[0]: pair[1] for pair in multiline if len(pair) == 2}
        self._fixers = {
            tuple(pair[0]): (tuple(pair[1]) if pair[1] is not None else None)
            for pair in fixers
            if len(pair) == 2 and len(pair[0]) == 2 and (pair[1] is None or len(pair[1]) == 2)
        }
        self._lines_left = {line for line in statements if type(line) is int}
        self._arcs_left = {tuple(arc) for arc in possible if len(arc) == 2}

    def finish_if_complete(self):
        """Called between the harness's requests: stop tracing when every statement and branch arc
        has run (only new raw entries are decoded, so an unchanged set costs one length check)."""
        if not self._running or self._lines_left is None:
            return
        self.recorder.pause()  # our own bookkeeping (as in pause)
        try:
            self._take_new_arcs()
        except Exception:  # raw data of another shape: trace to the end, as without a target
            self._lines_left = None
        if self.complete:
            self.stop()
        else:
            self.recorder.resume()

    def _take_new_arcs(self):
        raw = self.recorder.data.get(self.path)
        if raw is None or len(raw) == len(self._seen):
            return
        new = raw - self._seen
        self._seen = self._seen | new
        for raw_arc in _decode(new, self._bits):
            arc = statement_arc(raw_arc, self._multiline, self._fixers)
            if arc is None:
                continue
            self._arcs_left.discard(arc)
            self._lines_left.discard(arc[0])
            self._lines_left.discard(arc[1])

    @property
    def complete(self):
        """Whether every statement and branch arc of the target has run (the figure is final)."""
        return self._lines_left is not None and not self._lines_left and not self._arcs_left

    def raw_arcs(self):
        """Executed arcs, read from coverage.py's raw tracer data (skipping a SQLite flush). The C
        tracer packs an arc into one int — two line numbers of 28 bits (20 before coverage 7.12) plus
        two sign bits; the width whose decoding stays inside the file is the right one, else
        coverage.py's own (slower) data API decides."""
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                line_count = handle.read().count("\n") + 1
        except OSError:
            line_count = 1 << 20
        data = self.recorder.data
        raw = data.get(self.path) if data is not None else None
        if raw is None:
            return self.recorder.arcs()
        if not raw:
            return []
        bits = _packing_width(raw, line_count)
        if bits is None:
            return self.recorder.arcs()
        return sorted(_decode(raw, bits))


class _LeanRecorder:
    """coverage.py's C tracer (CTracer), loaded from its extension module alone and configured as
    coverage.py's collector would for one file: importing the coverage package instead would double
    the zygote's heap (~12 MB, 120 modules), and every program process's fork, copy-on-write faults
    and exit pay for each page of it. New threads get a tracer of their own, as with coverage.py."""

    def __init__(self, path):
        module = _tracer_module()
        disposition = module.CFileDisposition()
        disposition.original_filename = disposition.canonical_filename = path
        disposition.source_filename = path
        disposition.trace = True
        disposition.reason = ""
        disposition.file_tracer = None
        disposition.has_dynamic_filename = False
        self.path = path
        self._disposition = disposition
        self._tracer_class = module.CTracer
        self.data = {}  # the traced file -> the set of its packed arcs, shared by every thread's tracer
        self.should_trace_cache = {}
        self._threads = []
        import threading  # program threads are traced too (coverage.py loads it as well)

        self._threading = threading
        self._main = self._tracer()
        _decide_loaded_files(self.should_trace_cache, self.should_trace)

    def should_trace(self, filename, frame):
        return self._disposition if filename == self.path else None

    def _tracer(self):
        tracer = self._tracer_class()
        tracer.data = self.data
        tracer.trace_arcs = True
        tracer.should_trace = self.should_trace
        tracer.should_trace_cache = self.should_trace_cache
        tracer.warn = _ignore
        # members that not every coverage.py version's tracer has (its collector sets them so too)
        optional = {"file_tracers": {}, "lock_data": _ignore, "unlock_data": _ignore}
        optional.update(dict.fromkeys(_UNUSED_HOOKS))
        for name, value in optional.items():
            if hasattr(tracer, name):
                setattr(tracer, name, value)
        return tracer

    def _thread_started(self, frame, event, arg):
        """The first trace event of a new thread: give it its own tracer from here on."""
        sys.settrace(None)
        tracer = self._tracer()
        self._threads.append(tracer)
        return tracer.start()(frame, event, arg)

    def start(self):
        self._main.start()
        self._threading.settrace(self._thread_started)

    def stop(self):
        self._main.stop()
        sys.settrace(None)
        self._threading.settrace(None)
        for tracer in self._threads:
            tracer.stop()

    def pause(self):
        self._main.stop()  # this thread's tracer only (others trace their own threads)

    def resume(self):
        self._main.start()

    def arcs(self):
        return []  # nothing was recorded for the file (or not as packed arcs)


class _CoverageRecorder:
    """coverage.py's own collector, when its tracer cannot be loaded alone: its low-level tracer is
    made here and stopped, so a program process starts only it (one C call) instead of
    `Coverage.start()`, whose bookkeeping touches objects all over the inherited heap. When this
    coverage.py's internals differ, its public start and stop."""

    def __init__(self, path):
        import warnings

        import coverage

        self.path = path
        self.cov = coverage.Coverage(data_file=None, branch=True, include=[path], config_file=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.cov.start()
            self.cov.stop()
            self.cov.get_data()
        self._armed = self._arm()
        self.data = self._armed[0].data if self._armed is not None else None

    def _arm(self):
        collector = getattr(self.cov, "_collector", None)
        start_tracer = getattr(collector, "_start_tracer", None)
        if start_tracer is None or not isinstance(getattr(collector, "data", None), dict):
            return None
        try:
            start_tracer()
            tracer = collector.tracers.pop()
            tracer.stop()
        finally:
            sys.settrace(None)
        if not (callable(getattr(tracer, "start", None)) and callable(getattr(tracer, "stop", None))):
            return None
        cache = getattr(collector, "should_trace_cache", None)
        if isinstance(cache, dict) and getattr(collector, "should_trace", None) is not None:
            _decide_loaded_files(cache, collector.should_trace)
        return collector, tracer

    def start(self):
        if self._armed is None:
            self.cov.start()
            return
        collector, tracer = self._armed
        tracer.start()
        threading = _threading_of(collector)
        if threading is not None:
            threading.settrace(collector._installation_trace)  # threads started later, as coverage does

    def stop(self):
        if self._armed is None:
            self.cov.stop()
            return
        collector, tracer = self._armed
        tracer.stop()
        sys.settrace(None)
        threading = _threading_of(collector)
        if threading is not None:
            threading.settrace(None)
        for other in collector.tracers:  # those started on the program's threads
            other.stop()

    def pause(self):
        pass  # coverage.py's own collector keeps tracing: its tracer may not be the C one

    def resume(self):
        pass

    def arcs(self):
        return sorted(self.cov.get_data().arcs(self.path) or ())


# the collector's hooks for plugins, contexts and concurrency: none of them is used for one file
_UNUSED_HOOKS = (
    "check_include",
    "concur_id_func",
    "should_start_context",
    "switch_context",
    "disable_plugin",
)


def _ignore(*args, **kwargs):
    return None


_tracer_modules = []
_TRACER_NAME = "codegym_coverage.tracer"


def preload():
    """What a traced program process needs, loaded before the zygote forks any: the C tracer and the
    threading module (each new thread gets a tracer), never the coverage package."""
    import threading  # noqa: F401

    _tracer_module()


def _tracer_module():
    """coverage.py's compiled tracer module, loaded without the coverage package, from a private
    copy of its file: the module sets its types up once per loaded library, so a second load of the
    same file (coverage.py's own import, by a program that uses coverage.py) would find none. The
    copy is an anonymous memory file (no directory a program could fill or a noexec mount refuse:
    Docker's /tmp is one), else a file in a fresh private directory under /tmp."""
    if _tracer_modules:
        return _tracer_modules[0]
    spec = importlib.util.find_spec("coverage")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("coverage.py is not installed")
    directory = next(iter(spec.submodule_search_locations))
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    names = [n for n in os.listdir(directory) if n.startswith("tracer.") and n.endswith(suffixes)]
    if not names:
        raise ImportError("coverage.py has no compiled tracer here")
    with open(os.path.join(directory, names[0]), "rb") as source:
        data = source.read()
    try:
        module = _load_from_memory(data)
    except (OSError, ImportError, AttributeError):
        module = _load_from_private_file(data, names[0])
    _tracer_modules.append(module)
    return module


def _load_extension(path):
    loader = importlib.machinery.ExtensionFileLoader(_TRACER_NAME, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(_TRACER_NAME, loader))
    loader.exec_module(module)
    return module


def _load_from_memory(data):
    fd = os.memfd_create("codegym-coverage-tracer", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        return _load_extension(f"/proc/self/fd/{fd}")
    finally:  # the loaded library stays mapped
        os.close(fd)


def _load_from_private_file(data, name):
    private = os.path.join("/tmp", "codegym-tracer-" + os.urandom(8).hex())
    os.mkdir(private, 0o700)
    copy = os.path.join(private, name)
    try:
        with open(copy, "xb") as target:
            target.write(data)
        return _load_extension(copy)
    finally:
        try:
            os.unlink(copy)
        except OSError:
            pass
        os.rmdir(private)


def _decode(raw, bits):
    """Arcs from the tracer's raw entries: tuples as they are, ints unpacked at `bits` per line."""
    mask = (1 << bits) - 1
    decoded = set()
    for item in raw:
        if isinstance(item, tuple):
            decoded.add(item)
            continue
        first, second = item & mask, (item >> bits) & mask
        decoded.add(
            (
                -first if item >> (2 * bits) & 1 else first,
                -second if item >> (2 * bits + 1) & 1 else second,
            )
        )
    return decoded


def _packing_width(raw, line_count):
    """The width (28 or 20) whose decoding of `raw` stays inside a file of `line_count` lines, or
    None when neither does (or there is nothing to decode)."""
    if not raw:
        return None
    for bits in (28, 20):
        if all(abs(a) <= line_count and abs(b) <= line_count for a, b in _decode(raw, bits)):
            return bits
    return None


def _threading_of(collector):
    """The threading module when coverage.py follows new threads (as its own start does), else None."""
    threading = sys.modules.get("threading")
    return threading if threading is not None and getattr(collector, "threading", None) is not None else None


def _decide_loaded_files(cache, should_trace):
    """Fill the tracer's per-file cache (whether to trace a code object's file) for the code of every
    loaded module: the first frame of a file the tracer meets would otherwise call the decision
    code in the program process (~250 copy-on-write faults a pass with coverage.py's)."""
    filenames = set()
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None) if isinstance(module, types.ModuleType) else None
        for value in list(namespace.values()) if isinstance(namespace, dict) else ():
            # exact type checks only: no attribute of an arbitrary object is read (proxies raise)
            members = list(vars(value).values()) if type(value) is type else ()
            for function in (value, *members):
                if type(function) in (staticmethod, classmethod):
                    function = function.__func__
                if type(function) is types.FunctionType:
                    filenames.add(function.__code__.co_filename)
    for filename in filenames - cache.keys():
        try:
            cache[filename] = should_trace(filename, None)
        except Exception:
            pass  # decided on first use in the program process, as coverage.py does


def analyse(source, path):
    """Statements and possible branch arcs of the solution, by coverage.py's own parser (harness side),
    its multi-line map: {line: the first line of its statement} for every line inside a statement
    that spans several (the tracer reports the line a bytecode is on, the parser a statement's first;
    a branch into a wrapped `return (...)` would otherwise never count as taken), and its fixes of the
    jumps that leave a `with` block ({traced arc: the arc it stands for, or None}: since 3.10 the
    tracer sees a block's exit pass through the `with` line again; coverage.py's report rewrites those
    arcs, and without it a branch out of a `with` block never counted as taken)."""
    import coverage.parser
    from coverage.parser import PythonParser

    parser = PythonParser(text=source, filename=path)
    tokens = getattr(coverage.parser, "generate_tokens", None)
    if _C_TOKENS is not None and tokens is not None:
        coverage.parser.generate_tokens = _parser_tokens  # the same lines, ~3x faster (see there)
    try:
        parser.parse_source()
    finally:
        if tokens is not None:
            coverage.parser.generate_tokens = tokens
    branch_lines = {line for line, exits in parser.exit_counts().items() if exits > 1}
    multiline = {}
    for line in range(1, source.count("\n") + 2):
        first = parser.first_line(line)
        if first != line:
            multiline[line] = first
    fixers = dict(getattr(parser, "_with_jump_fixers", None) or {})
    possible = {arc for arc in parser.arcs() if arc[0] in branch_lines}
    return set(parser.statements), possible, multiline, fixers


def _parser_tokens(text):
    """The tokens coverage.py's parser reads (its multi-line map and its scan of each statement's
    first line), from 3.11's C tokenizer instead of the tokenize module, pure Python there and two
    thirds of an analysis. The C tokenizer leaves out comments and blank lines, which the parser
    passes over; layout tokens get tokenize's empty text (a statement's NEWLINE can carry its line's
    comment there) and operators tokenize's OP type. Only the lines matter to the parser."""
    for text_of, kind, line, end_line, column, end_column, line_text in _C_TOKENS(text):
        if kind in _LAYOUT_TOKENS:
            text_of = ""
        elif kind not in _WORD_TOKENS:
            kind = token.OP
        yield tokenize.TokenInfo(kind, text_of, (line, column), (end_line, end_column), line_text)


def statement_arc(arc, multiline, fixers=None):
    """An arc of raw line numbers as the parser numbers it (exits are negative), or None for a traced
    arc that stands for nothing (the `with` line's own jump out, see `analyse`)."""
    if fixers:
        arc = fixers.get(tuple(arc), tuple(arc))
        if arc is None:
            return None
    return tuple(-multiline.get(-end, -end) if end < 0 else multiline.get(end, end) for end in arc)


def warm_parser():
    """The parser imports and caches lazily: pay for that once in the worker, not in every harness."""
    sample = "import os\n\ndef f(x):\n    if x:\n        return 1\n    return [y for y in x]\n"
    analyse(sample, "/nonexistent/warm.py")


def report(executed_arcs, statements, possible, multiline=None, fixers=None):
    executed = set()
    for arc in executed_arcs:
        if isinstance(arc, (tuple, list)) and len(arc) == 2 and all(type(x) is int for x in arc):
            translated = statement_arc(arc, multiline or {}, fixers)
            if translated is not None:
                executed.add(translated)
    executed_lines = {line for arc in executed for line in arc if line > 0} & statements
    return {
        "executed_lines": sorted(executed_lines),
        "missing_lines": sorted(statements - executed_lines),
        "executed_branches": sorted(possible & executed),
        "missing_branches": sorted(possible - executed),
    }
