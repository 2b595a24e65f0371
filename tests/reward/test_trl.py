"""TRL reward functions: signature, one judging per batch, None for sandbox errors, and a real
GRPOTrainer step on a tiny locally built model."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

from codegym.reward.config import COMPONENTS, RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.reward.trl_rewards import TrlRewards
from codegym.tasks.humaneval import load_humaneval_pack

PACK = load_humaneval_pack()
IDS = ["HumanEval/0", "HumanEval/2", "HumanEval/2", "HumanEval/4"]


def completions() -> list[str]:
    right = [PACK.get(i).reference_solution[len(PACK.get(i).prefix) :] for i in IDS]
    return [
        right[0],
        "    return number\n",
        f"```python\n{PACK.get('HumanEval/2').reference_solution}```",
        "oops(",
    ]


def test_functions_have_trl_signature_and_names(reward_backend) -> None:
    rewards = TrlRewards(RewardJudge(reward_backend, RewardConfig()), PACK)
    functions = rewards.functions("joint")
    assert [f.__name__ for f in functions] == ["joint", *COMPONENTS, "hacks"]
    assert rewards.weights("joint") == [1.0, 0, 0, 0, 0, 0, 0]
    for function in functions:
        assert list(inspect.signature(function).parameters)[:2] == ["prompts", "completions"]


def test_one_judging_per_batch_and_values(reward_backend) -> None:
    # the reference's joint is exactly 1 only with full efficiency against itself: a 10 ms floor keeps
    # that from depending on this suite's load (see test_components' efficiency test)
    judge = RewardJudge(reward_backend, RewardConfig(timing_floor_ms=10.0))
    rewards = TrlRewards(judge, PACK)
    metrics: dict[str, float] = {}
    kwargs = {"task_id": IDS, "log_metric": metrics.__setitem__}
    values = {
        f.__name__: f(prompts=[""] * 4, completions=completions(), **kwargs)
        for f in rewards.functions("joint")
    }
    assert judge.judged == 4  # seven functions, one judging
    assert values["tests"][0] == 1.0 and values["tests"][1] == 0.0 and values["tests"][2] == 1.0
    assert values["joint"][3] <= values["joint"][1] < values["joint"][0] == pytest.approx(1.0)
    assert values["hacks"] == [0.0, 0.0, 0.0, 0.0]
    assert metrics["codegym/pass_rate"] == 0.5 and metrics["codegym/hack_rate"] == 0.0


def test_copies_of_a_program_in_a_batch_share_one_judgment(reward_backend) -> None:
    """A GRPO group often holds one completion several times: its copies get one judgment, so
    timing noise never gives them different rewards (a slowed program's efficiency sits across the
    scale, where a noisy time crosses a 0.1 step now and then). An evaluation judges each sample."""
    judge = RewardJudge(reward_backend, RewardConfig())
    rewards = TrlRewards(judge, PACK)
    task = PACK.get("HumanEval/2")
    slowed = "    for _ in range(100_000):\n        pass\n" + task.reference_solution[len(task.prefix) :]
    fenced = f"```python\n{task.prefix}{slowed}```"  # another completion, the same program
    batch = [slowed, fenced, task.reference_solution[len(task.prefix) :], slowed]
    scored = rewards.scored(batch, task_id=["HumanEval/2"] * 4)
    assert judge.judged == 4 and all(s.result is not None for s in scored)
    assert scored[0].result is scored[1].result is scored[3].result  # one execution
    assert scored[0].breakdown == scored[1].breakdown == scored[3].breakdown
    assert scored[0].breakdown.components["efficiency"] < scored[2].breakdown.components["efficiency"]
    code = task.prefix + slowed
    apart = judge.score_many([(task, code, None), (task, code, None)])
    assert apart[0].result is not apart[1].result  # judged twice: independent draws


def test_components_layout_sums_to_the_joint_total(reward_backend) -> None:
    rewards = TrlRewards(RewardJudge(reward_backend, RewardConfig()), PACK)
    kwargs = {"task_id": IDS}
    joint = rewards.joint()(prompts=None, completions=completions(), **kwargs)
    parts = [f(prompts=None, completions=completions(), **kwargs) for f in rewards.functions("components")]
    weights = rewards.weights("components")
    for index, total in enumerate(joint):
        assert sum(w * p[index] for w, p in zip(weights, parts, strict=True)) == pytest.approx(total)


def test_sandbox_failure_gives_none_never_zero(broken_backend) -> None:
    rewards = TrlRewards(RewardJudge(broken_backend, RewardConfig()), PACK)
    for function in rewards.functions("joint"):
        assert function(prompts=None, completions=["    return 1\n"], task_id=["HumanEval/2"]) == [None]


def test_async_variants(reward_backend) -> None:
    judge = RewardJudge(reward_backend, RewardConfig())
    functions = TrlRewards(judge, PACK).async_functions("joint")
    assert all(inspect.iscoroutinefunction(f) for f in functions)

    async def run_all() -> list[list[float | None]]:
        calls = [f(prompts=None, completions=completions(), task_id=IDS) for f in functions]
        return list(await asyncio.gather(*calls))

    outputs = asyncio.run(run_all())
    assert judge.judged == 4 and len(outputs) == len(functions)


def test_missing_task_id_column_is_a_clear_error(reward_backend) -> None:
    rewards = TrlRewards(RewardJudge(reward_backend, RewardConfig()), PACK)
    with pytest.raises(ValueError, match="'task_id' column"):
        rewards.joint()(prompts=None, completions=["x"])


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from codegym.train.tiny import TinyModelSpec, build_tiny_model, task_corpus

    return build_tiny_model(
        tmp_path_factory.mktemp("tiny"), task_corpus([PACK]), TinyModelSpec(vocab_size=512)
    )


def test_real_grpo_step_logs_every_component(reward_backend, tiny_model: Path, tmp_path: Path) -> None:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    rewards = TrlRewards(RewardJudge(reward_backend, RewardConfig()), PACK)
    rows = [{"prompt": PACK.get(i).prompt, "task_id": i} for i in ("HumanEval/2", "HumanEval/4")]
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=12,
        max_steps=1,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        learning_rate=1e-3,
        save_strategy="no",
        reward_weights=rewards.weights("joint"),
        bf16=False,
    )
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=rewards.functions("joint"),
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=AutoTokenizer.from_pretrained(tiny_model),
    )
    trainer.train()
    logged = {k for entry in trainer.state.log_history for k in entry}
    for name in ("joint", *COMPONENTS, "hacks"):
        assert f"rewards/{name}/mean" in logged, sorted(logged)
    assert "codegym/hack_rate" in logged
    assert rewards.judge.judged >= 4 and trainer.state.global_step == 1
