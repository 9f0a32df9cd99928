/**
 * The web app of `vault-rag serve`: one page over the HTTP API, no framework and nothing fetched
 * but the API itself. Built by `tsc -p web/tsconfig.json` into `dist/web/app.js`.
 */

interface Hit {
  id: string;
  path: string;
  title: string;
  section: string;
  label: string;
  text: string;
  score: number;
  start_line: number;
  end_line: number;
  tags: string[];
  folder: string;
}
interface Passage {
  section: string;
  start_line: number;
  text: string;
}
interface Related {
  path: string;
  title: string;
  score: number;
  linked: boolean;
  source: Passage;
  target: Passage;
}
interface Source {
  n: number;
  label: string;
  path: string;
  start_line: number;
  end_line: number;
}
interface Status {
  name: string;
  notes: number;
  chunks: number;
  model: string | null;
  stale: number;
  llm: string;
  watching: boolean;
  indexing: { phase: string; done: number; total: number } | null;
  lastIndexed: string | null;
  /** Indexing's two phases: searchable by keyword first, then ranked by meaning as vectors land. */
  phases?: {
    keyword: string;
    dense: { state: string; passages: number; of: number; windows?: { done: number; total: number } };
  };
}

/** A small progress line while passages still wait for their vectors, or "" when none do. */
function denseLine(s: Status): string {
  const d = s.phases?.dense;
  if (!d || d.state === "complete") return "";
  const [done, total] = d.windows ? [d.windows.done, d.windows.total] : [d.passages, d.of];
  const pct = Math.floor((100 * done) / Math.max(1, total));
  return d.state === "in progress"
    ? ` · ranking by meaning: ${pct}%, indexing continues`
    : ` · ranking by meaning covers ${pct}%: run \`vault-rag index\` for the rest`;
}
interface ApiError {
  error: string;
  code: string;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children.map((c) => (typeof c === "string" ? visibleBidi(c) : c)));
  return e;
};

/**
 * Bidi overrides and isolates written as escapes, as the CLI prints them (printable in
 * src/cli/printable.ts): a file name "\u202eRTL.md" would show the rest of its hit backwards.
 */
function visibleBidi(s: string): string {
  return s.replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

let vaultName = "";
/** Whether the server keeps the index fresh itself (`serve --watch`), from the last status. */
let watching = false;
// folder: undefined for any folder; "" is the vault's root, a folder like the others
const filters: { tags: Set<string>; folder: string | undefined; since: string } = {
  tags: new Set<string>(),
  folder: undefined,
  since: "",
};
let selected: string | undefined;

/**
 * The token of a server bound beyond loopback, from the printed URL (`/?token=…`), which it is then
 * taken out of. It is kept in this tab's sessionStorage, which only this origin (scheme, host and
 * port) reads, and sent as a bearer header: never as a cookie, which every port of the host gets.
 */
const token = ((): string | undefined => {
  const at = new URLSearchParams(location.search);
  const given = at.get("token") ?? undefined;
  if (given !== undefined) {
    at.delete("token");
    history.replaceState(null, "", `${location.pathname}${at.toString() ? `?${at}` : ""}${location.hash}`);
  }
  try {
    if (given !== undefined) sessionStorage.setItem("vault-rag-token", given);
    return sessionStorage.getItem("vault-rag-token") ?? undefined;
  } catch {
    return given; // storage refused (a browser's setting): this page's life long
  }
})();
/** Headers with the token, when there is one. */
const withToken = (h: Record<string, string>) => (token ? { ...h, authorization: `Bearer ${token}` } : h);

/** Calls the API; a JSON error becomes an Error carrying the server's message and code. */
async function api<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: withToken({ accept: "application/json" }) });
  const body = await res.json().catch(() => ({ error: `vault-rag: ${res.status} ${res.statusText}`, code: "http" }));
  if (!res.ok) throw Object.assign(new Error((body as ApiError).error), { code: (body as ApiError).code });
  return body as T;
}

