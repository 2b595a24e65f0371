"""Generation backends: the OpenAI-compatible HTTP client against a local scripted server (retries
with backoff, timeouts, concurrency limit, per-sample failures that are reported and not fatal,
setup errors that are), vLLM absent or faked, and the shared helpers."""

from __future__ import annotations

import sys
import types
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from codegym.rollout.generation import (
    GenerationError,
    GenerationSetupError,
    OpenAIGenerator,
    OpenAISettings,
    SamplingParams,
    VLLMSettings,
    apply_stop,
    create_generator,
    derive_seed,
)
from codegym.rollout.prompts import Prompt
from tests.eval.helpers import ScriptedAPI, serve_api


@pytest.fixture()
def api() -> Iterator[tuple[ScriptedAPI, str]]:
    script = ScriptedAPI()
    with serve_api(script) as base:
        yield script, base


def completion_prompt(key: str) -> Prompt:
    return Prompt(task_id=f"t/{key}", style="completion", text=key, completion_format="append")


def chat_prompt(key: str) -> Prompt:
    return Prompt(
        task_id=f"t/{key}",
        style="chat",
        messages=({"role": "system", "content": "sys"}, {"role": "user", "content": key}),
    )


def client(base: str, **overrides: Any) -> OpenAIGenerator:
    settings = {
        "api_base": base,
        "model": "served-model",
        "concurrency": 4,
        "max_retries": 3,
        "timeout_s": 5.0,
        "backoff_initial_s": 0.01,
        "backoff_max_s": 0.05,
        **overrides,
    }
    return OpenAIGenerator(OpenAISettings(**settings))


PARAMS = SamplingParams(temperature=0.8, top_p=0.9, max_new_tokens=32, seed=7, stop=("\nif __name__",))


def test_completion_and_chat_requests_have_the_openai_shape(api) -> None:
    script, base = api
    generator = client(base, api_key="sk-test")
    results = generator.complete([completion_prompt("alpha"), chat_prompt("beta")], 2, PARAMS)
    assert [[c.ok for c in row] for row in results] == [[True, True], [True, True]]
    assert (
        results[0][0].text.startswith("answer to alpha") and "__main__" not in results[0][0].text
    )  # stop applied
    assert results[0][0].text != results[0][1].text  # each sample has its own seed
    paths = Counter(path for path, _, _ in script.bodies)
    assert paths == {"/v1/completions": 2, "/v1/chat/completions": 2}
    completion_body = next(b for p, b, _ in script.bodies if p == "/v1/completions")
    assert completion_body["model"] == "served-model" and completion_body["prompt"] == "alpha"
    assert completion_body["max_tokens"] == 32 and completion_body["temperature"] == 0.8
    assert (
        completion_body["top_p"] == 0.9
        and completion_body["n"] == 1
        and completion_body["stop"] == ["\nif __name__"]
    )
    chat_body = next(b for p, b, _ in script.bodies if p == "/v1/chat/completions")
    assert chat_body["messages"][-1] == {"role": "user", "content": "beta"} and "prompt" not in chat_body
    assert all(h.get("Authorization") == "Bearer sk-test" for _, _, h in script.bodies)


def test_no_key_sends_no_authorization_and_stops_are_capped_at_four(api) -> None:
    script, base = api
    params = SamplingParams(stop=("a1", "a2", "a3", "a4", "\nif __name__"))
    result = client(base).complete([completion_prompt("gamma")], 1, params)[0][0]
    assert "__main__" not in result.text  # the fifth stop is applied after the fact
    _, body, headers = script.bodies[0]
    assert "Authorization" not in headers and body["stop"] == ["a1", "a2", "a3", "a4"] and "top_p" not in body


def test_rate_limits_overload_and_timeouts_are_retried(api) -> None:
    script, base = api
    generator = client(base, timeout_s=0.4)
    prompts = [completion_prompt("flaky429"), completion_prompt("flaky503"), completion_prompt("slow")]
    results = generator.complete(prompts, 1, PARAMS)
    assert all(row[0].ok for row in results), results
    assert (
        script.attempts["flaky429"] == 3 and script.attempts["flaky503"] == 2 and script.attempts["slow"] == 2
    )
    assert generator.stats.retries == 4 and generator.stats.failed == 0


def test_a_sample_that_keeps_failing_is_reported_not_fatal(api) -> None:
    script, base = api
    generator = client(base, max_retries=2)
    results = generator.complete(
        [completion_prompt("dead"), completion_prompt("fine"), completion_prompt("bad400")], 1, PARAMS
    )
    dead, fine, bad = (row[0] for row in results)
    assert fine.ok and fine.text.startswith("answer to fine")
    assert (
        not dead.ok
        and dead.text == ""
        and "failed after 3 attempts" in dead.error
        and "HTTP 500" in dead.error
    )
    assert script.attempts["dead"] == 3  # first try + 2 retries
    assert not bad.ok and "HTTP 400" in bad.error and "prompt is too long" in bad.error
    assert script.attempts["bad400"] == 1  # a client error is not retried
    with pytest.raises(GenerationError, match="2 sample"):
        generator.generate([completion_prompt("dead"), completion_prompt("bad400")], 1, PARAMS)


