"""The worker's start: `python -I -S -B boot.py CONFIG` imports the worker as a module, from the
bytecode compiled next to it, and serves. Run as a script, worker.py itself was compiled from source
at every start (~17 ms), and the compiler's ~2.5 MB of heap stayed in the worker, to be inherited by
the zygote and copied into every program process's page tables at each fork and torn down at each
exit. This file is kept too small for its own compile to matter."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import worker  # after the path above

worker.main(sys.argv[1])
