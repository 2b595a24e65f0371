"""Ranking signals on small in-memory repositories, parsed with real tree-sitter."""

from __future__ import annotations

from codegym.context import ContextEngine
from codegym.context.graph import RepoGraph
from codegym.context.rank import RankWeights, locate_hole, rank
from codegym.context.render import MAX_NAME_CHARS, render_item
from codegym.context.repo import RepoFiles

NODES = '''"""Node classes."""


class Node:
    def __init__(self, *children): ...


class Const(Node): ...


class List(Node): ...


class Tuple(Node): ...


class Pair(Node): ...


class Slice(Node): ...
'''


def ranked(
    files: dict[str, str], path: str, line: int, weights: RankWeights | None = None
) -> dict[str, float]:
    """`path::qualname` -> score for the hole at `line` of `path`."""
    repo = RepoFiles({p: text.encode() for p, text in files.items()}, "pkg")
    graph: RepoGraph = ContextEngine().graph(repo)
    hole = locate_hole(graph, path, line)
    out = {}
    for sym, score in rank(graph, hole, weights):
        d = graph.definition(sym)
        assert d is not None
        out[f"{sym.path}::{d.qualname}"] = score
    return out


def hole_line(text: str) -> int:
    """The line after the last line of `text` (where the blanked body would start)."""
    return text.count("\n") + 1


def test_module_attribute_chain_counts_like_a_from_import() -> None:
    # `nodes.Const` used elsewhere in the file is as strong a hint as `from .nodes import Const` used there
    via_module = '''from . import nodes


def build_const(value):
    return nodes.Const(value)


def build_other(value):
    """Build another node."""
'''
    via_from = via_module.replace("from . import nodes", "from .nodes import Const").replace(
        "nodes.Const", "Const"
    )
    chain = ranked({"nodes.py": NODES, "use.py": via_module}, "use.py", hole_line(via_module))
    plain = ranked({"nodes.py": NODES, "use.py": via_from}, "use.py", hole_line(via_from))
    assert chain["nodes.py::Const"] >= 0.9 * plain["nodes.py::Const"]
    # and it stands out from the module's other members, which only the module import suggests
    others = [chain[f"nodes.py::{name}"] for name in ("List", "Tuple", "Pair", "Slice")]
    assert chain["nodes.py::Const"] > 2 * max(others)
    without = ranked(
        {"nodes.py": NODES, "use.py": via_module},
        "use.py",
        hole_line(via_module),
        RankWeights(used_import=0.0),
    )
    assert without["nodes.py::Const"] < chain["nodes.py::Const"]


def test_module_constants_reexported_by_a_package_are_candidates() -> None:
    # `from . import util` where util/__init__.py re-exports a constant and a function: the hole (the only
    # user of `util`) may use either as `util.NAME`; a plain module's own imports are not its interface
    files = {
        "util/__init__.py": "from .limits import MAX_RETRIES, backoff\n",
        "util/limits.py": "import math\n\nMAX_RETRIES = 3\n\n\ndef backoff(n):\n    return math.exp(n)\n",
        "helpers.py": "from .util.limits import MAX_RETRIES\n\n\ndef helper():\n    return MAX_RETRIES\n",
    }
    client = '''from . import util
from . import helpers


def run():
    return helpers.helper()


def retry(call):
    """Call with retries."""
'''
    scores = ranked({**files, "client.py": client}, "client.py", hole_line(client))
    assert "util/limits.py::MAX_RETRIES" in scores
    assert "util/limits.py::backoff" in scores
    # `helpers` imports MAX_RETRIES for itself: that does not make it a member of `helpers`
    assert scores["util/limits.py::MAX_RETRIES"] > scores.get("helpers.py::MAX_RETRIES", 0.0)


def test_a_name_every_function_uses_is_weighted_down() -> None:
    # `Common` is used by every function of the file, `Local` only by the hole's neighbour: the file
    # signal of `Common` is cut by the share of functions using it, `Local`'s is left alone
    lib = "class Common: ...\n\n\nclass Local: ...\n"
    funcs = "\n\n".join(f"def f{i}():\n    return Common()" for i in range(10))
    mod = f'''from .lib import Common, Local


{funcs}


def neighbour():
    return Local(), Local(), Local()


def hole():
    """Do it."""
'''
    files = {"lib.py": lib, "mod.py": mod}
    scores = ranked(files, "mod.py", hole_line(mod))
    flat = ranked(files, "mod.py", hole_line(mod), RankWeights(spread=0.0))
    assert scores["lib.py::Common"] < flat["lib.py::Common"] - 0.5
    assert scores["lib.py::Local"] == flat["lib.py::Local"]


