/** The status line, the index's progress and the empty-index banner, kept up to date while the index changes. */
import { api } from "./api.js";
import { $, plural } from "./dom.js";
import { loadFilters } from "./filters.js";
import { runSearch } from "./search-view.js";
import type { StatusReply } from "./shared/api.js";
import { state } from "./state.js";

let statusTimer: number | undefined;
let wasBusy = false;
/** When the index was last written, as the status said it before: a change means new results. */
let indexedAt: string | null | undefined;
/** How often an idle page under `serve --watch` looks for notes indexed since (ms). */
const WATCH_POLL_MS = 5000;

/** A small progress line while passages still wait for their vectors, or "" when none do. */
function denseLine(s: StatusReply): string {
  const d = s.phases?.dense;
  if (!d || d.state === "complete") return "";
  const [done, total] = d.windows ? [d.windows.done, d.windows.total] : [d.passages, d.of];
  const pct = Math.floor((100 * done) / Math.max(1, total));
  return d.state === "in progress"
    ? ` · ranking by meaning: ${pct}%, indexing continues`
    : ` · ranking by meaning covers ${pct}%: run \`vault-rag index\` for the rest`;
}

/** Reads the status, shows it, and asks again while the index is built or watched; a change to the index reloads the chips and results. */
export async function refreshStatus(): Promise<StatusReply | undefined> {
  let s: StatusReply;
  try {
    s = await api<StatusReply>("/api/status");
  } catch (e) {
    $("status").textContent = (e as Error).message;
    // a page that follows the index (a build under way, or --watch) asks again: one failed ask
    // (the server busy, a moment of restart) must not stop it for good
    clearTimeout(statusTimer);
    if (state.watching || wasBusy) statusTimer = window.setTimeout(refreshStatus, wasBusy ? 1000 : WATCH_POLL_MS);
    return undefined;
  }
  state.vaultName = s.name;
  state.watching = s.watching;
  $("vault-name").textContent = `· ${s.name}`;
  const building = $("indexing");
  if (s.indexing) {
    building.hidden = false;
    const p = $<HTMLProgressElement>("index-progress");
    const { phase, done, total } = s.indexing;
    if (phase === "locked" || !total) p.removeAttribute("value");
    else {
      p.max = total;
      p.value = done;
    }
    const what: Record<string, string> = {
      scan: "finding notes",
      index: "reading notes",
      keyword: "keyword search ready",
      embed: "embedding passages",
      saved: "saving",
    };
    $("indexing-label").textContent =
      phase === "locked"
        ? "The index is being built by another vault-rag process; search works once it is done."
        : `Building the index: ${what[phase] ?? phase}, ${done.toLocaleString()} of ${total.toLocaleString()}`;
  } else building.hidden = true;
  const banner = $("banner");
  if (!s.notes && !s.attachments && !s.indexing) {
    banner.hidden = false;
    banner.textContent = s.watching
      ? "The index is empty: no notes found yet. Add Markdown notes to the vault and they will appear here."
      : "The index is empty. Run `vault-rag index` on this vault, or restart with `vault-rag serve --watch` to build it here.";
  } else if (banner.dataset.kind !== "llm") banner.hidden = true;
  $("status").textContent = s.model
    ? `${plural(s.notes, "note")}${s.attachments ? `, ${plural(s.attachments, "attachment")}` : ""}, ${plural(s.chunks, "passage")} · ${s.model}${s.stale ? ` · ${s.stale} changed since indexing` : ""}${denseLine(s)}`
    : "No index yet.";
  clearTimeout(statusTimer);
  const busy = !!s.indexing || (!s.notes && s.watching) || s.phases?.dense.state === "in progress";
  // the index changed under the page (a build finished, `--watch` took in an edit): the chips and
  // the results shown are taken again, as a reload would
  const changed = wasBusy || (indexedAt !== undefined && s.lastIndexed !== indexedAt);
  indexedAt = s.lastIndexed;
  if (busy) statusTimer = window.setTimeout(refreshStatus, 1000);
  else {
    if (changed) {
      void loadFilters();
      void runSearch();
    }
    if (s.watching) statusTimer = window.setTimeout(refreshStatus, WATCH_POLL_MS);
  }
  wasBusy = busy;
  return s;
}