const obsidian = (path: string) =>
  `obsidian://open?vault=${encodeURIComponent(vaultName)}&file=${encodeURIComponent(path.replace(/\.md$/, ""))}`;

// ---- highlighting ---------------------------------------------------------------------------------

const STOP = new Set(
  "a an and are as at be by do does for from how i in is it of on or the to was what when where which who why with".split(
    " ",
  ),
);

/** Longest word a highlight looks for, and most words: the CLI's limits (src/cli/color.ts). */
const MARK_MAX_WORD = 64;
const MARK_MAX_WORDS = 64;

/** The words of a query worth marking in a snippet. */
function terms(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? [])]
    .filter((t) => t.length > 1 && t.length <= MARK_MAX_WORD && !STOP.has(t))
    .slice(0, MARK_MAX_WORDS);
}

/** A count and its noun: "1 passage", "12 passages". */
const plural = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// HTML a reader does not see, as the CLI's snippets leave it out (src/cli/output.ts)
const HTML_TAG =
  /<[A-Za-z][\w.:-]*\s[^<>=]*=[^<>]*>|<\/[A-Za-z][\w.:-]*\s*>|<(?:div|span|br|hr|p|sup|sub|details|summary|pre|ul|ol|li|table|thead|tbody|tr|td|th)\s*\/?>/gi;
// inline formatting tags, gone without a space: <kbd>Ctrl</kbd>+<kbd>P</kbd> reads Ctrl+P
const INLINE_TAG = /<\/?(?:code|kbd|b|i|em|strong|u|s|mark|small)\s*>/gi;

/** A Markdown mark a snippet leaves out, and what stands in its place (text, or the parts it keeps). */
type Mark = [RegExp, string | ((match: string, ...groups: string[]) => string)];