CONTROL = """class Control:
    def __init__(self, *codes): ...

    @classmethod
    def clear(cls): ...

    @classmethod
    def home(cls): ...

    def render(self): ...

    def _segments(self): ...
"""


def test_no_name_match_into_unrelated_classes() -> None:
    # `Console.clear` may delegate to `Control.clear` (a classmethod of a class the file imports); the
    # `clear` methods of classes nothing in the file reaches are not candidates by name alone
    unrelated = "class Buffer:\n    def clear(self): ...\n\n\nclass Screen:\n    def clear(self): ...\n"
    console = '''from .control import Control


class Console:
    def bell(self):
        return Control()

    def clear(self, home=True):
        """Clear the screen."""
'''
    files = {"control.py": CONTROL, "other.py": unrelated, "console.py": console}
    scores = ranked(files, "console.py", hole_line(console))
    assert "other.py::Buffer.clear" not in scores
    assert "other.py::Screen.clear" not in scores
    assert scores["control.py::Control.clear"] > scores["control.py::Control.render"]
    # reached as `Control.x`: classmethods; an instance method needs an object, a `_name` is internal
    assert scores["control.py::Control.home"] > scores["control.py::Control.render"]
    assert scores.get("control.py::Control._segments", 0.0) < scores["control.py::Control.render"]


def test_instance_methods_of_a_base_class_stay_reachable() -> None:
    # through `self`, a subclass reaches its base's instance methods and `_internals`
    base = "class Base:\n    def render(self): ...\n\n    def _prepare(self): ...\n"
    child = '''from .base import Base


class Child(Base):
    def render(self):
        """Prepare, then render."""
'''
    scores = ranked({"base.py": base, "child.py": child}, "child.py", hole_line(child))
    plain = ranked(
        {"base.py": base, "child.py": child},
        "child.py",
        hole_line(child),
        RankWeights(private_member=1.0),
    )
    assert scores["base.py::Base._prepare"] == plain["base.py::Base._prepare"]
    assert scores["base.py::Base.render"] > 0


def test_name_tier_stub_keeps_required_parameters_within_its_width() -> None:
    text = (
        "def extract(cls, exc_type, exc_value, traceback, *, show_locals=False, max_length=10,"
        " max_string=80, max_depth=None, hide_dunder=True, hide_sunder=False): ...\n"
    )
    repo = RepoFiles({"tb.py": text.encode()}, "pkg")
    graph = ContextEngine().graph(repo)
    sym = next(s for s in [graph.export("tb.py", "extract")] if s is not None)
    stub = render_item(graph, sym, "name")
    assert stub.startswith("def extract(cls, exc_type, exc_value, traceback")
    assert "more parameters" in stub
    assert len(stub.split("  #")[0]) <= max(
        MAX_NAME_CHARS, len("def extract(cls, exc_type, exc_value, traceback): ...")
    )


def test_name_match_is_not_squashed_by_the_hole_matching_its_own_name() -> None:
    # the hole function matches its own name best; it is never a candidate, so it must not be the
    # maximum the other name matches are scaled by (before, `rewrite_traceback_stack` got a fifth of
    # the weight here); and an inflected word matches its stem ("rewritten" -> `rewrite_frames`)
    debug = "def rewrite_traceback_stack(source=None): ...\n\n\ndef rewrite_frames(frames): ...\n"
    env = '''class Environment:
    def handle_exception(self, source=None):
        """Raise the exception with a rewritten traceback."""
'''
    scores = ranked({"debug.py": debug, "env.py": env}, "env.py", hole_line(env))
    lexical = RankWeights().lexical
    assert scores["debug.py::rewrite_traceback_stack"] >= 0.9 * lexical
    assert scores.get("debug.py::rewrite_frames", 0.0) > 0.0
    # `def` in the header is syntax, not a word to match
    defs = "def macro_def(): ...\n"
    no_fallback = RankWeights(fallback_until=0)  # else every definition of so small a repo is ranked
    scores = ranked(
        {"debug.py": debug, "defs.py": defs, "env.py": env}, "env.py", hole_line(env), no_fallback
    )
    assert "defs.py::macro_def" not in scores


