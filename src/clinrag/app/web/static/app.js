// clinrag web app: asks without reloading and streams the answer (server-sent events). Without this script the
// form still works: the server answers, then shows the conversation.
"use strict";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function listen(result) {
  const pending = result.querySelector(".pending");
  if (!pending) return;
  const status = pending.querySelector(".status");
  const draft = pending.querySelector(".draft");
  const source = new EventSource(pending.dataset.events);
  const finish = (html) => {
    source.close();
    const holder = document.createElement("div");
    holder.innerHTML = html; // rendered and escaped by the server
    result.replaceWith(holder.firstElementChild);
    document.body.dataset.busy = "false";
  };
  source.addEventListener("status", (e) => { status.textContent = JSON.parse(e.data).text; });
  source.addEventListener("draft", (e) => {
    status.textContent = "Drafting; every sentence is checked against its sources before it is shown…";
    draft.textContent += JSON.parse(e.data).text;
    pending.dataset.drafting = "true";
  });
  source.addEventListener("answer", (e) => finish(JSON.parse(e.data).html));
  source.addEventListener("failed", (e) => finish(JSON.parse(e.data).html));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      status.textContent = "The connection was lost; reload the page to see the answer.";
      document.body.dataset.busy = "false";
    }
  };
}

function addToHistory(conversation, title) {
  const list = document.getElementById("conversations");
  if (!list || document.querySelector(`#conversations a[href="/c/${conversation}"]`)) return;
  const empty = document.getElementById("conversations-empty");
  if (empty) empty.remove();
  const item = el("li", "current");
  const link = el("a", "", title);
  link.href = `/c/${conversation}`;
  item.append(link);
  list.prepend(item);
}

async function ask(form, event) {
  event.preventDefault();
  const data = new FormData(form);
  const question = String(data.get("question") || "").trim();
  if (!question || document.body.dataset.busy === "true") return;
  document.body.dataset.busy = "true";
  const reply = await fetch("/ask", {
    method: "POST",
    body: data,
    headers: { "Accept": "application/json", "X-CSRF-Token": form.dataset.csrf },
  });
  const body = await reply.json().catch(() => ({ error: "The server did not answer properly." }));
  if (!reply.ok) {
    alert(body.error || "The question could not be sent.");
    document.body.dataset.busy = "false";
    return;
  }
  form.querySelector('input[name="conversation"]').value = body.conversation;
  if (location.pathname !== `/c/${body.conversation}`) history.pushState({}, "", `/c/${body.conversation}`);
  addToHistory(body.conversation, body.title);
  const welcome = document.querySelector(".welcome");
  if (welcome) welcome.remove();
  const turn = el("article", "turn");
  turn.id = `turn-${body.turn}`;
  turn.dataset.turn = body.turn;
  turn.append(el("div", "question", question));
  const result = el("div", "result");
  result.dataset.status = "pending";
  const pending = el("div", "pending");
  pending.dataset.events = body.events;
  pending.append(el("p", "status", "Sending…"), el("pre", "draft"));
  result.append(pending);
  turn.append(result);
  document.getElementById("turns").append(turn);
  form.querySelector("textarea").value = "";
  turn.scrollIntoView({ block: "start" });
  listen(result);
}

function openCitation(link, event) {
  const target = document.querySelector(link.getAttribute("href"));
  if (!target) return;
  event.preventDefault();
  const details = target.closest("details");
  if (details) details.open = true;
  document.querySelectorAll(".source.focus, .population-result.focus").forEach((node) => node.classList.remove("focus"));
  target.classList.add("focus");
  target.scrollIntoView({ block: "center" });
  target.focus({ preventScroll: true });
  history.replaceState({}, "", link.getAttribute("href"));
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("ask");
  if (form) {
    form.addEventListener("submit", (event) => ask(form, event));
    form.querySelector("textarea").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
    });
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a.cite");
    if (link) openCitation(link, event);
  });
  document.querySelectorAll(".result").forEach((result) => listen(result));
  document.querySelectorAll("form[action$='/delete']").forEach((del) =>
    del.addEventListener("submit", (event) => {
      if (!confirm("Delete this conversation? This cannot be undone.")) event.preventDefault();
    }));
});
