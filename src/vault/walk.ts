import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { VaultRagError } from "../errors.js";
import { parseIgnoreRules, type IgnoreRules } from "./ignore-rules.js";
import { templateFolders, type TemplateFolder } from "./templates.js";
import type { VaultFile } from "./types.js";
import { fileTypeOf } from "./attachments/types.js";
import { readSettings } from "../settings.js";

/** Folder names skipped everywhere, besides every dot-folder. */
export const SKIPPED_FOLDERS: readonly string[] = [".obsidian", ".trash", ".git", "node_modules", ".vault-rag"];

/** Name of the optional ignore file (gitignore syntax) at the vault root. */
export const IGNORE_FILE = ".vault-ragignore";

/** What a walk lists besides Markdown notes. */
export interface WalkOptions {
  /** PDFs, Canvas boards and Word documents too (default: the vault's `attachments` setting, on). */
  attachments?: boolean;
}

/**
 * Lists the Markdown files of a vault, and its attachments (PDF, Canvas, Word) unless
 * `attachments` is off, sorted by path.
 *
 * Skips dot-folders, `node_modules`, what `.vault-ragignore` names, and the template folders
 * Obsidian's settings name ({@link templateFolders}); follows symlinks only while
 * they stay inside the vault, and visits each real folder once (so symlink loops end).
 *
 * @example
 * ```ts
 * const files = walkVault("/home/me/notes");
 * files[0].path; // "Daily.md"
 * ```
 */
export function walkVault(root: string, log: Logger = silentLogger, opts: WalkOptions = {}): VaultFile[] {
  const realRoot = fs.realpathSync(assertVaultFolder(root));
  const attachments = opts.attachments ?? readSettings(realRoot).attachments;
  const listed = (name: string) => {
    const type = fileTypeOf(name);
    return type === "note" || (!!type && attachments);
  };
  const rules = loadRules(realRoot, log);
  const ig = rules.ig;
  const out: VaultFile[] = [];
  const visited = new Set<string>([realRoot]);

  // `rel`: the folder's path as the walk reached it; `real`: its real vault-relative path (another
  // when the walk came through a symlinked folder), against which the ignore rules apply too
  const visit = (dirAbs: string, rel: string, real: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      log.warn("note_unreadable", `vault-rag: cannot read folder "${rel || "."}": ${(err as Error).message}`, {
        path: rel,
      });
      return;
    }
    for (const entry of entries) {
      const name = entry.name;
      const childRel = rel ? `${rel}/${name}` : name;
      let childReal = real ? `${real}/${name}` : name;
      const childAbs = path.join(dirAbs, name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = fs.realpathSync(childAbs);
        } catch {
          log.warn("symlink_loop", `vault-rag: skipped broken or looping symlink "${childRel}"`, { path: childRel });
          continue;
        }
        if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
          log.warn("symlink_outside", `vault-rag: skipped symlink "${childRel}" — it points outside the vault`, {
            path: childRel,
          });
          continue;
        }
        const st = fs.statSync(real);
        isDir = st.isDirectory();
        isFile = st.isFile();
        // a link to what the vault leaves out (an ignored draft, .trash/) does not bring it back in
        const target = path.relative(realRoot, real).split(path.sep).join("/");
        childReal = target;
        if (target && whyHidden(target, isDir, rules)) {
          log.warn(
            "symlink_hidden",
            `vault-rag: skipped symlink "${childRel}" — it points to "${target}", which the vault leaves out`,
            {
              path: childRel,
            },
          );
          continue;
        }
        // a link to a note the walk reaches anyway would index it twice (every hit twice)
        if (isFile && name.toLowerCase().endsWith(".md") && target.toLowerCase().endsWith(".md")) {
          log.warn(
            "symlink_duplicate",
            `vault-rag: skipped symlink "${childRel}" — it points to "${target}", which is indexed itself`,
            { path: childRel },
          );
          continue;
        }
        if (isDir) {
          if (visited.has(real)) {
            log.warn(
              "symlink_loop",
              `vault-rag: skipped symlink "${childRel}" — its folder is already part of the vault`,
              { path: childRel },
            );
            continue;
          }
        }
      }
      if (isDir) {
        if (name.startsWith(".") || SKIPPED_FOLDERS.includes(name)) continue;
        if (ig.ignores(childRel + "/") || (childReal !== childRel && ig.ignores(childReal + "/"))) continue;
        if (templateOf(childRel, rules) || (childReal !== childRel && templateOf(childReal, rules))) continue;
        // the folder's real path is known (its parent's and its name, or its link's target): no
        // realpath call per folder
        const realAbs = childReal ? path.join(realRoot, childReal) : realRoot;
        if (visited.has(realAbs)) continue;
        visited.add(realAbs);
        visit(childAbs, childRel, childReal);
      } else if (isFile && listed(name)) {
        if (ig.ignores(childRel) || (childReal !== childRel && ig.ignores(childReal))) continue;
        try {
          const st = fs.statSync(childAbs);
          out.push({ path: childRel, absPath: childAbs, mtime: Math.floor(st.mtimeMs / 1000), size: st.size });
        } catch (err) {
          log.warn("note_unreadable", `vault-rag: cannot stat "${childRel}": ${(err as Error).message}`, {
            path: childRel,
          });
        }
      }
    }
  };
  visit(realRoot, "", "");
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/**
 * Why a walk never reaches a vault-relative path (a folder when `isDir`), or undefined: a dot-folder
 * or skipped folder on its way, or what the ignore file names.
 */