def test_an_import_used_only_in_nested_string_annotations_is_used() -> None:
    # `if TYPE_CHECKING: from .loaders import Loader` used as `t.Optional["Loader"]`: the file uses it,
    # so the blanked body is not where it was needed (before, nested quoted annotations were not
    # references and it scored as an import only the body used)
    loaders = "class Loader: ...\n\n\nclass Cache: ...\n"
    env = '''import typing as t

from .loaders import Cache

if t.TYPE_CHECKING:
    from .loaders import Loader


def make(loader: t.Optional["Loader"] = None, other: t.Dict[str, t.List["Loader"]] = None):
    return loader


def load(name):
    """Load a template by name."""
'''
    scores = ranked({"loaders.py": loaders, "env.py": env}, "env.py", hole_line(env))
    assert scores["loaders.py::Cache"] > scores["loaders.py::Loader"]


def test_members_taking_what_the_hole_has_rank_first() -> None:
    # among many classmethods of a class the file uses, the one whose parameters are named like the
    # hole's parameters and its class's constructor parameters (`x`, `y`) is the likely call
    control = """class Control:
    @classmethod
    def move_to(cls, x, y): ...

    @classmethod
    def bell(cls): ...

    @classmethod
    def show_cursor(cls, show): ...

    @classmethod
    def title(cls, title): ...
"""
    console = """from .control import Control


class Console:
    def beep(self):
        return Control.bell()


class ScreenUpdate:
    def __init__(self, lines, x, y):
        self.lines = lines

    def render(self, console, options):
"""
    files = {"control.py": control, "console.py": console}
    scores = ranked(files, "console.py", hole_line(console))
    for other in ("show_cursor", "title"):
        assert scores["control.py::Control.move_to"] > scores[f"control.py::Control.{other}"]
    plain = ranked(files, "console.py", hole_line(console), RankWeights(member_params=0.0))
    assert plain["control.py::Control.move_to"] < scores["control.py::Control.move_to"]


def test_parameter_names_read_from_headers() -> None:
    from codegym.context.graph import Sym
    from codegym.context.rank import _parameters

    text = """@deco("a, b")
def f(self, a: Dict[str, int] = {"x": 1}, *args, b="p, q", c: "T" = (1, 2), **kw) -> Tuple[int, str]:
    pass


def g(cls, /, x, y, *, z): ...
"""
    graph = ContextEngine().graph(RepoFiles({"m.py": text.encode()}, "pkg"))
    names = {graph.definition(Sym("m.py", i)).name: _parameters(graph, Sym("m.py", i)) for i in (0, 1)}
    assert names == {"f": ("a", "b", "c"), "g": ("x", "y", "z")}


def test_a_definition_named_as_the_hole_is_a_strong_match() -> None:
    # `Console.rule` draws a `Rule`: a name equal to the hole's, word for word, is the best a name can
    # say, however many other words the docstring brings; a protocol dunder's name says nothing
    rule = "class Rule:\n    def __init__(self, title=''): ...\n\n\nclass Ruler: ...\n"
    console = '''class Console:
    def rule(self, title="", characters="-", style="rule.line", align="center"):
        """Draw a line with optional centered title, in a given style and alignment, over the width."""
'''
    files = {"rule.py": rule, "console.py": console}
    scores = ranked(files, "console.py", hole_line(console))
    plain = ranked(files, "console.py", hole_line(console), RankWeights(namesake=0.0))
    assert scores["rule.py::Rule"] >= plain["rule.py::Rule"] + RankWeights().namesake
    assert scores.get("rule.py::Ruler", 0.0) == plain.get("rule.py::Ruler", 0.0)
    dunder = 'class Thing:\n    def __rule__(self):\n        """Rule."""\n'
    files = {"rule.py": rule, "thing.py": dunder}
    scores = ranked(files, "thing.py", hole_line(dunder))
    plain = ranked(files, "thing.py", hole_line(dunder), RankWeights(namesake=0.0))
    assert scores.get("rule.py::Rule") == plain.get("rule.py::Rule")


