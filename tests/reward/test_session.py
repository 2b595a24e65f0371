"""`JudgeSession`: the one factory for sandbox backend + reward judge + result cache + yardstick
store, closed together (backend first, then the stores) however the `with` block ends."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from codegym.cli.common import cli_message
from codegym.reward.cache import CacheError, ResultCache
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.reward.session import JudgeSession, JudgingOptions
from codegym.sandbox.local import LocalBackend
from codegym.tasks.errors import UnknownNameError
from codegym.tasks.model import TaskPack


def _options(tmp_path: Path, **changes: object) -> JudgingOptions:
    base = {
        "backend": "local",
        "workers": 1,
        "reward": RewardConfig(),
        "cache": str(tmp_path / "cache.sqlite"),
        "yardsticks": str(tmp_path / "yardsticks.sqlite"),
    }
    return JudgingOptions(**{**base, **changes})  # type: ignore[arg-type]


def _assert_closed(store: ResultCache | None) -> None:
    assert store is not None
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        store.get("any key")


def _worker_pids(session: JudgeSession) -> list[int]:
    assert isinstance(session.backend, LocalBackend)
    return [worker.pid for worker in session.backend.pool.describe()]


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]


def test_a_session_judges_and_then_closes_backend_cache_and_yardsticks(
    tmp_path: Path, mini_pack: TaskPack
) -> None:
    task = mini_pack.get("double")
    with JudgeSession(_options(tmp_path)) as session:
        assert isinstance(session.judge, RewardJudge) and session.judge.backend is session.backend
        breakdown = session.judge.score(task, task.reference_solution)
        pids = _worker_pids(session)
    assert breakdown.status == "passed" and pids
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)  # the workers were stopped
    _assert_closed(session.cache)
    _assert_closed(session.yardsticks)
    # what was judged reached the files: the verdict in the cache, the reference's timing beside it
    assert _rows(tmp_path / "cache.sqlite") >= 1 and _rows(tmp_path / "yardsticks.sqlite") >= 1


@pytest.mark.parametrize("interruption", [RuntimeError("a failure mid-run"), KeyboardInterrupt()])
def test_an_error_or_ctrl_c_inside_the_session_still_closes_everything(
    tmp_path: Path, mini_pack: TaskPack, interruption: BaseException
) -> None:
    task = mini_pack.get("double")
    session = JudgeSession(_options(tmp_path))
    with pytest.raises(type(interruption)), session:
        assert session.judge is not None
        session.judge.score(task, task.reference_solution)
        pids = _worker_pids(session)
        raise interruption
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    _assert_closed(session.cache)
    _assert_closed(session.yardsticks)


def test_a_failure_while_opening_closes_what_was_already_open(tmp_path: Path) -> None:
    session = JudgeSession(_options(tmp_path, backend="no-such-backend"))
    with pytest.raises(UnknownNameError, match="no-such-backend"), session:
        pass
    _assert_closed(session.cache)  # opened before the backend failed, and closed again
    _assert_closed(session.yardsticks)

    session = JudgeSession(_options(tmp_path, yardsticks="bogus://x"))
    with pytest.raises(CacheError) as error, session:
        pass
    _assert_closed(session.cache)
    assert not (Path.cwd() / "bogus:").exists()
    # the library names its own setting; the CLI names the flag
    assert str(error.value).startswith("yardsticks: unknown store 'bogus://x'")
    assert cli_message(error.value).startswith("--yardsticks: unknown store 'bogus://x'")


def test_without_a_reward_config_there_is_no_judge_and_no_store(tmp_path: Path) -> None:
    with JudgeSession(_options(tmp_path, reward=None)) as session:
        assert session.judge is None and session.cache is None and session.yardsticks is None
        assert isinstance(session.backend, LocalBackend)
    assert not (tmp_path / "cache.sqlite").exists() and not (tmp_path / "yardsticks.sqlite").exists()


def test_off_stores_are_none_and_a_bad_cache_names_its_setting(tmp_path: Path) -> None:
    with JudgeSession(_options(tmp_path, cache="off", yardsticks="off")) as session:
        assert session.judge is not None and session.cache is None and session.yardsticks is None
    with pytest.raises(CacheError) as error, JudgeSession(_options(tmp_path, cache="bogus://x")):
        pass
    assert str(error.value).startswith("cache: unknown cache 'bogus://x'")
    assert cli_message(error.value).startswith("--cache: unknown cache 'bogus://x'")


def test_memory_stores_live_in_the_process_only(tmp_path: Path) -> None:
    """What a `codegym serve` replica uses for its yardsticks: nothing on disk."""
    with JudgeSession(_options(tmp_path, cache="memory", yardsticks="memory")) as session:
        assert session.cache is not None and session.yardsticks is not None
        session.yardsticks.set_json("key", {"value": 1})
        assert session.yardsticks.get_json("key") == {"value": 1}
    assert list(tmp_path.iterdir()) == []