def test_concurrency_is_bounded(api) -> None:
    script, base = api
    script.delay_s = 0.05
    generator = client(base, concurrency=3)
    results = generator.complete([completion_prompt(f"p{i}") for i in range(6)], 2, PARAMS)
    assert sum(len(row) for row in results) == 12 and all(c.ok for row in results for c in row)
    assert 1 < script.max_in_flight <= 3


def test_rejected_key_is_a_setup_error(api) -> None:
    _, base = api
    with pytest.raises(GenerationSetupError, match=r"HTTP 401.*rejected the API key"):
        client(base).complete([completion_prompt("auth"), completion_prompt("x")], 1, PARAMS)


def test_unreachable_endpoint_fails_each_sample_after_retries() -> None:
    generator = client("http://127.0.0.1:9/v1", max_retries=1)  # discard port: connection refused
    result = generator.complete([chat_prompt("x")], 2, PARAMS)
    assert all(not c.ok and "failed after 2 attempts" in c.error for c in result[0])


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAISettings(api_base="localhost:8000", model="m")
    with pytest.raises(ValueError, match="concurrency"):
        OpenAISettings(api_base="http://x/v1", model="m", concurrency=0)
    assert "sk-secret" not in repr(OpenAISettings(api_base="http://x/v1", model="m", api_key="sk-secret"))


def test_vllm_missing_is_a_clear_setup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` raises ImportError
    with pytest.raises(GenerationSetupError, match=r"vllm package.*engine=.transformers."):
        create_generator("vllm", VLLMSettings(model="some/model"))


def test_vllm_plumbing_with_a_fake_module(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, Any] = {}

    class FakeSamplingParams:
        def __init__(self, **kwargs: Any) -> None:
            calls["sampling"] = kwargs
            self.n = kwargs["n"]

    def outputs(keys: list[str], sampling: FakeSamplingParams) -> list[Any]:
        return [
            types.SimpleNamespace(
                outputs=[
                    types.SimpleNamespace(text=f"{key}#{j}\nprint(1)", finish_reason="stop")
                    for j in range(sampling.n)
                ]
            )
            for key in keys
        ]

    class FakeLLM:
        def __init__(self, **kwargs: Any) -> None:
            calls["llm"] = kwargs

        def get_tokenizer(self) -> Any:
            return types.SimpleNamespace(chat_template="{{x}}")

        def chat(self, conversations, sampling, use_tqdm=False):
            return outputs([c[-1]["content"] for c in conversations], sampling)

        def generate(self, texts, sampling, use_tqdm=False):
            return outputs(list(texts), sampling)

    monkeypatch.setitem(
        sys.modules, "vllm", types.SimpleNamespace(LLM=FakeLLM, SamplingParams=FakeSamplingParams)
    )
    generator = create_generator("vllm", VLLMSettings(model="m", dtype="bfloat16"), seed=3)
    assert (
        generator.default_style == "chat"
        and calls["llm"]["seed"] == 3
        and calls["llm"]["dtype"] == "bfloat16"
    )
    params = SamplingParams(temperature=0.5, max_new_tokens=9, stop=("\nprint(",))
    result = generator.complete([chat_prompt("a"), completion_prompt("b"), chat_prompt("c")], 2, params)
    assert [[c.text for c in row] for row in result] == [["a#0", "a#1"], ["b#0", "b#1"], ["c#0", "c#1"]]
    assert calls["sampling"] == {
        "n": 2,
        "temperature": 0.5,
        "top_p": 0.95,
        "max_tokens": 9,
        "seed": 0,
        "stop": ["\nprint("],
    }


def test_helpers() -> None:
    assert apply_stop("abc\ndef x\nif __name__", ["\nif __name__", "\ndef "]) == "abc"
    assert apply_stop("abc", []) == "abc"
    assert derive_seed(1, ["a"], (0, 1)) == derive_seed(1, ["a"], (0, 1)) != derive_seed(1, ["a"], (2, 3))
    assert 0 <= derive_seed(5, "x") < 2**31
    with pytest.raises(ValueError, match="top_p"):
        SamplingParams(top_p=0)
    with pytest.raises(ValueError, match="max_new_tokens"):
        SamplingParams(max_new_tokens=0)
    with pytest.raises(ValueError, match="unknown generation engine"):
        create_generator("tgi", None)