def test_a_name_matching_several_query_words_beats_a_one_word_match() -> None:
    # "rewritten exceptions ... traceback": `rewrite_traceback_stack` matches two of the docstring's
    # words; a one-word name matching a parameter (`get_source` for `source`) must not outrank it
    debug = "def rewrite_traceback_stack(source=None): ...\n"
    loaders = "def get_source(name): ...\n\n\ndef source_lines(name): ...\n"
    env = '''class Environment:
    def handle_exception(self, source=None):
        """Raise rewritten exceptions or return a rendered traceback."""
'''
    files = {"debug.py": debug, "loaders.py": loaders, "env.py": env}
    scores = ranked(files, "env.py", hole_line(env))
    assert scores["debug.py::rewrite_traceback_stack"] > scores["loaders.py::get_source"]


def test_references_of_a_function_named_like_the_hole_count_more() -> None:
    # `export_svg` is written like `export_html` (same file, same prefix): what the twin uses is what
    # the hole will use, more than what an equally distant unrelated function uses; a word every
    # function of the file has (`parse_` in a parser) makes no twins
    helpers = "def filter_control(x): ...\n\n\ndef measure_width(x): ...\n"
    console = '''from .helpers import filter_control, measure_width


def export_html(buffer):
    return filter_control(buffer)


def size_of(buffer):
    return measure_width(buffer)


def export_svg(buffer):
    """Render the buffer."""
'''
    scores = ranked({"helpers.py": helpers, "console.py": console}, "console.py", hole_line(console))
    # `size_of` is nearer the hole, so without the twin signal its reference would weigh more
    assert scores["helpers.py::filter_control"] > scores["helpers.py::measure_width"]
    plain = ranked(
        {"helpers.py": helpers, "console.py": console},
        "console.py",
        hole_line(console),
        RankWeights(twin=0.0),
    )
    assert plain["helpers.py::filter_control"] < plain["helpers.py::measure_width"]
    every = console.replace("size_of", "export_size")  # `export` is now in every function's name
    scores = ranked({"helpers.py": helpers, "console.py": every}, "console.py", hole_line(every))
    assert scores["helpers.py::filter_control"] < scores["helpers.py::measure_width"]


def test_a_small_repository_fills_the_ranking_after_the_signals() -> None:
    # nothing outside the blanked body names `HTTP2Connection` (it imported it itself): once the
    # signals run out, the rest of the repository follows (modules the file imports from first, then
    # its own directory), after every scored candidate, so the budget is not left unused
    files = {
        "pkg/util.py": "def helper(): ...\n\n\ndef other_util(): ...\n",
        "pkg/http2/connection.py": "class HTTP2Connection: ...\n",
        "pkg/far.py": "def unrelated(): ...\n\n\ndef _private(): ...\n",
        "pkg/http2/__init__.py": '''def extract():
    from ..util import helper

    return helper()


def inject():
    """Install it."""
''',
    }
    hole = files["pkg/http2/__init__.py"]
    scores = ranked(files, "pkg/http2/__init__.py", hole_line(hole))
    scored = scores["pkg/util.py::helper"]  # used by the other function: a real signal
    fallback = {k: v for k, v in scores.items() if k != "pkg/util.py::helper"}
    assert set(fallback) >= {
        "pkg/util.py::other_util",
        "pkg/http2/connection.py::HTTP2Connection",
        "pkg/far.py::unrelated",
        "pkg/far.py::_private",
    }
    assert max(fallback.values()) < scored
    assert fallback["pkg/util.py::other_util"] > fallback["pkg/far.py::unrelated"]
    assert fallback["pkg/http2/connection.py::HTTP2Connection"] > fallback["pkg/far.py::unrelated"]
    assert fallback["pkg/far.py::unrelated"] > fallback["pkg/far.py::_private"]
    none = ranked(files, "pkg/http2/__init__.py", hole_line(hole), RankWeights(fallback_until=0))
    assert set(none) == {"pkg/util.py::helper"}
    # and the engine renders them when the budget has room
    repo = RepoFiles({p: t.encode() for p, t in files.items()}, "pkg")
    ctx = ContextEngine().query(repo, "pkg/http2/__init__.py", hole_line(hole), 512)
    assert "HTTP2Connection" in {s.name for s in ctx.symbols}
