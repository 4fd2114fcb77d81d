// class-live's page: the session from the service's stream (EventSource), drawn without a reload.
// Every text from the stream goes in with textContent (never as HTML). The state is readable in the DOM:
// body[data-state|data-connected|data-last-seq|data-last-event-id|data-events], #status,
// #progress tr[data-unit] (data-passed, data-trying, data-not-started), #heatmap td[data-unit][data-id]
// (data-count), #stuck li[data-student][data-unit][data-id],
// #stuck-count, #id-details[data-id] (what learners see for the id selected, and where its unit is taught).
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("live-data").textContent);
  const $ = (id) => document.getElementById(id);
  const make = (tag, text, attrs) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  };
  let source = null, lastEventId = "", retryTimer = null, latest = null;

  function setState(state, text) {
    document.body.dataset.state = state;
    document.body.dataset.connected = String(state === "live");
    $("status").dataset.state = state;
    $("status").textContent = text;
  }

  // The projector's page has no controls: it takes the session and the stuck rule from its link (projectorLink).
  const linked = new URLSearchParams(window.location.search);

  function sessionStart() {
    const input = $("since");
    if (input && input.value) return new Date(input.value).getTime() / 1000;
    if (linked.get("since")) return Number(linked.get("since"));
    return Date.now() / 1000 - data.session_hours * 3600;
  }

  function streamUrl(resume) {
    const params = new URLSearchParams({ since: String(sessionStart()) });
    if ($("runs")) { params.set("runs", $("runs").value); params.set("minutes", $("minutes").value); }
    else for (const key of ["runs", "minutes"]) if (linked.get(key)) params.set(key, linked.get(key));
    if (data.projector) params.set("projector", "1");
    if (resume && lastEventId) params.set("last_event_id", lastEventId);
    if (data.xsrf) params.set("_xsrf", data.xsrf);  // the hub's cookie counts on this GET only with it
    return data.stream + "?" + params.toString();
  }

  function connect(resume) {
    if (source) source.close();
    clearTimeout(retryTimer);
    source = new EventSource(streamUrl(resume));
    source.onopen = () => setState("live", "Live");
    source.onerror = () => {
      // The browser retries by itself (with Last-Event-ID); when it gives up (the service answered an error
      // while restarting) a new connection resumes after the last event seen.
      setState("reconnecting", "Reconnecting…");
      if (source.readyState === EventSource.CLOSED) retryTimer = setTimeout(() => connect(true), 3000);
    };
    source.addEventListener("run", (e) => {
      lastEventId = e.lastEventId;
      document.body.dataset.lastEventId = lastEventId;
    });
    source.addEventListener("view", (e) => draw(JSON.parse(e.data)));
  }

  function level(count, most) {
    return count ? Math.max(1, Math.ceil((5 * count) / Math.max(most, 1))) : 0;
  }

  function draw(view) {
    latest = view;
    document.body.dataset.events = view.events;
    document.body.dataset.lastSeq = view.last_seq;
    const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    $("totals").textContent = `${plural(view.events, "run", "runs")}, ${plural(view.roster, "student", "students")} on the roster`;
    $("no-runs").hidden = view.progress.length > 0;
    const body = $("progress").tBodies[0];
    body.replaceChildren();
    for (const row of view.progress) {
      const tr = make("tr", null, { "data-unit": row.unit, "data-passed": row.passed, "data-trying": row.trying,
        "data-not-started": row.not_started });
      const name = make("th", row.unit, { scope: "row" });
      tr.append(name, make("td", row.passed, { class: "n" }), make("td", row.trying, { class: "n" }),
        make("td", row.not_started, { class: "n" }), make("td", row.runs, { class: "n" }));
      body.append(tr);
    }
    drawHeatmap(view.heatmap);
    $("stuck-count").textContent = view.stuck_count;
    if (view.stuck) drawStuck(view.stuck);
    if (view.recent) drawRecent(view.recent);
  }

  function drawHeatmap(cells) {
    const units = [...new Set(cells.map((c) => c.unit))];
    const totals = {};
    for (const c of cells) totals[c.id] = (totals[c.id] || 0) + c.count;
    const ids = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || a.localeCompare(b));
    const most = Math.max(0, ...cells.map((c) => c.count));
    const byKey = new Map(cells.map((c) => [c.unit + "\u0000" + c.id, c]));
    const head = $("heatmap").tHead;
    head.replaceChildren();
    const top = make("tr");
    top.append(make("th", "Unit \\ id", { scope: "col" }));
    for (const id of ids) {
      const th = make("th", null, { scope: "col" });
      const button = make("button", `[${id}]`, { type: "button", class: "id", "data-id": id });
      button.addEventListener("click", () => explain(id, null));
      th.append(button);
      top.append(th);
    }
    head.append(top);
    const body = $("heatmap").tBodies[0];
    body.replaceChildren();
    for (const unit of units) {
      const tr = make("tr", null, { "data-unit": unit });
      tr.append(make("th", unit, { scope: "row" }));
      for (const id of ids) {
        const cell = byKey.get(unit + "\u0000" + id);
        const count = cell ? cell.count : 0;
        const td = make("td", null, { "data-unit": unit, "data-id": id, "data-count": count,
          "data-level": level(count, most) });
        if (count) {
          const label = `${count} student${count === 1 ? "" : "s"}: ${unit}, [${id}]`;
          const button = make("button", count, { type: "button", class: "cell", "aria-label": label });
          if (cell.students) button.title = cell.students.join(", ");
          button.addEventListener("click", () => explain(id, unit));
          td.append(button);
        }
        tr.append(td);
      }
      body.append(tr);
    }
  }

  function explain(id, unit) {
    const box = $("id-details");
    box.replaceChildren();
    box.dataset.id = id;
    box.append(make("h3", id === "failed" ? "failed (no id named)" : `[${id}]`));
    const texts = data.ids[id];
    if (texts) {
      for (const [lang, label] of [["en", "Learners see"], ["ko", "Korean edition"]]) {
        if (!texts[lang]) continue;
        const p = make("p", null, { lang: lang, "data-lang": lang });
        p.append(make("strong", `${label}: `), document.createTextNode(`${texts[lang].what} ${texts[lang].why}`));
        box.append(p);
      }
    } else {
      box.append(make("p", "A failure that no misconception id describes: the learner sees the test's own message."));
    }
    const cells = (latest ? latest.heatmap : []).filter((c) => c.id === id && (!unit || c.unit === unit));
    for (const cell of cells) {
      const where = (data.taught[cell.unit] || {}).en;
      const text = where ? `${cell.unit}: taught in ${where.notebook}, section “${where.section}”.`
        : `${cell.unit}: no teaching section found.`;
      box.append(make("p", text, { class: "taught", "data-unit": cell.unit }));
      if (cell.students) box.append(make("p", `Students: ${cell.students.join(", ")}`, { class: "students" }));
    }
    box.hidden = false;
  }

  function drawStuck(list) {
    const ol = $("stuck");
    ol.replaceChildren();
    $("stuck-rule").textContent = `A student whose last ${$("runs").value} or more runs of a unit failed the same way, ` +
      `the first of them at least ${$("minutes").value} minutes ago.`;
    for (const s of list) {
      const li = make("li", null, { "data-student": s.student, "data-unit": s.unit, "data-id": s.id,
        "data-runs": s.runs });
      li.append(make("strong", s.student), document.createTextNode(` — ${s.unit}: `));
      const button = make("button", s.id === "failed" ? "failed (no id)" : `[${s.id}]`,
        { type: "button", class: "id", "data-id": s.id });
      button.addEventListener("click", () => explain(s.id, s.unit));
      li.append(button, document.createTextNode(`, ${s.runs} ${s.runs === 1 ? "run" : "runs"} over ${s.minutes} min`));
      ol.append(li);
    }
  }

  function drawRecent(list) {
    const ol = $("recent");
    ol.replaceChildren();
    for (const r of list) {
      const when = new Date(r.received * 1000).toLocaleTimeString();
      const what = r.outcome === "passed" ? "passed" : r.outcome === "failed" ? "failed" : `[${r.outcome}]`;
      ol.append(make("li", `${when} ${r.student} ${r.unit}: ${what} (${r.lang}, ${r.level})`,
        { "data-seq": r.seq }));
    }
  }

  function projectorLink() {  // the room's screen shows the session and the stuck rule chosen here
    const link = $("projector-link");
    if (!link) return;
    const params = new URLSearchParams({ projector: "1", since: String(Math.floor(sessionStart())),
                                         runs: $("runs").value, minutes: $("minutes").value });
    link.href = data.page + "?" + params.toString();
  }

  const since = $("since");
  if (since) {
    const start = new Date(Date.now() - data.session_hours * 3600 * 1000);
    start.setMinutes(start.getMinutes() - start.getTimezoneOffset());
    since.value = start.toISOString().slice(0, 16);
    for (const id of ["since", "runs", "minutes"]) $(id).addEventListener("change", () => { projectorLink(); connect(false); });
  }
  projectorLink();
  setState("connecting", "Connecting…");
  connect(false);
})();