// Markdown marks a reader does not see, as the CLI's snippets leave them out (MARKS in
// src/cli/output.ts; test/cli/output.test.ts checks the two lists are the same, since this page is
// one script without imports and they are written here again)
const MARKS: Mark[] = [
  [/<!--[\s\S]{0,2000}?-->/g, " "],
  [/!\[\[[^\]\n]{0,300}\]\]/g, " "],
  [/!\[([^\]\n]{0,300})\]\((?:[^()\n]|\([^()\n]{0,300}\)){0,1000}\)/g, "$1"],
  [/\[\[[^\]|\n]{0,300}\|([^\]\n]{0,300})\]\]/g, "$1"],
  [/\[\[([^\]\n]{0,300})\]\]/g, "$1"],
  [/\[([^\]\n]{0,300})\]\((?:[^()\s]|\([^()\s]{0,300}\)){0,1000}(?:\s+"[^"\n]{0,300}")?\)/g, "$1"],
  [/\*\*([^*\n]{1,300})\*\*/g, "$1"],
  [/(^|\s)__([^_\n]{1,300})__(?=\s|$|[.,;:!?])/gm, "$1$2"],
  [/^[ \t]*>[ \t>]*\[!([\w-]+)\][-+]?/gm, "$1:"],
  [/^[ \t]*>[ \t>]*/gm, ""],
  [/^[ \t]{0,3}#{1,6}[ \t]+/gm, ""],
  [/^[ \t]*:{3,}[ \t]*$/gm, ""],
  [/^[ \t]*:{3,}[ \t]*([\w-]+)[ \t]*/gm, "$1: "],
  [/^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?$/gm, ""],
  [
    /^[ \t]*\|(.*)\|[ \t]*$/gm,
    (_: string, cells: string) =>
      cells
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, "|"))
        .filter(Boolean)
        .join(" · "),
  ],
  [/\\([!-/:-@[-`{-~])/g, "$1"],
];

/** A text with `rewrite` applied outside fenced code blocks, which stay as written (the CLI's outsideCode, word for word). */
function outsideCode(text: string, rewrite: (prose: string) => string): string {
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const m = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (m && !(m[1][0] === "`" && line.slice(m[0].length).includes("`"))) {
        out.push(rewrite(prose.join("\n")));
        prose = [];
        fence = m[1];
        out.push(line);
      } else prose.push(line);
    } else {
      out.push(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && !line.slice(m[0].length).trim())
        fence = undefined;
    }
  }
  out.push(rewrite(prose.join("\n")));
  return out.join("\n");
}

/** A chunk's text on one line as the rendered note reads: no heading lines, HTML tags or Markdown marks (a fenced code block as written); HTML comments left out unless `comments` keeps their words (the CLI's flatBody). */
function flatText(text: string, comments: boolean): string {
  const t = outsideCode(text.slice(0, 20_000).replace(/^(\s*#{1,6}\s[^\n]*(\n+|$))+/, ""), (prose) => {
    let p = prose.replace(INLINE_TAG, "").replace(HTML_TAG, " ");
    if (comments) p = p.replace(/<!--([\s\S]{0,2000}?)-->/g, " $1 ");
    for (const [mark, by] of MARKS) p = p.replace(mark, by as string);
    return p;
  });
  // a passage of embeds alone reads as what it embeds (as the CLI's snippets do), not as a blank line
  return (
    t.replace(/\s+/g, " ").trim() ||
    [...text.slice(0, 20_000).matchAll(/!\[\[([^[\]|\n]{1,300})(?:\|[^\]\n]{0,300})?\]\]/g)]
      .map((m) => m[1].trim())
      .join(" ")
  );
}

/** A one-line snippet of a chunk as the rendered note reads, starting near the first matched term; a comment's words show when the terms match only there. */
function snippetOf(text: string, ts: string[], width = 220): string {
  const re = new RegExp(ts.map(escapeRe).join("|"), "gi");
  let body = flatText(text, false);
  if (ts.length && body.search(re) < 0 && text.includes("<!--")) {
    const open = flatText(text, true);
    if (open.search(re) >= 0) body = open;
  }
  if (!ts.length || body.length <= width) return body.length > width ? body.slice(0, width - 1) + "…" : body;
  // the window that holds the most distinct terms, from its first (the earliest of equals), as the CLI's snippets do
  const found: { at: number; term: string }[] = [];
  for (let m = re.exec(body); m && m[0] && found.length < 500; m = re.exec(body))
    found.push({ at: m.index, term: m[0].toLowerCase() });
  let at = -1;
  let most = 0;
  for (let i = 0; i < found.length; i++) {
    const seen = new Set<string>();
    for (let j = i; j < found.length && found[j].at < found[i].at + width * 0.7; j++) seen.add(found[j].term);
    if (seen.size > most) [most, at] = [seen.size, found[i].at];
  }
  const start = at > width * 0.5 ? Math.max(0, body.lastIndexOf(" ", at - 40) + 1) : 0;
  const cut = body.slice(start, start + width);
  return (start ? "…" : "") + cut + (start + width < body.length ? "…" : "");
}

/** Text with the terms wrapped in `<mark>`, built as DOM nodes (never as HTML). */
function marked(text: string, ts: string[]): DocumentFragment {
  const f = document.createDocumentFragment();
  if (!ts.length) {
    f.append(text);
    return f;
  }
  const re = new RegExp(`(${ts.map(escapeRe).join("|")})`, "gi");
  let last = 0;
  for (const m of text.matchAll(re)) {
    f.append(text.slice(last, m.index), el("mark", {}, m[0]));
    last = m.index! + m[0].length;
  }
  f.append(text.slice(last));
  return f;
}

// ---- status ---------------------------------------------------------------------------------------

let statusTimer: number | undefined;
let wasBusy = false;
/** When the index was last written, as the status said it before: a change means new results. */
let indexedAt: string | null | undefined;
/** How often an idle page under `serve --watch` looks for notes indexed since (ms). */
const WATCH_POLL_MS = 5000;

async function refreshStatus(): Promise<Status | undefined> {
  let s: Status;
  try {
    s = await api<Status>("/api/status");
  } catch (e) {
    $("status").textContent = (e as Error).message;
    // a page that follows the index (a build under way, or --watch) asks again: one failed ask
    // (the server busy, a moment of restart) must not stop it for good
    clearTimeout(statusTimer);
    if (watching || wasBusy) statusTimer = window.setTimeout(refreshStatus, wasBusy ? 1000 : WATCH_POLL_MS);
    return undefined;
  }
  vaultName = s.name;
  watching = s.watching;
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
  if (!s.notes && !s.indexing) {
    banner.hidden = false;
    banner.textContent = s.watching
      ? "The index is empty: no notes found yet. Add Markdown notes to the vault and they will appear here."
      : "The index is empty. Run `vault-rag index` on this vault, or restart with `vault-rag serve --watch` to build it here.";
  } else if (banner.dataset.kind !== "llm") banner.hidden = true;
  $("status").textContent = s.model
    ? `${plural(s.notes, "note")}, ${plural(s.chunks, "passage")} · ${s.model}${s.stale ? ` · ${s.stale} changed since indexing` : ""}${denseLine(s)}`
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

// ---- filters --------------------------------------------------------------------------------------

function chip(label: string, pressed: boolean, onClick: () => void, title?: string): HTMLButtonElement {
  const b = el("button", { type: "button", class: "chip", "aria-pressed": String(pressed) }, label);
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

let allTags: { tag: string; notes: number }[] = [];
let allFolders: { folder: string; notes: number }[] = [];
const SHOWN = 10;

/** Fills the chips from the vault's own tags and folders (again once an index being built is done). */
async function loadFilters(): Promise<void> {
  [allTags, allFolders] = await Promise.all([
    api<{ tag: string; notes: number }[]>("/api/tags").catch(() => []),
    api<{ folder: string; notes: number }[]>("/api/folders").catch(() => []),
  ]);
  renderFilters();
}

function renderFilters(): void {
  const tagBox = $("tag-chips");
  tagBox.replaceChildren();
  const shownTags = allTags.slice(0, SHOWN).map((t) => t.tag);
  for (const t of filters.tags) if (!shownTags.includes(t)) shownTags.push(t);
  for (const t of shownTags)
    tagBox.append(
      chip(`#${t}`, filters.tags.has(t), () => {
        if (filters.tags.has(t)) filters.tags.delete(t);
        else filters.tags.add(t);
        changed();
      }),
    );
  if (allTags.length > SHOWN)
    tagBox.append(
      moreSelect(
        "More tags",
        allTags.slice(SHOWN).map((t) => [t.tag, `#${t.tag} (${t.notes})`]),
        (v) => (filters.tags.add(v), changed()),
      ),
    );

  const folderBox = $("folder-chips");
  folderBox.replaceChildren();
  const shownFolders = allFolders
    .slice()
    .sort((a, b) => b.notes - a.notes)
    .slice(0, SHOWN)
    .map((f) => f.folder);
  if (filters.folder !== undefined && !shownFolders.includes(filters.folder)) shownFolders.push(filters.folder);
  for (const f of shownFolders)
    folderBox.append(
      chip(f || "(vault root)", filters.folder === f, () => {
        filters.folder = filters.folder === f ? undefined : f;
        changed();
      }),
    );
  if (allFolders.length > SHOWN)
    folderBox.append(
      moreSelect(
        "More folders",
        allFolders.map((f) => [`/${f.folder}`, `${f.folder || "(vault root)"} (${f.notes})`]),
        // values start with "/" so that the root's ("") is not the placeholder's
        (v) => ((filters.folder = v.slice(1)), changed()),
      ),
    );

  const dateBox = $("date-chips");
  dateBox.replaceChildren();
  for (const [label, since] of [
    ["Any time", ""],
    ["Past week", "7d"],
    ["Past month", "30d"],
    ["Past year", "1y"],
  ])
    dateBox.append(
      chip(label, filters.since === since, () => {
        filters.since = since;
        changed();
      }),
    );
}

