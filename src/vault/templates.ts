import fs from "node:fs";
import path from "node:path";

/** A folder of templates the vault's Obsidian settings name, and the settings file that names it. */
export interface TemplateFolder {
  /** Vault-relative, without leading or trailing `/`. */
  folder: string;
  /** The Obsidian settings file that names it (`.obsidian/templates.json`). */
  source: string;
}

// where Obsidian's core Templates plugin and the Templater plugin keep their template folder
const SOURCES = [
  { file: ".obsidian/templates.json", key: "folder" },
  { file: ".obsidian/plugins/templater-obsidian/data.json", key: "templates_folder" },
] as const;

/**
 * The template folders a vault's Obsidian settings name (the core Templates plugin's and
 * Templater's). A template is a note's skeleton (`<% tp.file.title %>`, empty headings), not a note
 * anybody asks about, so a walk leaves these folders out. A settings file that is missing, not JSON,
 * or names no folder (or the vault's root) names none.
 *
 * @example
 * ```ts
 * // .obsidian/templates.json: {"folder": "Templates"}
 * templateFolders("/home/me/notes"); // [{ folder: "Templates", source: ".obsidian/templates.json" }]
 * ```
 */
export function templateFolders(root: string): TemplateFolder[] {
  const out: TemplateFolder[] = [];
  for (const { file, key } of SOURCES) {
    let data: unknown;
    try {
      data = JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));
    } catch {
      continue;
    }
    const value = (data as Record<string, unknown> | null)?.[key];
    if (typeof value !== "string") continue;
    const folder = value
      .replace(/\\/g, "/")
      .replace(/^\/+|\/+$/g, "")
      .trim();
    if (folder && folder !== "." && !out.some((t) => t.folder === folder)) out.push({ folder, source: file });
  }
  return out;
}
