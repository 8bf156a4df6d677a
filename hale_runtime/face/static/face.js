// The face's one script: live updates, acts without a reload, time travel.
// The server sends `event: rows` with the record's end whenever rows land;
// when it is past what this page shows, the page is fetched again and its
// live part swapped in. Acts are posted with the page's CSRF field and what
// the verb said is shown as text. The time slider fetches the execution's
// page at a row and swaps the tree and the rows.
"use strict";

const page = document.body;

async function fetchPage(url) {
  const got = await fetch(url, { credentials: "same-origin" });
  const text = await got.text();
  return new DOMParser().parseFromString(text, "text/html");
}

function swap(fresh, id) {
  const now = document.getElementById(id);
  const then = fresh.getElementById(id);
  if (now && then) now.replaceWith(document.importNode(then, true));
}

let refreshing = false;
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    const fresh = await fetchPage(location.href);
    const focused = document.activeElement && document.activeElement.id;
    const kept = {};
    document.querySelectorAll("#live input[id]").forEach((i) => { kept[i.id] = i.value; });
    swap(fresh, "live");
    Object.entries(kept).forEach(([id, v]) => {
      const i = document.getElementById(id);
      if (i && i.type !== "hidden" && i.type !== "range") i.value = v;
    });
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    page.dataset.seq = fresh.body.dataset.seq;
    document.getElementById("seq").textContent = fresh.body.dataset.seq;
    wire();
  } finally {
    refreshing = false;
  }
}

function listen() {
  const events = new EventSource("/events");
  events.addEventListener("rows", (e) => {
    if (Number(e.data) !== Number(page.dataset.seq)) refresh();
  });
}

async function act(form, button) {
  const said = document.getElementById("said");
  const data = new URLSearchParams(new FormData(form));
  if (button && button.name) data.set(button.name, button.value);
  said.textContent = "…";
  said.className = "busy";
  try {
    const got = await fetch(form.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: data.toString(),
    });
    const doc = got.headers.get("Content-Type").startsWith("application/json")
      ? await got.json()
      : { refused: true, text: await got.text() };
    said.textContent = doc.text;
    said.className = doc.refused ? "refused" : "done";
    if (!doc.refused) form.reset();
  } catch (error) {
    said.textContent = String(error);
    said.className = "refused";
  }
  refresh();
}

async function travel(slider) {
  const url = new URL(location.href);
  url.searchParams.set("at", slider.value);
  history.replaceState(null, "", url);
  document.getElementById("at-n").textContent = slider.value;
  const fresh = await fetchPage(url);
  swap(fresh, "tree");
  swap(fresh, "rows");
}

function wire() {
  document.querySelectorAll("form.act").forEach((form) => {
    if (form.dataset.wired) return;
    form.dataset.wired = "1";
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      act(form, e.submitter);
    });
  });
  const slider = document.getElementById("at");
  if (slider && !slider.dataset.wired) {
    slider.dataset.wired = "1";
    slider.addEventListener("input", () => travel(slider));
  }
}

document.addEventListener("keydown", (e) => {
  const slider = document.getElementById("at");
  if (!slider || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
  const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
  if (!step) return;
  const next = Number(slider.value) + step;
  if (next < Number(slider.min) || next > Number(slider.max)) return;
  slider.value = String(next);
  travel(slider);
});

wire();
listen();
