"use strict";
(function () {
  const data = JSON.parse(document.getElementById("codegym-data").textContent);
  const fmt = (v, digits) => (v === null || v === undefined ? "\u2013" : Number(v).toFixed(digits === undefined ? 3 : digits));
  const pct = (v) => (v === null || v === undefined ? "\u2013" : (100 * v).toFixed(1) + "%");

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  // -- sortable tables -----------------------------------------------------------------------
  function compare(a, b) {
    const missingA = a === null || a === undefined || a === "";
    const missingB = b === null || b === undefined || b === "";
    if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  function sortableTable(table, columns, rows, renderRow, initial) {
    const head = el("tr");
    const tbody = el("tbody");
    const state = { key: initial ? initial.key : null, dir: initial ? initial.dir : 1 };
    columns.forEach((col) => {
      const th = el("th", { class: "sortable" + (col.num ? " num" : ""), "data-key": col.key, scope: "col", text: col.label, title: col.title || null });
      th.addEventListener("click", () => {
        state.dir = state.key === col.key ? -state.dir : col.num ? -1 : 1;
        state.key = col.key;
        draw();
      });
      head.append(th);
    });
    table.replaceChildren(el("thead", {}, [head]), tbody);
    function draw() {
      const col = columns.find((c) => c.key === state.key);
      const ordered = rows.slice();
      if (col) {
        ordered.sort((x, y) => {
          const a = col.value(x), b = col.value(y);
          const missing = (a === null || a === undefined || a === "") - (b === null || b === undefined || b === "");
          return missing !== 0 ? missing : state.dir * compare(a, b);
        });
      }
      for (const th of head.children) {
        th.setAttribute("aria-sort", th.dataset.key === state.key ? (state.dir > 0 ? "ascending" : "descending") : "none");
      }
      tbody.replaceChildren(...ordered.map(renderRow));
    }
    draw();
    return { redraw: draw, state };
  }

  // -- runs ----------------------------------------------------------------------------------
  const ks = data.ks;
  const components = data.components;
  let selectedRun = null;
  let packFilter = "";

  const runColumns = [
    { key: "rank", label: "#", num: true, title: "rank among complete runs (partial runs are not ranked)", value: (r) => r.rank },
    { key: "model", label: "Model", value: (r) => r.model },
    { key: "pack", label: "Pack", value: (r) => r.pack + " " + r.pack_version },
    ...ks.map((k) => ({ key: "pass@" + k, label: "pass@" + k, num: true, value: (r) => r.metrics["pass@" + k] })),
    { key: "reward", label: "Reward", num: true, value: (r) => r.metrics.reward },
    ...components.map((c) => ({ key: "components/" + c, label: c, num: true, value: (r) => r.metrics["components/" + c] })),
    { key: "n_samples", label: "n", num: true, title: "samples per task", value: (r) => r.n_samples },
    { key: "tasks", label: "Tasks", num: true, value: (r) => r.tasks_evaluated },
    { key: "date", label: "Date", value: (r) => r.updated_at },
  ];

  function runRow(run) {
    const cells = [
      el("td", { class: "num", text: run.rank === null || run.rank === undefined ? "\u2013" : String(run.rank) }),
      el("td", {}, [el("span", { text: run.model }), run.partial ? el("span", { class: "badge", title: "partial: fewer tasks than the pack, errors or too few samples (not ranked)", text: "partial" }) : ""]),
      el("td", { text: run.pack + " " + run.pack_version, title: "content hash " + run.pack_hash }),
      ...ks.map((k) => el("td", { class: "num", text: pct(run.metrics["pass@" + k]) })),
      el("td", { class: "num", text: fmt(run.metrics.reward) }),
      ...components.map((c) => el("td", { class: "num", text: fmt(run.metrics["components/" + c]) })),
      el("td", { class: "num", text: String(run.n_samples) }),
      el("td", { class: "num", text: run.tasks_evaluated + "/" + run.pack_tasks }),
      el("td", { text: run.updated_at.slice(0, 16).replace("T", " ") }),
    ];
    const tr = el("tr", { class: "clickable" + (selectedRun === run.run_id ? " selected" : ""), "data-run-id": run.run_id, title: "run " + run.run_id }, cells);
    tr.addEventListener("click", () => showRun(run.run_id));
    return tr;
  }

  const visibleRuns = () => data.runs.filter((r) => !packFilter || r.pack === packFilter);
  let runsTable = null;
  function drawRuns() {
    const runs = visibleRuns();
    const table = document.getElementById("runs");
    const empty = document.getElementById("runs-empty");
    empty.hidden = runs.length > 0;
    // ranked (complete) runs first, best first; partial runs, unranked, after them
    const first = { key: "rank", dir: 1 };
    runsTable = sortableTable(table, runColumns, runs, runRow, runsTable ? runsTable.state || first : first);
  }

  // -- drill-down ----------------------------------------------------------------------------
  function showRun(runId) {
    selectedRun = runId;
    for (const tr of document.querySelectorAll("#runs tbody tr")) tr.classList.toggle("selected", tr.dataset.runId === runId);
    const run = data.runs.find((r) => r.run_id === runId);
    const section = document.getElementById("drilldown");
    section.hidden = false;
    document.getElementById("drilldown-title").textContent = run.model + " on " + run.pack + " " + run.pack_version;
    const meta = document.getElementById("drilldown-meta");
    const generation = run.params ? Object.entries(run.params.sampling || {}).map(([k, v]) => k + "=" + JSON.stringify(v)).join(", ") : "pre-generated samples";
    meta.textContent = "run " + run.run_id + " \u00b7 " + generation + " \u00b7 sandbox " + (run.sandbox_image || "?") + (run.out_dir ? " \u00b7 " + run.out_dir : "");
    const taskColumns = [
      { key: "task_id", label: "Task", value: (t) => t.task_id },
      { key: "n", label: "n", num: true, value: (t) => t.n },
      { key: "c", label: "passed", num: true, value: (t) => t.c },
      ...ks.map((k) => ({ key: "pass@" + k, label: "pass@" + k, num: true, value: (t) => t["pass@" + k] })),
      { key: "reward", label: "Reward", num: true, value: (t) => t.reward },
      { key: "statuses", label: "Statuses", value: (t) => Object.keys(t.statuses || {}).sort().join(" ") },
    ];
    sortableTable(document.getElementById("tasks"), taskColumns, run.tasks, (task) => {
      const statuses = Object.entries(task.statuses || {}).map(([s, n]) => el("span", { class: "badge status-" + s, text: s + " \u00d7" + n }));
      const tr = el("tr", { class: "clickable", "data-task-id": task.task_id }, [
        el("td", { text: task.task_id }),
        el("td", { class: "num", text: String(task.n) }),
        el("td", { class: "num", text: String(task.c) }),
        ...ks.map((k) => el("td", { class: "num", text: pct(task["pass@" + k]) })),
        el("td", { class: "num", text: fmt(task.reward) }),
        el("td", {}, statuses),
      ]);
      tr.addEventListener("click", () => showTask(run, task.task_id, tr));
      return tr;
    });
    document.getElementById("samples").hidden = true;
    section.scrollIntoView({ block: "start" });
  }

  function showTask(run, taskId, row) {
    for (const tr of document.querySelectorAll("#tasks tbody tr")) tr.classList.toggle("selected", tr === row);
    const panel = document.getElementById("samples");
    panel.hidden = false;
    const samples = (run.samples[taskId] || []);
    const shown = run.samples_shown || 0;
    document.getElementById("samples-title").textContent = taskId + ": " + samples.length + " sample" + (samples.length === 1 ? "" : "s") + (shown ? " (at most " + shown + " per task exported)" : "");
    const list = document.getElementById("sample-list");
    list.replaceChildren(...samples.map((s) => {
      const comps = Object.entries(s.components || {}).map(([name, v]) => el("span", { text: name + " " + fmt(v, 2) }));
      const flags = (s.flags || []).map((f) => el("span", { class: "badge", text: f }));
      return el("article", { class: "sample", "data-sample-index": s.sample_index }, [
        el("header", {}, [
          el("strong", { text: s.sample_index === null ? "row " + s.position : "sample " + s.sample_index }),
          el("span", { class: "status status-" + s.status, text: s.status }),
          el("span", { text: "tests " + s.tests_passed + "/" + s.tests_total }),
          el("span", { text: "reward " + fmt(s.reward) }),
          ...flags,
        ]),
        el("div", { class: "components muted" }, comps),
        s.message ? el("div", { class: "message", text: s.message }) : "",
        (s.failed_tests || []).length ? el("ul", { class: "failed-tests" }, s.failed_tests.map((t) => el("li", {}, [
          el("code", { text: t.id }), el("span", { class: "status status-" + t.outcome, text: t.outcome }), t.message ? el("span", { class: "muted", text: t.message }) : "",
        ]))) : "",
        el("pre", { class: "code" }, [el("code", { text: s.code || "(no code)" })]),
      ]);
    }));
    panel.scrollIntoView({ block: "start" });
  }

  // -- page ------------------------------------------------------------------------------------
  const select = document.getElementById("pack-filter");
  const packs = [...new Set(data.runs.map((r) => r.pack))].sort();
  select.replaceChildren(el("option", { value: "", text: "all packs" }), ...packs.map((p) => el("option", { value: p, text: p })));
  select.addEventListener("change", () => { packFilter = select.value; drawRuns(); });
  document.getElementById("generated").textContent = data.runs.length + " run" + (data.runs.length === 1 ? "" : "s") + " \u00b7 exported " + data.generated_at;
  drawRuns();
  window.codegymLeaderboard = { data, showRun };
})();
