import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "./errors.js";
import { LEAVE_OUT_DEFAULTS, type LeaveOut } from "./vault/queries.js";

/** The vault's settings file, at its root beside `.vault-ragignore`: JSON, every key optional. */
export const SETTINGS_FILE = ".vault-rag.json";

/** A vault's settings, with defaults filled in. */
export interface VaultSettings {
  /**
   * What is left out of every note besides comments: `codeLanguages` adds languages of code blocks
   * to the queries left out (`dataview`, `dataviewjs`, `query`, `tasks`), `headings` names sections
   * left out whole (`"Backlinks"`).
   */
  leaveOut: LeaveOut;
  /**
   * Folders whose notes get their vectors before the rest (`["Projects", "Inbox"]`), in that
   * order; every other note follows, the most recently changed first.
   */
  denseFirst: string[];
  /**
   * The reranker this vault's searches use when neither the request, `--rerank` nor
   * `VAULT_RAG_RERANK` names one: `transformers:<owner>/<name>` or a `/v1/rerank` server's URL (a
   * server is used only when `VAULT_RAG_ALLOW_REMOTE` names it: a file in the vault is no consent).
   */
  rerank?: string;
  /** Whether PDFs, Canvas boards and Word documents are indexed beside the notes (default true). */
  attachments: boolean;
  /** Whether scanned PDF pages are read by OCR, with Debian's `tesseract` and `pdftoppm` (default false). */
  ocr: boolean;
}

/** The settings of a vault without a settings file. */
export const SETTINGS_DEFAULTS: VaultSettings = {
  leaveOut: LEAVE_OUT_DEFAULTS,
  denseFirst: [],
  attachments: true,
  ocr: false,
};

/** Every key a settings file may hold. */
const KNOWN = ["leaveOut", "denseFirst", "rerank", "attachments", "ocr"];

/**
 * Reads a vault's settings file ({@link SETTINGS_FILE}), or the defaults when there is none. A file
 * that is not a JSON object, an unknown key or a value of the wrong type is a `usage` error naming
 * the file and the key.
 *
 * @example
 * ```ts
 * // .vault-rag.json: { "leaveOut": { "codeLanguages": ["chart"], "headings": ["Backlinks"] } }
 * readSettings("/home/me/notes").leaveOut.codeLanguages; // ["dataview", "dataviewjs", "query", "tasks", "chart"]
 * // .vault-rag.json: { "denseFirst": ["Projects/", "Inbox"] }
 * readSettings("/home/me/notes").denseFirst; // ["Projects", "Inbox"]
 * ```
 */
export function readSettings(vault: string): VaultSettings {
  const file = path.join(vault, SETTINGS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return SETTINGS_DEFAULTS;
    throw invalid(file, `cannot be read (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid(file, `is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(data)) throw invalid(file, "must hold a JSON object");
  const settings: VaultSettings = { ...SETTINGS_DEFAULTS };
  for (const key of Object.keys(data)) {
    if (key === "leaveOut") settings.leaveOut = readLeaveOut(file, data[key]);
    else if (key === "denseFirst") settings.denseFirst = readFolders(file, key, data[key]);
    else if (key === "rerank") settings.rerank = readText(file, key, data[key], '"transformers:<owner>/<name>"');
    else if (key === "attachments" || key === "ocr") {
      if (typeof data[key] !== "boolean") throw invalid(file, `"${key}" must be true or false`);
      settings[key] = data[key];
    } else throw invalid(file, `has an unknown setting "${key}" (known: ${KNOWN.join(", ")})`);
  }
  return settings;
}

function readLeaveOut(file: string, value: unknown): LeaveOut {
  if (!isObject(value)) throw invalid(file, `"leaveOut" must be an object with "codeLanguages" and "headings" lists`);
  const out = { ...LEAVE_OUT_DEFAULTS };
  for (const [key, list] of Object.entries(value)) {
    if (key !== "codeLanguages" && key !== "headings")
      throw invalid(file, `"leaveOut" has an unknown key "${key}" (known: codeLanguages, headings)`);
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string" && x.trim()))
      throw invalid(file, `"leaveOut.${key}" must be a list of non-empty strings`);
    out[key] = [...new Set([...LEAVE_OUT_DEFAULTS[key], ...list.map((x: string) => x.trim())])];
  }
  return out;
}

/** A list of vault folders, written as in the vault (`Work/Clients`; a leading `./` or `/` and a trailing `/` are dropped). */
function readFolders(file: string, key: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((x) => typeof x === "string"))
    throw invalid(file, `"${key}" must be a list of folder names such as ["Projects", "Inbox"]`);
  const folders = value.map((x: string) =>
    x
      .trim()
      .replace(/\\/g, "/")
      .replace(/^(\.\/|\/)+/, "")
      .replace(/\/+$/, ""),
  );
  const bad = folders.findIndex((f) => !f || f.split("/").some((part) => part === ".." || part === "."));
  if (bad >= 0) throw invalid(file, `"${key}" names "${value[bad]}", which is no folder inside the vault`);
  return [...new Set(folders)];
}

/** A non-empty string setting, trimmed. */
function readText(file: string, key: string, value: unknown, example: string): string {
  if (typeof value !== "string" || !value.trim())
    throw invalid(file, `"${key}" must be a non-empty string such as ${example}`);
  return value.trim();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(file: string, what: string): VaultRagError {
  return new VaultRagError("usage", `vault-rag: the settings file ${file} ${what} — correct it or remove it`);
}
