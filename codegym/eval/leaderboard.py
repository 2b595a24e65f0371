"""The leaderboard: rows for `codegym leaderboard show`, and a static, self-contained HTML export.

The HTML page is one index.html with its CSS, JavaScript, data and plots inline (no CDN, works
offline and from file://): a sortable table of runs, a per-task drill-down with each sample's code
and breakdown, and SVG plots of pass@k and reward components by run.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codegym import __version__
from codegym.errors import BadValue, Setting
from codegym.eval.results_db import ResultsDB, RunRecord, iter_metric_names
from codegym.reward.config import COMPONENTS
from codegym.tasks.errors import UnknownNameError

ASSETS = Path(__file__).resolve().parent / "html"
PALETTE = ("#2f6fdb", "#e8a33d", "#3aa17e", "#c4504a", "#8a63d2", "#5b8fa8", "#d26fa7", "#7f8c2d")
MAX_CHART_RUNS = 12


def display_model(model: str) -> str:
    """A local checkpoint path shows as its last component; hub ids (org/name) stay as they are."""
    if model.startswith(("/", "./", "../", "~")) or "\\" in model:
        return Path(model).name or model
    return model


def ks_of(records: Sequence[RunRecord]) -> list[int]:
    return sorted({k for r in records for k in r.ks})


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key that orders digit runs by value: HumanEval/2 before HumanEval/10 before HumanEval/100."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part
    )


def sort_keys(records: Sequence[RunRecord]) -> list[str]:
    """The metrics runs can be ranked by: pass@k (and strict/pass@k), reward, components/NAME."""
    ks = ks_of(records) or [1]
    names = {"reward", *(f"components/{c}" for c in COMPONENTS)}
    names.update(f"{prefix}pass@{k}" for prefix in ("", "strict/") for k in ks)
    names.update(iter_metric_names(records))
    return sorted(names, key=natural_key)


def check_sort_key(metric: str, records: Sequence[RunRecord]) -> None:
    """An unknown key is an error listing the valid ones (a typo must not silently rank by nothing)."""
    if metric in sort_keys(records):
        return
    if not records and re.fullmatch(r"(strict/)?pass@[1-9]\d*", metric):
        return  # nothing recorded yet: any k may be meant
    raise UnknownNameError("sort key", metric, sort_keys(records))


def _by_metric(records: Sequence[RunRecord], metric: str) -> list[RunRecord]:
    by_date = sorted(records, key=lambda r: r.updated_at, reverse=True)
    return sorted(by_date, key=lambda r: (r.metrics.get(metric) is None, -(r.metrics.get(metric) or 0.0)))


def default_metric(records: Sequence[RunRecord]) -> str:
    ks = ks_of(records)
    return f"pass@{ks[0]}" if ks else "reward"


def sort_records(
    records: Sequence[RunRecord], metric: str | None = None, *, include_partial: bool = False
) -> list[RunRecord]:
    """Best first by `metric` (default: pass@ the smallest k), runs without it last, then newest first.

    Partial runs (fewer tasks than the pack, errors, too few samples) come after the complete ones,
    ranked among themselves, unless `include_partial`: 100% on 20 tasks must not top 60% on 164."""
    metric = metric or default_metric(records)
    if include_partial:
        return _by_metric(records, metric)
    return _by_metric([r for r in records if not r.partial], metric) + _by_metric(
        [r for r in records if r.partial], metric
    )


def ranks(records: Sequence[RunRecord], *, include_partial: bool = False) -> dict[str, int]:
    """Rank (1 = best) of each ranked run in `records` (already sorted); partial runs have none."""
    ranked = [r for r in records if include_partial or not r.partial]
    return {r.run_id: position for position, r in enumerate(ranked, start=1)}


def leaderboard_rows(
    records: Sequence[RunRecord], metric: str | None = None, *, include_partial: bool = False
) -> list[dict[str, Any]]:
    """Plain rows (for --json and the rich table): rank, model, pack, pass@k, reward, components, date."""
    if metric is not None:
        check_sort_key(metric, records)
    ordered = sort_records(records, metric, include_partial=include_partial)
    rank = ranks(ordered, include_partial=include_partial)
    rows = []
    for record in ordered:
        rows.append(
            {
                "rank": rank.get(record.run_id),
                "run_id": record.run_id,
                "model": record.model,
                "pack": record.pack,
                "pack_version": record.pack_version,
                "pack_hash": record.pack_hash[:16],
                **{f"pass@{k}": record.metrics.get(f"pass@{k}") for k in record.ks},
                "reward": record.metrics.get("reward"),
                "components": {c: record.metrics.get(f"components/{c}") for c in COMPONENTS},
                "n_samples": record.n_samples,
                "tasks": f"{record.tasks_evaluated}/{record.pack_tasks}",
                "complete": record.complete,
                "partial": record.partial,
                "date": record.updated_at.isoformat(timespec="seconds"),
                "out_dir": record.out_dir,
            }
        )
    return rows


def run_details(db: ResultsDB, run_id: str) -> dict[str, Any]:
    """One run for `leaderboard show RUN`: its summary, per-task results in natural task order, and
    each sample that did not pass with the tests it failed."""
    record = db.get_run(run_id)
    tasks = sorted(db.task_results(record.run_id), key=lambda t: natural_key(t["task_id"]))
    failed = [
        {
            "task_id": s["task_id"],
            "sample_index": s["sample_index"],
            "position": s["position"],
            "status": s["status"],
            "tests_passed": s["tests_passed"],
            "tests_total": s["tests_total"],
            "message": s["message"] or "",
            "failed_tests": s["failed_tests"] or [],
        }
        for s in db.samples(record.run_id)
        if not s["passed"] or s["status"] != "passed"
    ]
    failed.sort(key=lambda s: (natural_key(s["task_id"]), s["position"]))
    return {"run": record.to_dict(), "tasks": tasks, "failed_samples": failed}


# -- SVG plots ----------------------------------------------------------------------------------
def _tag(name: str, text: str | None = None, **attrs: object) -> str:
    """One SVG element; attribute names use _ for -, every value and text is escaped."""
    rendered = "".join(
        f' {key.rstrip("_").replace("_", "-")}="{html.escape(str(value))}"' for key, value in attrs.items()
    )
    return f"<{name}{rendered}/>" if text is None else f"<{name}{rendered}>{html.escape(text)}</{name}>"


def svg_grouped_bars(
    title: str,
    groups: Sequence[str],
    series: Sequence[str],
    values: dict[tuple[str, str], float | None],
    *,
    percent: bool = True,
    group_ids: Sequence[str] | None = None,
) -> str:
    """A grouped bar chart on a 0..1 axis: one group per run, one bar per series."""
    bar, gap, top, plot_h, bottom = 14, 18, 44, 200, 86
    group_w = bar * max(1, len(series)) + gap
    labels = [group if len(group) <= 22 else group[:21] + "…" for group in groups]
    # the first group's label is drawn rotated to the left of its bars: leave room for it
    left = max(46, int(0.87 * 6.2 * len(labels[0]) - group_w / 2 + 12)) if groups else 46
    width = max(360, left + group_w * len(groups) + 20, left + 96 * len(series) + 10)
    height = top + plot_h + bottom if groups else 60
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title)}" '
        'font-family="system-ui, sans-serif" font-size="11">'
    )
    parts = [head, _tag("title", title), _tag("text", title, x=left, y=16, font_size=13, font_weight=600)]
    if not groups or not series:
        parts.append(_tag("text", "no runs to plot", x=left, y=40, fill="#667085"))
        return "".join([*parts, "</svg>"])
    for i, name in enumerate(series):  # legend
        x = left + i * 96
        parts.append(_tag("rect", x=x, y=24, width=10, height=10, fill=PALETTE[i % len(PALETTE)]))
        parts.append(_tag("text", name, x=x + 14, y=33))
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = round(top + plot_h * (1 - tick), 1)
        label = f"{tick:.0%}" if percent else f"{tick:.2f}"
        parts.append(_tag("line", x1=left, x2=width - 10, y1=y, y2=y, stroke="#e4e7ec"))
        parts.append(_tag("text", label, x=left - 6, y=y + 4, text_anchor="end", fill="#667085"))
    for g, group in enumerate(groups):
        x0 = left + gap / 2 + g * group_w
        run_attr = f' data-run-id="{html.escape(group_ids[g])}"' if group_ids else ""
        parts.append(f'<g class="bar-group"{run_attr}>')
        for s, name in enumerate(series):
            value = values.get((group, name))
            x = round(x0 + s * bar, 1)
            if value is None:
                parts.append(
                    _tag("text", "–", x=x + bar / 2, y=top + plot_h - 3, text_anchor="middle", fill="#98a2b3")
                )
                continue
            h = round(plot_h * min(1.0, max(0.0, value)), 1)
            shown = f"{value:.1%}" if percent else f"{value:.3f}"
            tip = _tag("title", f"{group}: {name} = {shown}")
            color = PALETTE[s % len(PALETTE)]
            parts.append(
                f'<rect x="{x}" y="{top + plot_h - h:.1f}" width="{bar - 2}" height="{h}" '
                f'fill="{color}">{tip}</rect>'
            )
        label = labels[g]
        cx, cy = round(x0 + (group_w - gap) / 2, 1), top + plot_h + 14
        parts.append(_tag("text", label, x=cx, y=cy, text_anchor="end", transform=f"rotate(-30 {cx} {cy})"))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _chart_label(record: RunRecord, records: Sequence[RunRecord]) -> str:
    label = display_model(record.model)
    if len({r.pack for r in records}) > 1:
        label += f" · {record.pack}"
    return label


def _charts(records: Sequence[RunRecord]) -> tuple[str, str]:
    chosen = sort_records(records)[:MAX_CHART_RUNS]
    labels, seen = [], set()
    for record in chosen:  # labels must be unique: suffix a short run id when they are not
        label = _chart_label(record, chosen)
        if label in seen:
            label = f"{label} ({record.run_id[:6]})"
        seen.add(label)
        labels.append(label)
    ks = ks_of(chosen)
    passk_values = {
        (label, f"pass@{k}"): r.metrics.get(f"pass@{k}")
        for label, r in zip(labels, chosen, strict=True)
        for k in ks
    }
    component_values = {
        (label, c): r.metrics.get(f"components/{c}")
        for label, r in zip(labels, chosen, strict=True)
        for c in COMPONENTS
    }
    ids = [r.run_id for r in chosen]
    more = f" (best {MAX_CHART_RUNS} runs)" if len(records) > MAX_CHART_RUNS else ""
    return (
        svg_grouped_bars(
            f"pass@k by run{more}", labels, [f"pass@{k}" for k in ks], passk_values, group_ids=ids
        ),
        svg_grouped_bars(
            f"Mean reward components by run{more}",
            labels,
            list(COMPONENTS),
            component_values,
            percent=False,
            group_ids=ids,
        ),
    )


# -- export -------------------------------------------------------------------------------------
def page_data(
    db: ResultsDB, records: Sequence[RunRecord], samples_per_task: int, *, include_partial: bool = False
) -> dict[str, Any]:
    runs = []
    ordered = sort_records(records, include_partial=include_partial)
    rank = ranks(ordered, include_partial=include_partial)
    for record in ordered:
        samples: dict[str, list[dict[str, Any]]] = {}
        rows = db.samples(record.run_id, per_task=samples_per_task)
        for sample in sorted(rows, key=lambda s: natural_key(s["task_id"])):
            samples.setdefault(sample["task_id"], []).append(
                {
                    "sample_index": sample["sample_index"],
                    "position": sample["position"],
                    "status": sample["status"],
                    "passed": sample["passed"],
                    "tests_passed": sample["tests_passed"],
                    "tests_total": sample["tests_total"],
                    "reward": sample["reward"],
                    "components": sample["components"] or {},
                    "flags": sample["flags"] or [],
                    "message": sample["message"] or "",
                    "failed_tests": sample["failed_tests"] or [],
                    "code": sample["code"],
                }
            )
        tasks = []
        for task in sorted(db.task_results(record.run_id), key=lambda t: natural_key(t["task_id"])):
            keep = {"task_id", "n", "c", "reward", "statuses", *(f"pass@{k}" for k in record.ks)}
            tasks.append({k: v for k, v in task.items() if k in keep})
        runs.append(
            {
                **record.to_dict(),
                "rank": rank.get(record.run_id),
                "model": display_model(record.model),
                "model_source": record.model,
                "pack_hash": record.pack_hash[:16],
                "tasks": tasks,
                "samples": samples,
                "samples_shown": samples_per_task,
            }
        )
    return {
        "generated_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "codegym_version": __version__,
        "ks": ks_of(records),
        "components": list(COMPONENTS),
        "runs": runs,
    }


def _script_json(data: Any) -> str:
    """JSON that is safe inside a <script> element (no '</script>', no '<!--')."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data: dict[str, Any], records: Sequence[RunRecord], title: str) -> str:
    template = (ASSETS / "template.html").read_text(encoding="utf-8")
    chart_passk, chart_components = _charts(records)
    values = {
        "title": html.escape(title),
        "version": __version__,
        "css": (ASSETS / "leaderboard.css").read_text(encoding="utf-8"),
        "js": (ASSETS / "leaderboard.js").read_text(encoding="utf-8"),
        "data": _script_json(data),
        "chart_passk": chart_passk,
        "chart_components": chart_components,
    }
    # one pass: text inserted for one placeholder is never scanned for another
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], template)


def export_html(
    db: ResultsDB,
    out_dir: Path,
    *,
    pack: str | None = None,
    samples_per_task: int = 5,
    title: str = "codegym leaderboard",
    include_partial: bool = False,
) -> Path:
    """Write out_dir/index.html for the runs in `db` (of `pack`, when given); returns its path."""
    if samples_per_task < 0:
        raise BadValue(Setting("samples_per_task"), " must be >= 0")
    records = db.runs(pack)
    data = page_data(db, records, samples_per_task, include_partial=include_partial)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "index.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render_html(data, records, title), encoding="utf-8")
    tmp.replace(path)
    return path
