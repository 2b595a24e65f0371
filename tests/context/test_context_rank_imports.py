"""Ranking signals read from what a file imports and names: re-exports, unused module imports,
classes the hole must use, qualified mentions. Small in-memory repositories, real tree-sitter."""

from __future__ import annotations

from test_context_rank import hole_line, ranked

from codegym.context.rank import RankWeights


def test_a_module_level_function_with_a_dunder_name_is_a_candidate() -> None:
    # `def __ne__(self, other)` at module level is assigned into generated classes by name; only
    # dunder-named assignments (`__version__`) say nothing a body uses
    make = '__version__ = "1.0"\n\n\ndef __ne__(self, other):\n    return not self == other\n'
    cmp = '''from ._make import __ne__


def cmp_using(eq=None):
    """Create a class with the comparison methods."""
'''
    scores = ranked({"_make.py": make, "_cmp.py": cmp}, "_cmp.py", hole_line(cmp))
    assert "_make.py::__ne__" in scores
    assert max(scores, key=scores.__getitem__) == "_make.py::__ne__"  # the unused import
    assert "_make.py::__version__" not in scores


def test_an_import_named_in_dunder_all_is_not_left_unused() -> None:
    # a package's `__init__.py` imports names to re-export them: those are used by `__all__`; the one
    # import it does not export is what the missing body uses
    version = "class VersionInfo:\n    def __init__(self, major, minor): ...\n"
    funcs = "def asdict(inst): ...\n\n\ndef astuple(inst): ...\n"
    init = '''from ._funcs import asdict, astuple
from ._version import VersionInfo

__all__ = ["asdict", "astuple"]


def make_getattr(mod_name):
    """Create the module's attribute hook."""
'''
    files = {"_funcs.py": funcs, "_version.py": version}
    scores = ranked({**files, "__init__.py": init}, "__init__.py", hole_line(init))
    assert scores["_version.py::VersionInfo"] > 2 * scores["_funcs.py::asdict"]
    # without `__all__` every import is equally unused
    plain = init.replace('__all__ = ["asdict", "astuple"]\n', "")
    flat = ranked({**files, "__init__.py": plain}, "__init__.py", hole_line(plain))
    assert flat["_funcs.py::asdict"] > 0.8 * flat["_version.py::VersionInfo"]


def test_an_unused_module_import_makes_each_of_a_small_modules_names_likely() -> None:
    # `from . import registry` used nowhere else in the file: the body uses one of its few public
    # names; a module with many names shares the same weight out thinner
    registry = "_registry = {}\n\n\ndef register(name, cls): ...\n\n\ndef get_class(name): ...\n"
    helpers = "".join(f"def helper_{k}(x): ...\n\n\n" for k in range(8))
    fields = '''from . import helpers, registry


def clean(value):
    return helpers.helper_0(value)


class Nested:
    def schema(self):
        """The nested object."""
'''
    files = {"registry.py": registry, "helpers.py": helpers, "fields.py": fields}
    scores = ranked(files, "fields.py", hole_line(fields))
    off = ranked(files, "fields.py", hole_line(fields), RankWeights(unused_import=0.0))
    share = RankWeights().unused_import / 2  # two public names: register, get_class
    assert abs(scores["registry.py::get_class"] - off["registry.py::get_class"] - share) < 1e-6
    assert scores["registry.py::get_class"] > max(scores[f"helpers.py::helper_{k}"] for k in range(1, 8))
    big = registry + "".join(f"def lookup_{k}(name): ...\n\n\n" for k in range(10))
    thinner = ranked({**files, "registry.py": big}, "fields.py", hole_line(fields))
    assert thinner["registry.py::get_class"] < scores["registry.py::get_class"] - share / 2


def test_class_level_methods_of_a_class_the_hole_must_use() -> None:
    # `VersionInfo` imported and otherwise unused: the body builds one, directly or through a
    # classmethod; an instance method needs an object the body does not have
    version = """class VersionInfo:
    def __init__(self, major, minor): ...

    @classmethod
    def from_string(cls, s): ...

    def as_tuple(self): ...
"""
    init = '''from ._version import VersionInfo


def version_hook(mod_name):
    """Create the module's attribute hook."""
'''
    files = {"_version.py": version, "__init__.py": init}
    scores = ranked(files, "__init__.py", hole_line(init))
    off = ranked(files, "__init__.py", hole_line(init), RankWeights(known_class_level=0.0))
    gain = RankWeights().known_class_level  # the only class-level method
    assert (
        abs(
            scores["_version.py::VersionInfo.from_string"]
            - off["_version.py::VersionInfo.from_string"]
            - gain
        )
        < 1e-6
    )
    assert scores["_version.py::VersionInfo.as_tuple"] == off["_version.py::VersionInfo.as_tuple"]
    assert scores["_version.py::VersionInfo.from_string"] > 2 * scores["_version.py::VersionInfo.as_tuple"]


def test_the_holes_own_name_qualified_in_its_docstring_is_a_mention() -> None:
    # "Defaults to `pkg.utils.get_value`" in `Field.get_value`: the qualifier says which `get_value`;
    # the hole's own name unqualified (its header has it) says nothing
    utils = "def get_value(obj, key, default=None): ...\n"
    other = "def get_value(obj, key): ...\n"
    fields = '''from . import other, utils


def first(obj):
    return utils.get_value(obj, 0) or other.get_value(obj, 0)


class Field:
    def get_value(self, obj, attr, accessor=None):
        """Return the value for `attr` of `obj`. Defaults to `pkg.utils.get_value`."""
'''
    files = {"utils.py": utils, "other.py": other, "fields.py": fields}
    scores = ranked(files, "fields.py", hole_line(fields))
    off = ranked(files, "fields.py", hole_line(fields), RankWeights(mention=0.0))
    assert abs(scores["utils.py::get_value"] - off["utils.py::get_value"] - RankWeights().mention) < 1e-6
    assert scores["other.py::get_value"] == off["other.py::get_value"]
    unqualified = fields.replace("`pkg.utils.get_value`", "`get_value`")
    plain = ranked({**files, "fields.py": unqualified}, "fields.py", hole_line(unqualified))
    assert plain["utils.py::get_value"] == plain["other.py::get_value"] == off["other.py::get_value"]
