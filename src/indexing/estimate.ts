import { chunkNote, type ChunkOptions } from "../chunk/index.js";
import { passageWindows, type WindowOptions } from "../embed/index.js";
import { silentLogger } from "../log.js";
import { hashText, readVaultFile, type VaultFile } from "../vault/index.js";

/** How many of the notes to do are read ahead to estimate a run's work (all of them when fewer). */
export const SAMPLE_NOTES = 200;

/** The work found in one note of a sample of the notes to do. */
export interface SampledNote {
  /** The note's place in the list of notes to do. */
  at: number;
  /** Chunks it holds, to be saved. */
  chunks: number;
  /** Windows the model would embed for it: new texts, not found in a cache. */
  windows: number;
}

/** The work found in a sample of the notes to do, note by note in the order of the list. */
export type WorkSample = SampledNote[];

/** What {@link sampleWork} needs to know of the run. */
export interface SampleContext {
  /** The index's notes by path (a note whose content hash is known is not embedded). */
  known: Map<string, { hash: string }>;
  /** The chunker changed since the index was built: every note is chunked again. */
  rechunk?: boolean;
  chunk?: ChunkOptions;
  /** The model's window, when passages longer than it are read as several windows. */
  windowing?: WindowOptions;
  /** Of these window hashes, those whose vector a cache holds. */
  cached(hashes: string[]): Promise<Set<string>>;
  /** Stops the sample (the run ended first). */
  signal?: AbortSignal;
  size?: number;
}

/**
 * Reads a sample of the notes to do, spread evenly over the list (the indexer's order is fixed by
 * each path's hash, so this is a fair sample of the vault), and counts the chunks and windows a run
 * would make of them, as the indexer cuts them. The process is yielded every few notes: the first
 * batch is embedded meanwhile.
 *
 * @example
 * ```ts
 * const s = await sampleWork(todo, { known, cached: async () => new Set() });
 * const windows = Math.round((s.reduce((n, x) => n + x.windows, 0) / s.length) * todo.length);
 * ```
 */
export async function sampleWork(todo: VaultFile[], ctx: SampleContext): Promise<WorkSample> {
  const size = Math.min(todo.length, ctx.size ?? SAMPLE_NOTES);
  const read: { at: number; chunks: number; hashes: Set<string> }[] = [];
  for (let i = 0; i < size; i++) {
    if (i % 8 === 0) await new Promise((r) => setImmediate(r));
    if (ctx.signal?.aborted) break;
    const at = Math.floor(((i + 0.5) * todo.length) / size);
    const one = { at, chunks: 0, hashes: new Set<string>() };
    read.push(one);
    const { note } = readVaultFile(todo[at], silentLogger);
    if (!note || (!ctx.rechunk && ctx.known.get(todo[at].path)?.hash === note.hash)) continue;
    let chunks;
    try {
      chunks = chunkNote(note, ctx.chunk ?? {});
    } catch {
      continue; // the run says why
    }
    one.chunks = chunks.length;
    for (const c of chunks) {
      const texts = ctx.windowing ? passageWindows(c.embedText, ctx.windowing) : [c.embedText];
      if (texts.length === 1) one.hashes.add(c.meta.hash);
      else for (const t of texts) one.hashes.add(hashText(t));
    }
  }
  const all = [...new Set(read.flatMap((r) => [...r.hashes]))];
  const found = all.length ? await ctx.cached(all) : new Set<string>();
  return read.map((r) => ({ at: r.at, chunks: r.chunks, windows: [...r.hashes].filter((h) => !found.has(h)).length }));
}

/**
 * A run's totals as progress reports them: the work seen so far, and for the notes not read yet
 * the work per note of the sampled notes among them ({@link sampleWork}) once the sample is in.
 * Until then the totals are projected from the notes read so far, a few notes at first, and
 * {@link estimating} is true.
 *
 * @example
 * ```ts
 * const e = new WorkEstimate(4);
 * e.settle([{ at: 1, chunks: 1, windows: 9 }, { at: 3, chunks: 1, windows: 3 }]);
 * e.project(20, 2, "windows"); // 20 seen in the first 2 notes, and 3 a note in the 2 left: 26
 * ```
 */
export class WorkEstimate {
  private sample?: WorkSample;

  constructor(private readonly todo: number) {}

  /** Takes the sample's counts: the totals are estimated from them on. */
  settle(sample: WorkSample): void {
    if (sample.length) this.sample = sample;
  }

  /** True until the sample is in (the totals may still move a lot). */
  get estimating(): boolean {
    return !this.sample && this.todo > 0;
  }

  /** The total of `kind` for the run, from `seen` of it in the first `notesRead` notes. */
  project(seen: number, notesRead: number, kind: "windows" | "chunks"): number {
    const left = Math.max(0, this.todo - notesRead);
    if (this.sample && left) {
      // the sampled notes not read yet stand for those left (a long note read early is counted once)
      const ahead = this.sample.filter((s) => s.at >= notesRead);
      const from = ahead.length ? ahead : this.sample;
      return Math.round(seen + (from.reduce((n, s) => n + s[kind], 0) / from.length) * left);
    }
    if (this.sample) return seen;
    return notesRead && left ? Math.round((seen * this.todo) / notesRead) : seen;
  }
}
