"""codegym.sandbox: isolated execution of untrusted code against tests.

ExecRequest in, ExecResult (with an ExecStatus) out; backends: `local` (namespaces, embedded) and
`docker` (warm container pool). Knows nothing about rewards or models.
"""

from codegym.sandbox.backend import BACKENDS, SandboxBackend, SandboxUnavailable, create_backend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, TestOutcome, TestResult

__all__ = [
    "BACKENDS",
    "ExecRequest",
    "ExecResult",
    "ExecStatus",
    "SandboxBackend",
    "SandboxUnavailable",
    "TestOutcome",
    "TestResult",
    "create_backend",
    "request_for_task",
]
