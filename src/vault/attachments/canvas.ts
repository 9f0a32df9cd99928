import type { AttachmentPart, Unreadable } from "./types.js";

/** A JSON Canvas 1.0 node, as far as vault-rag reads it. */
interface CanvasNode {
  id?: string;
  type?: string;
  text?: string;
  file?: string;
  label?: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

/** What a board gives: its text cards as parts and the vault files its file cards show. */
export interface CanvasText {
  parts: AttachmentPart[];
  /** The `file` of each file card, in the board's order, each once (vault-relative paths). */
  files: string[];
}

/**
 * Reads an Obsidian Canvas board (`.canvas`, JSON Canvas 1.0): each text card is a part of its own
 * (cut into passages as a note is, never joined to another card), under the label of the smallest
 * group that holds it; each file card names a file of the vault, which the board links to.
 * Returns why not when the file is not a JSON Canvas (`damaged`, with the parser's message).
 *
 * @example
 * ```ts
 * readCanvas('{"nodes":[{"id":"a","type":"text","text":"Sow tomatoes in March","x":0,"y":0,"width":9,"height":9}]}');
 * // { parts: [{ trail: [], text: "Sow tomatoes in March" }], files: [] }
 * ```
 */
export function readCanvas(json: string): CanvasText | Unreadable {
  let data: unknown;
  try {
    data = JSON.parse(json.replace(/^\uFEFF/, ""));
  } catch (err) {
    return { reason: "damaged", detail: (err as Error).message };
  }
  const nodes = (data as { nodes?: unknown })?.nodes;
  if (typeof data !== "object" || data === null || (nodes !== undefined && !Array.isArray(nodes)))
    return { reason: "damaged", detail: "it is not a JSON Canvas board (no list of nodes)" };
  const list = ((nodes ?? []) as CanvasNode[]).filter((n) => typeof n === "object" && n !== null);
  const groups = list.filter((n) => n.type === "group" && typeof n.label === "string" && n.label.trim());
  const parts: AttachmentPart[] = [];
  const files: string[] = [];
  for (const n of list) {
    if (n.type === "text" && typeof n.text === "string" && n.text.trim()) {
      const group = smallestGroup(groups, n);
      parts.push({ trail: group ? [group.label!.trim()] : [], text: n.text.replace(/\r\n?/g, "\n").trim() });
    } else if (n.type === "file" && typeof n.file === "string" && n.file.trim() && !files.includes(n.file.trim()))
      files.push(n.file.trim());
  }
  return { parts, files };
}

/** The smallest group whose box holds a card's box, if any. */
function smallestGroup(groups: CanvasNode[], n: CanvasNode): CanvasNode | undefined {
  const box = (g: CanvasNode) => ({ x: g.x ?? 0, y: g.y ?? 0, w: g.width ?? 0, h: g.height ?? 0 });
  const c = box(n);
  let best: CanvasNode | undefined;
  for (const g of groups) {
    const b = box(g);
    const holds = c.x >= b.x && c.y >= b.y && c.x + c.w <= b.x + b.w && c.y + c.h <= b.y + b.h;
    if (holds && (!best || b.w * b.h < box(best).w * box(best).h)) best = g;
  }
  return best;
}
