// class-live's page: the session from the service's stream (EventSource), drawn without a reload.
// Every text from the stream goes in with textContent (never as HTML). The state is readable in the DOM:
// body[data-state|data-connected|data-last-seq|data-last-event-id|data-events], #status,
// #progress tr[data-unit] (data-passed, data-trying, data-not-started), #heatmap td[data-unit][data-id]
// (data-count, data-level), #stuck li[data-student][data-unit][data-id], #stuck-count, #stuck-news (who joined or
// left the stuck list), #id-details[data-id] (what learners see for the id selected, and where its unit is taught).
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

  // Every view (every 15 s idle, up to 4 a second busy) updates the page in place: nodes are kept by a key
  // (data-key), changed only where their data changed and moved only where their order did, so a keyboard's
  // focus stays where it was (restored, by its data-focus key, should a browser drop it when a node moves).
  function place(parent, node, index) {
    const here = parent.children[index] || null;
    if (here === node) return;
    if (node.parentNode === parent && parent.moveBefore) parent.moveBefore(node, here);  // keeps the focus
    else parent.insertBefore(node, here);
  }

  function sync(parent, items, keyOf, create, update, skip) {
    const old = new Map();
    for (const child of [...parent.children].slice(skip || 0)) old.set(child.dataset.key, child);
    items.forEach((item, i) => {
      const key = keyOf(item);
      let node = old.get(key);
      if (node) old.delete(key);
      else { node = create(item); node.dataset.key = key; }
      update(node, item);
      place(parent, node, (skip || 0) + i);
    });
    for (const node of old.values()) node.remove();
  }

  const setText = (node, text) => { if (node.textContent !== String(text)) node.textContent = String(text); };
  const setAttr = (node, name, value) => { if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value); };

  function draw(view) {
    const focused = document.activeElement, focusKey = focused && focused.dataset ? focused.dataset.focus : null;
    const inStuck = focused && focused.closest ? focused.closest("#stuck") : null;
    latest = view;
    document.body.dataset.events = view.events;
    document.body.dataset.lastSeq = view.last_seq;
    const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    setText($("totals"), `${plural(view.events, "run", "runs")}, ${plural(view.roster, "student", "students")} on the roster`);
    $("no-runs").hidden = view.progress.length > 0;
    sync($("progress").tBodies[0], view.progress, (row) => row.unit, (row) => {
      const tr = make("tr", null, { "data-unit": row.unit });
      tr.append(make("th", row.unit, { scope: "row" }));
      for (let k = 0; k < 4; k++) tr.append(make("td", null, { class: "n" }));
      return tr;
    }, (tr, row) => {
      const values = [row.passed, row.trying, row.not_started, row.runs];
      values.forEach((v, k) => setText(tr.cells[k + 1], v));
      setAttr(tr, "data-passed", row.passed);
      setAttr(tr, "data-trying", row.trying);
      setAttr(tr, "data-not-started", row.not_started);
    });
    drawHeatmap(view.heatmap);
    setText($("stuck-count"), view.stuck_count);
    if (view.stuck) drawStuck(view.stuck);
    if (view.recent) drawRecent(view.recent);
    if (focused && focused !== document.body && document.activeElement !== focused) {
      const again = focused.isConnected ? focused
        : [...document.querySelectorAll("[data-focus]")].find((e) => focusKey && e.dataset.focus === focusKey);
      if (again) again.focus({ preventScroll: true });
      else if (inStuck) $("stuck-title").focus({ preventScroll: true });  // its student left the stuck list
    }
  }

  function drawHeatmap(cells) {
    const units = [...new Set(cells.map((c) => c.unit))];
    const totals = {};
    for (const c of cells) totals[c.id] = (totals[c.id] || 0) + c.count;
    const ids = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || a.localeCompare(b));
    const most = Math.max(0, ...cells.map((c) => c.count));
    const byKey = new Map(cells.map((c) => [c.unit + "\u0000" + c.id, c]));
    const head = $("heatmap").tHead;
    if (!head.rows.length) {
      const top = make("tr");
      top.append(make("th", "Unit \\ id", { scope: "col" }));
      head.append(top);
    }
    sync(head.rows[0], ids, (id) => id, (id) => {
      const th = make("th", null, { scope: "col" });
      const button = make("button", `[${id}]`, { type: "button", class: "id", "data-id": id, "data-focus": "id\u001f" + id });
      button.addEventListener("click", () => explain(id, null));
      th.append(button);
      return th;
    }, () => {}, 1);
    sync($("heatmap").tBodies[0], units, (unit) => unit, (unit) => {
      const tr = make("tr", null, { "data-unit": unit });
      tr.append(make("th", unit, { scope: "row" }));
      return tr;
    }, (tr, unit) => sync(tr, ids, (id) => id, (id) => make("td", null, { "data-unit": unit, "data-id": id }),
      (td, id) => drawCell(td, unit, id, byKey.get(unit + "\u0000" + id), most), 1));
  }

  // A cell with students is a button named by its count, unit, id and (instructor only) the students; an empty
  // cell says so to a screen reader ("no students"), and takes no place in the keyboard's order.
  function drawCell(td, unit, id, cell, most) {
    const count = cell ? cell.count : 0;
    setAttr(td, "data-count", count);
    setAttr(td, "data-level", level(count, most));
    let button = td.querySelector("button");
    if (!count) {
      if (!td.querySelector(".sr-only")) td.replaceChildren(make("span", "no students", { class: "sr-only" }));
      return;
    }
    if (!button) {
      button = make("button", null, { type: "button", class: "cell", "data-focus": `cell\u001f${unit}\u001f${id}` });
      button.addEventListener("click", () => explain(id, unit));
      td.replaceChildren(button);
    }
    const names = cell.students ? `: ${cell.students.join(", ")}` : "";
    setText(button, count);
    setAttr(button, "aria-label", `${count} student${count === 1 ? "" : "s"}: ${unit}, [${id}]${names}`);
    if (cell.students) setAttr(button, "title", cell.students.join(", "));
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

  let stuckBefore = null;  // the keys of the stuck list last drawn

  function drawStuck(list) {
    setText($("stuck-rule"), `A student whose last ${$("runs").value} or more runs of a unit failed the same way, ` +
      `the first of them at least ${$("minutes").value} minutes ago.`);
    const keyOf = (s) => `${s.student}\u001f${s.unit}\u001f${s.id}`;
    sync($("stuck"), list, keyOf, (s) => {
      const li = make("li", null, { "data-student": s.student, "data-unit": s.unit, "data-id": s.id });
      li.append(make("strong", s.student), document.createTextNode(` — ${s.unit}: `));
      const button = make("button", s.id === "failed" ? "failed (no id)" : `[${s.id}]`,
        { type: "button", class: "id", "data-id": s.id, "data-focus": "stuck\u001f" + keyOf(s) });
      button.addEventListener("click", () => explain(s.id, s.unit));
      li.append(button, make("span", null, { class: "streak" }));
      return li;
    }, (li, s) => {
      setAttr(li, "data-runs", s.runs);
      setText(li.querySelector(".streak"), `, ${s.runs} ${s.runs === 1 ? "run" : "runs"} over ${s.minutes} min`);
    });
    announceStuck(list, keyOf);
  }

  // Who joined or left the stuck list, in a few words, to the polite live region (never the whole list).
  function announceStuck(list, keyOf) {
    const now = new Map(list.map((s) => [keyOf(s), s]));
    const before = stuckBefore;
    stuckBefore = now;
    if (before === null) return;  // the page's first view: read with the page
    const joined = [...now.keys()].filter((k) => !before.has(k)).map((k) => now.get(k));
    const left = [...before.keys()].filter((k) => !now.has(k)).map((k) => before.get(k));
    if (!joined.length && !left.length) return;
    const what = (s) => `${s.unit} ${s.id === "failed" ? "(failed, no id)" : `[${s.id}]`}`;
    const parts = joined.length + left.length > 3
      ? [`${joined.length} newly stuck`, `${left.length} no longer stuck`]
      : [...joined.map((s) => `${s.student} is stuck on ${what(s)}`),
         ...left.map((s) => `${s.student} is no longer stuck on ${s.unit}`)];
    $("stuck-news").textContent = `Stuck: ${list.length}. ${parts.join("; ")}.`;
  }

  function drawRecent(list) {
    sync($("recent"), list, (r) => String(r.seq), (r) => {
      const when = new Date(r.received * 1000).toLocaleTimeString();
      const what = r.outcome === "passed" ? "passed" : r.outcome === "failed" ? "failed" : `[${r.outcome}]`;
      return make("li", `${when} ${r.student} ${r.unit}: ${what} (${r.lang}, ${r.level})`, { "data-seq": r.seq });
    }, () => {});
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
