"""The worker's start: `python -I -S -B boot.py CONFIG`.

First it forks the zygote (zygote.prefork), before the worker's own modules are loaded: every program
process is a fork of the zygote, and each page the zygote holds is copied into a program's page
tables at its fork and torn down at its exit, so the zygote holds only what it loads itself. Then
it imports the worker as a module, from the bytecode compiled next to it, and serves. Run as a
script, worker.py itself was compiled from source at every start (~17 ms), and the compiler's ~2.5 MB
of heap stayed in the worker. This file is kept too small for its own compile to matter."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zygote  # after the path above

forked_zygote = zygote.prefork()

import worker  # noqa: E402 - after the fork: the zygote holds none of it

worker.main(sys.argv[1], forked_zygote)
