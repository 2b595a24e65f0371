"""A PNG of the reward components per step, from the trainer's log history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegym.reward.config import COMPONENTS


def reward_series(log_history: list[dict[str, Any]]) -> dict[str, list[tuple[int, float]]]:
    series: dict[str, list[tuple[int, float]]] = {}
    names = ("joint", *COMPONENTS, "hacks")
    for entry in log_history:
        step = entry.get("step")
        if step is None:
            continue
        for name in names:
            value = entry.get(f"rewards/{name}/mean")
            if isinstance(value, (int, float)):
                series.setdefault(name, []).append((int(step), float(value)))
        if isinstance(entry.get("objective/scores"), (int, float)):  # PPO logs the joint reward as scores
            series.setdefault("joint", []).append((int(step), float(entry["objective/scores"])))
        if isinstance(entry.get("codegym/pass_rate"), (int, float)):
            series.setdefault("pass_rate", []).append((int(step), float(entry["codegym/pass_rate"])))
    return series


def plot_rewards(
    log_history: list[dict[str, Any]], path: Path, title: str = "reward components"
) -> Path | None:
    series = reward_series(log_history)
    if not series:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(9, 5))
    for name, points in sorted(series.items()):
        steps, values = zip(*points, strict=True)
        axis.plot(
            steps, values, marker="o", markersize=3, linewidth=2.2 if name == "joint" else 1.2, label=name
        )
    axis.set_xlabel("step")
    axis.set_ylabel("mean over the batch")
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend(loc="best", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
