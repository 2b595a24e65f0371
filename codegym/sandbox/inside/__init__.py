"""Code that runs *inside* the sandbox (the warm worker and the test runner).

Stdlib only, no imports from codegym: the same files run under the local backend (bubblewrap or
unshare) and inside Docker containers, with whatever Python the sandbox has (>= 3.10).
"""