function moreSelect(label: string, options: [string, string][], pick: (v: string) => void): HTMLSelectElement {
  const s = el("select", { "aria-label": label }, el("option", { value: "" }, `${label}…`));
  for (const [value, text] of options) s.append(el("option", { value }, text));
  s.addEventListener("change", () => s.value !== "" && pick(s.value));
  return s;
}

function filterParams(p: URLSearchParams): URLSearchParams {
  for (const t of filters.tags) p.append("tag", t);
  if (filters.folder !== undefined) p.set("folder", filters.folder);
  if (filters.since) p.set("since", filters.since);
  return p;
}

function changed(): void {
  renderFilters();
  void runSearch();
}

// ---- search ---------------------------------------------------------------------------------------

let searchSeq = 0;
let debounce: number | undefined;

async function runSearch(): Promise<void> {
  const q = $<HTMLInputElement>("q").value.trim();
  const state = $("result-state");
  const list = $("hits");
  const seq = ++searchSeq;
  // the address holds the search (a reload or a shared link shows it again); the hash, a source's
  // place, is kept
  history.replaceState(
    null,
    "",
    `${location.pathname}${q ? `?${filterParams(new URLSearchParams({ q }))}` : ""}${location.hash}`,
  );
  if (!q) {
    list.replaceChildren();
    state.textContent = "";
    return;
  }
  state.textContent = "Searching…";
  let r: {
    hits: Hit[];
    reason?: string;
    hints?: string[];
    notice?: string;
    expansion?: { phrases: string[]; weight: number };
    stale?: { changed: string[]; deleted: string[] };
  };
  try {
    r = await api(`/api/search?${filterParams(new URLSearchParams({ q, top_k: "12" }))}`);
  } catch (e) {
    if (seq !== searchSeq) return;
    list.replaceChildren();
    state.textContent = (e as Error).message;
    return;
  }
  if (seq !== searchSeq) return;
  // the synonyms the search also ranked by are highlighted too, and named: a hit that says
  // "holiday" for a question about a vacation should not look like a mistake
  const synonyms = r.expansion?.phrases ?? [];
  const ts = [...terms(q), ...synonyms.flatMap((p) => terms(p))];
  // a hit from a note edited or deleted since the last index shows text the note no longer holds
  const changedNotes = new Set(r.stale?.changed ?? []);
  const deletedNotes = new Set(r.stale?.deleted ?? []);
  const staleOf = (p: string) => (deletedNotes.has(p) ? "deleted" : changedNotes.has(p) ? "changed" : undefined);
  list.replaceChildren(...r.hits.map((h, i) => hitItem(h, i, ts, staleOf(h.path))));
  const also = synonyms.length
    ? `, also matching ${synonyms
        .slice(0, 5)
        .map((p) => `“${p}”`)
        .join(", ")}${synonyms.length > 5 ? ` and ${synonyms.length - 5} more` : ""}`
    : "";
  const shown = r.hits.length
    ? `${plural(r.hits.length, "passage")}${also}`
    : // and what may fix it: a folder in another case, a tag no note has, a range that misses every note
      [`No results for “${q}”${r.reason ? `: ${r.reason}` : ""}.`, ...(r.hints ?? [])].join(" ");
  // a question the model could not read was ranked by its words alone: say so, as the CLI does
  const notes = [r.notice?.replace(/^./, (c) => c.toUpperCase()), staleLine(changedNotes.size, deletedNotes.size)];
  state.textContent = [shown, ...notes.filter(Boolean)].join(" — ");
}