function whyHidden(rel: string, isDir: boolean, rules: WalkRules): string | undefined {
  const { ig } = rules;
  const parts = rel.split("/");
  const folders = isDir ? parts.length : parts.length - 1;
  for (let i = 0; i < folders; i++) {
    const folder = parts.slice(0, i + 1).join("/");
    if (parts[i].startsWith(".") || SKIPPED_FOLDERS.includes(parts[i]))
      return `it is in "${folder}/", a folder vault-rag never indexes`;
    if (ig.ignores(folder + "/")) return `${IGNORE_FILE} keeps "${folder}/" out of the index`;
    const template = templateOf(folder, rules);
    if (template)
      return `"${folder}/" is the templates folder (${template.source} names it), and templates are not indexed`;
  }
  if (!isDir && ig.ignores(rel)) return `${IGNORE_FILE} keeps it out of the index`;
  return undefined;
}

/**
 * Checks that a vault folder exists and is a folder (before anything is created in it); returns its
 * absolute path. A missing path or a file is a `vault_missing` error that names it.
 *
 * @example
 * ```ts
 * assertVaultFolder("~/notes");        // "/home/me/notes"
 * assertVaultFolder("/no/such/folder"); // throws: vault folder "/no/such/folder" does not exist — …
 * ```
 */
export function assertVaultFolder(root: string): string {
  const abs = path.resolve(root);
  let isDir: boolean;
  try {
    isDir = fs.statSync(abs).isDirectory();
  } catch {
    throw new VaultRagError(
      "vault_missing",
      `vault-rag: vault folder "${abs}" does not exist — pass the folder that holds your notes`,
    );
  }
  if (!isDir)
    throw new VaultRagError(
      "vault_missing",
      `vault-rag: vault folder "${abs}" is not a folder — pass the folder that holds your notes, not a file in it`,
    );
  return abs;
}

/**
 * Why {@link walkVault} leaves out a folder of the vault (a vault-relative path), or `undefined`
 * when the folder does not exist or the walk goes into it: a hidden or skipped folder on its way,
 * or `.vault-ragignore`.
 *
 * @example
 * ```ts
 * whyFolderNotWalked("/home/me/notes", "Archive"); // '.vault-ragignore keeps "Archive/" out of the index'
 * whyFolderNotWalked("/home/me/notes", "kitchen"); // undefined
 * ```
 */
export function whyFolderNotWalked(root: string, folder: string): string | undefined {
  const rel = folder.replace(/^\/+|\/+$/g, "");
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(assertVaultFolder(root));
    if (!rel || !fs.statSync(path.join(realRoot, rel)).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return whyHidden(rel, true, loadRules(realRoot, silentLogger));
}

/**
 * Why {@link walkVault} leaves out a file at a vault-relative path, or `undefined` when the folder
 * and ignore rules let it in (a hidden or skipped folder, `.vault-ragignore`, not Markdown).
 *
 * @example
 * ```ts
 * whyNotWalked("/home/me/notes", ".trash/old.md");  // 'it is in ".trash/", a folder vault-rag never indexes'
 * whyNotWalked("/home/me/notes", "kitchen/Bread.md"); // undefined
 * ```
 */
export function whyNotWalked(root: string, rel: string): string | undefined {
  const rules = loadRules(fs.realpathSync(assertVaultFolder(root)), silentLogger);
  const folder = rel.includes("/") ? whyHidden(rel.slice(0, rel.lastIndexOf("/")), true, rules) : undefined;
  if (folder) return folder;
  const type = fileTypeOf(rel);
  if (!type) return "it is not a Markdown note, PDF, Canvas board or Word document";
  if (type !== "note" && !readSettings(fs.realpathSync(root)).attachments)
    return 'the vault\'s settings turn attachments off ("attachments": false)';
  return rules.ig.ignores(rel) ? `${IGNORE_FILE} keeps it out of the index` : undefined;
}

/** What a walk leaves out besides hidden folders: the ignore file's rules and the template folders. */
interface WalkRules {
  ig: IgnoreRules;
  templates: TemplateFolder[];
}

/** The template folder a vault-relative folder is, or undefined. */
function templateOf(folder: string, rules: WalkRules): TemplateFolder | undefined {
  return rules.templates.length ? rules.templates.find((t) => t.folder === folder) : undefined;
}

/** The vault's {@link WalkRules}. */
function loadRules(root: string, log: Logger): WalkRules {
  return { ig: loadIgnore(root, log), templates: templateFolders(root) };
}

/** The vault's ignore rules ({@link parseIgnoreRules}: linear in each path, whatever its lines hold). */
function loadIgnore(root: string, log: Logger): IgnoreRules {
  const file = path.join(root, IGNORE_FILE);
  let text = "";
  if (fs.existsSync(file)) {
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (err) {
      log.warn("ignore_file_invalid", `vault-rag: cannot read ${IGNORE_FILE}: ${(err as Error).message}`, {
        path: IGNORE_FILE,
      });
    }
  }
  return parseIgnoreRules(text);
}
