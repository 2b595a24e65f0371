"""Which third-party packages each sandboxed process may import — one list for every backend.

The program process imports the standard library and PROGRAM_PACKAGES (coverage.py, whose tracer
the coverage pass runs inside it); nothing else is on its path. The harness additionally imports
HARNESS_PACKAGES (pytest and its dependencies). These packages are mounted read-only (local
backend) or linked from the image's own Debian packages (docker backend) into two site directories;
none of them holds task data or answers. The program can read the harness's packages (they are
visible, like the standard library) but they are not on its path.

`python sitedirs.py ROOT` (run when the docker image is built) links the image's installed packages
into ROOT/harness and ROOT/program.
"""

import importlib.util
import os
import sys

PROGRAM_PACKAGES = ("coverage",)
HARNESS_PACKAGES = (
    "pytest",
    "_pytest",
    "pluggy",
    "pygments",
    "iniconfig",
    "packaging",
    "py",
    "attr",
    "exceptiongroup",
    "tomli",
    "coverage",
)


def locate(name):
    """The file or directory a top-level package or module is loaded from, or None."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        locations = list(spec.submodule_search_locations)
        return os.path.realpath(locations[0]) if locations else None
    origin = spec.origin
    if not origin or origin in ("built-in", "frozen") or not os.path.exists(origin):
        return None
    return os.path.realpath(origin)


def site_entries(names):
    """{entry name in the site directory: real path} for the packages of `names` found here."""
    entries = {}
    for name in names:
        path = locate(name)
        if path is None:
            continue
        if "site-packages" not in path and "dist-packages" not in path:
            continue  # a stdlib module of the same name: already importable
        entries[os.path.basename(path)] = path
    return entries


def link_site_dirs(root):
    for kind, names in (("harness", HARNESS_PACKAGES), ("program", PROGRAM_PACKAGES)):
        directory = os.path.join(root, kind)
        os.makedirs(directory, exist_ok=True)
        for entry, path in site_entries(names).items():
            link = os.path.join(directory, entry)
            if not os.path.lexists(link):
                os.symlink(path, link)


if __name__ == "__main__":
    link_site_dirs(sys.argv[1])