/** What the state line says of hits from notes changed or deleted since the last index, if any. */
function staleLine(changed: number, deleted: number): string | undefined {
  if (!changed && !deleted) return undefined;
  const parts = [
    changed ? `${plural(changed, "note")} changed` : "",
    deleted ? `${plural(deleted, "note")} deleted` : "",
  ].filter(Boolean);
  const fix = watching ? "the index is refreshed as notes change" : "run vault-rag index to refresh";
  return `${parts.join(" and ")} since the last index, marked below (${fix})`;
}

function hitItem(h: Hit, i: number, ts: string[], stale?: "changed" | "deleted"): HTMLLIElement {
  const open = el("a", {
    href: `#${encodeURIComponent(h.path)}`,
    class: "hit-link",
    "data-path": h.path,
    "data-index": String(i),
  });
  open.append(el("span", { class: "crumb" }, h.label));
  open.addEventListener("click", (ev) => {
    ev.preventDefault();
    void selectNote(h.path, h.title);
  });
  return el(
    "li",
    { class: "hit" },
    open,
    el("p", { class: "snippet" }, marked(snippetOf(h.text, ts), ts)),
    el(
      "p",
      { class: "meta" },
      el("code", {}, `${h.path}:${h.start_line}`),
      " ",
      el("a", { href: obsidian(h.path), class: "obsidian" }, "Open in Obsidian"),
      ...(stale
        ? [el("span", { class: "stale" }, stale === "deleted" ? "deleted since indexed" : "changed since indexed")]
        : []),
      ...h.tags.slice(0, 4).map((t) => el("span", { class: "tag" }, `#${t}`)),
    ),
  );
}

// ---- note and related -----------------------------------------------------------------------------

let relatedSeq = 0;

async function selectNote(path: string, title?: string): Promise<void> {
  selected = path;
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".hit-link"))
    a.setAttribute("aria-current", String(a.dataset.path === path));
  const panel = $("note-panel");
  panel.hidden = false;
  // in a narrow window the note opens below the hits: brought into view, or opening looks like nothing
  if (panel.getBoundingClientRect().top > window.innerHeight) panel.scrollIntoView({ block: "start" });
  $("note-path").textContent = visibleBidi(path);
  $<HTMLAnchorElement>("note-open").href = obsidian(path);
  $("note-title").textContent = visibleBidi(title ?? path.replace(/^.*\//, "").replace(/\.md$/, ""));
  $("note-text").textContent = "";
  api<{ path: string; text: string }>(`/api/note?${new URLSearchParams({ path })}`).then(
    (n) => selected === path && ($("note-text").textContent = n.text),
    (e: Error) => selected === path && ($("note-text").textContent = e.message),
  );
  await loadRelated();
}

async function loadRelated(): Promise<void> {
  if (!selected) return;
  const seq = ++relatedSeq;
  const path = selected;
  const state = $("related-state");
  const list = $("related-list");
  state.textContent = "Finding related notes…";
  const p = new URLSearchParams({ path, k: "6" });
  if ($<HTMLInputElement>("unlinked").checked) p.set("unlinked_only", "true");
  let r: { related: Related[]; reason?: string };
  try {
    r = await api(`/api/related?${p}`);
  } catch (e) {
    if (seq === relatedSeq) {
      list.replaceChildren();
      state.textContent = (e as Error).message;
    }
    return;
  }
  if (seq !== relatedSeq) return;
  state.textContent = r.related.length ? "" : `No related notes: ${r.reason ?? "none found"}.`;
  list.replaceChildren(
    ...r.related.map((n) => {
      const go = el("a", { href: `#${encodeURIComponent(n.path)}`, class: "related-link" }, n.title);
      go.addEventListener("click", (ev) => {
        ev.preventDefault();
        void selectNote(n.path, n.title);
      });
      return el(
        "li",
        {},
        go,
        " ",
        el("span", { class: "score", title: "similarity of the best pair of passages" }, n.score.toFixed(2)),
        n.linked ? el("span", { class: "badge" }, "linked") : "",
        el(
          "p",
          { class: "meta" },
          el("code", {}, `${n.path}:${n.target.start_line}`),
          " ",
          el("a", { href: obsidian(n.path), class: "obsidian" }, "Open in Obsidian"),
        ),
        el(
          "div",
          { class: "pair" },
          el(
            "p",
            {},
            el("strong", {}, "This note: "),
            el("span", { class: "crumb" }, n.source.section),
            " — ",
            snippetOf(n.source.text, [], 140),
          ),
          el(
            "p",
            {},
            el("strong", {}, "That note: "),
            el("span", { class: "crumb" }, n.target.section),
            " — ",
            snippetOf(n.target.text, [], 140),
          ),
        ),
      );
    }),
  );
}

// ---- ask ------------------------------------------------------------------------------------------

let asking: AbortController | undefined;

/** Renders the answer so far, with each valid `[n]` a link to its source. */
function renderAnswer(text: string, count: number): void {
  const box = $("answer");
  const f = document.createDocumentFragment();
  let last = 0;
  // [1] and [1, 3], as the citations are read (checkCitations): each number links to its source, and
  // one that names no source given is flagged, as the CLI warns of it
  for (const m of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    f.append(text.slice(last, m.index));
    const ns = m[1].split(/\s*,\s*/).map(Number);
    const one = (n: number, shown: string) =>
      n >= 1 && n <= count
        ? el("a", { href: `#source-${n}`, class: "cite" }, shown)
        : el("mark", { class: "cite-invalid", title: `no source [${n}] was given` }, shown);
    if (ns.length === 1) f.append(one(ns[0], m[0]));
    else {
      f.append("[");
      ns.forEach((n, i) => f.append(...(i ? [", "] : []), one(n, String(n))));
      f.append("]");
    }
    last = m.index! + m[0].length;
  }
  f.append(text.slice(last));
  box.replaceChildren(f);
}

async function ask(question: string): Promise<void> {
  asking?.abort();
  const ctrl = (asking = new AbortController());
  const state = $("ask-state");
  const sources = $("sources");
  const banner = $("banner");
  state.textContent = "Finding sources…";
  $("answer").replaceChildren();
  sources.replaceChildren();
  $("sources-title").hidden = true;
  const body: Record<string, unknown> = { question };
  if (filters.tags.size) body.tags = [...filters.tags];
  if (filters.folder !== undefined) body.folder = filters.folder;
  if (filters.since) body.since = filters.since;
  let res: Response;
  try {
    res = await fetch("/api/ask", {
      method: "POST",
      headers: withToken({ "content-type": "application/json" }),
      body: JSON.stringify(body),
      signal: ctrl.signal,
    });
  } catch (e) {
    // a newer question took over before this one's answer began: its state stands
    if (!ctrl.signal.aborted) state.textContent = `vault-rag: the server cannot be reached (${(e as Error).message})`;
    return;
  }
  if (!res.ok || !res.body) {
    const e = (await res.json().catch(() => ({ error: res.statusText }))) as ApiError;
    state.textContent = e.error;
    return;
  }
  let text = "";
  let count = 0;
  let ended = false; // a done or error event came: anything else is an answer cut off
  const cutOff = (why: string) =>
    (state.textContent = `vault-rag: the answer stopped before it finished (${why})${text ? " — what is shown is its start" : ""}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch (e) {
      if (!ctrl.signal.aborted) cutOff(`the connection to the server was lost: ${(e as Error).message}`);
      return; // else a newer question took over
    }
    if (chunk.done) {
      if (!ended && !ctrl.signal.aborted) cutOff("the server closed the stream");
      break;
    }
    buf += chunk.value.replace(/\r\n/g, "\n");
    let cut: number;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      const payload = JSON.parse(data.join("\n") || "null");
      if (event === "sources") {
        const list = payload as Source[];
        count = list.length;
        $("sources-title").hidden = !count;
        sources.replaceChildren(
          ...list.map((s) =>
            el(
              "li",
              { id: `source-${s.n}`, tabindex: "-1" },
              el("strong", {}, `[${s.n}] `),
              el("span", { class: "crumb" }, s.label),
              " ",
              el("code", {}, `${s.path}:${s.start_line}-${s.end_line}`),
              " ",
              el("a", { href: obsidian(s.path), class: "obsidian" }, "Open in Obsidian"),
            ),
          ),
        );
        state.textContent = count ? "Answering…" : "";
      } else if (event === "token") {
        text += (payload as { text: string }).text;
        renderAnswer(text, count);
      } else if (event === "done") {
        ended = true;
        const done = payload as { answer: string; invalid?: number[]; reason?: string; hints?: string[] };
        renderAnswer(done.answer, count);
        state.textContent = done.invalid?.length
          ? `The answer cites ${done.invalid.map((n) => `[${n}]`).join(", ")}, but only ${count} source${count === 1 ? " was" : "s were"} given.`
          : // nothing found: why, and what may fix it
            [done.reason ? `No sources: ${done.reason}.` : "", ...(done.hints ?? [])].filter(Boolean).join(" ");
        if (banner.dataset.kind === "llm") {
          banner.hidden = true;
          delete banner.dataset.kind;
        }
      } else if (event === "error") {
        ended = true;
        const e = payload as ApiError;
        state.textContent = e.error;
        if (e.code === "llm_failed") {
          banner.hidden = false;
          banner.dataset.kind = "llm";
          banner.textContent = `The language model cannot be reached, so Ask cannot answer; search and related notes still work. ${e.error}`;
        }
      }
    }
  }
}

// ---- tabs and keyboard ----------------------------------------------------------------------------

function showTab(which: "search" | "ask", focus = true): void {
  for (const t of ["search", "ask"] as const) {
    const on = t === which;
    $(`tab-${t}`).setAttribute("aria-selected", String(on));
    $(`tab-${t}`).tabIndex = on ? 0 : -1;
    $(`view-${t}`).hidden = !on;
  }
  if (focus) $(which === "search" ? "q" : "question").focus();
}

function hitLinks(): HTMLAnchorElement[] {
  return [...document.querySelectorAll<HTMLAnchorElement>("#hits .hit-link")];
}

document.addEventListener("keydown", (ev) => {
  const target = ev.target as HTMLElement;
  const typing = target.matches("input, textarea, select");
  if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey) {
    ev.preventDefault();
    showTab("search");
    return;
  }
  if (ev.key === "Escape" && !$("view-search").hidden) {
    $("q").focus();
    return;
  }
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  const links = hitLinks();
  if (!links.length || $("view-search").hidden) return;
  const at = links.indexOf(target as HTMLAnchorElement);
  if (target.id === "q" && ev.key === "ArrowDown") {
    ev.preventDefault();
    links[0].focus();
  } else if (at >= 0) {
    ev.preventDefault();
    if (ev.key === "ArrowUp" && at === 0) $("q").focus();
    else links[Math.max(0, Math.min(links.length - 1, at + (ev.key === "ArrowDown" ? 1 : -1)))].focus();
  }
});

window.addEventListener("DOMContentLoaded", async () => {
  $("tab-search").addEventListener("click", () => showTab("search"));
  $("tab-ask").addEventListener("click", () => showTab("ask"));
  for (const id of ["tab-search", "tab-ask"])
    $(id).addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        ev.preventDefault();
        const to = id === "tab-search" ? "ask" : "search";
        showTab(to, false);
        $(`tab-${to}`).focus();
      }
    });
  const q = $<HTMLInputElement>("q");
  q.addEventListener("input", () => {
    clearTimeout(debounce);
    debounce = window.setTimeout(runSearch, 200);
  });
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    clearTimeout(debounce);
    void runSearch();
  });
  $("ask-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const question = $<HTMLInputElement>("question").value.trim();
    if (question) void ask(question);
  });
  $("unlinked").addEventListener("change", () => void loadRelated());
  await refreshStatus();
  // a search in the address (`/?q=sourdough&tag=baking`, as the page writes it) is run at once
  const at = new URLSearchParams(location.search);
  // tags as the index keeps them, lowercase and without "#": `?tag=Pico` presses the #pico chip
  // (no second chip, "#Pico", beside it)
  for (const t of at.getAll("tag")) filters.tags.add(t.trim().replace(/^#/, "").toLowerCase());
  if (at.has("folder")) filters.folder = at.get("folder")!;
  filters.since = at.get("since") ?? "";
  await loadFilters();
  q.value = at.get("q") ?? "";
  if (q.value) void runSearch();
  q.focus();
});
