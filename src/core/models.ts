/**
 * The embedding models vault-rag recommends, with their size, their published retrieval scores, the
 * figures measured here (src/core/measured.ts) and the commands that switch an index to them. The
 * published scores are the models' authors' figures, quoted as published. `vault-rag models`
 * renders this list.
 */
import { modelProfile } from "../embed/profiles.js";
import { shellArg } from "../shell-arg.js";
import { measuredFigures, measuredTable, type MeasuredModel } from "./measured.js";

/** A score a model's authors published, with where. */
export interface PublishedScore {
  /** e.g. `MTEB retrieval average (15 sets)`. */
  benchmark: string;
  value: number;
  /** Where it is published. */
  source: string;
}

/** One recommended embedding model. */
export interface RecommendedModel {
  /** The `--model` value. */
  id: string;
  /** Where it runs. */
  runs: "bundled" | "ollama" | "transformers" | "openai";
  languages: "English" | "100+ languages";
  dimensions: number;
  /** Parameters, as the authors give them. */
  parameters: string;
  /** What is downloaded once (the bundled model ships in the npm package). */
  download: string;
  /** One line: why choose it. */
  use: string;
  /** Published scores (none for the bundled model: its figures here are measured, see docs/quality.md). */
  published: PublishedScore[];
  /** The figures measured here, when the model was measured (src/core/measured.ts). */
  measured?: MeasuredModel;
  /** What the provider puts before a document and a query (from the model card). */
  documentPrefix: string;
  queryPrefix: string;
  /** The commands that switch an index to it, in order. */
  commands: string[];
}

const QUOTED =
  "Published scores are each model's authors' own; they rank models on public benchmarks, not on your notes. Measured figures are vault-rag's own eval on til and SciFact train, with the commands in docs/quality.md.";

/** The note every list carries: where the scores come from, and what a switch does. */
export const MODELS_NOTE = `${QUOTED} Switching rebuilds the index in a new file and swaps it in when complete: every passage is embedded again, and the old index answers until then.`;

type Entry = Omit<RecommendedModel, "documentPrefix" | "queryPrefix" | "commands"> & { setup?: string[] };

const ENTRIES: Entry[] = [
  {
    id: "use-lite",
    runs: "bundled",
    languages: "English",
    dimensions: 512,
    parameters: "Universal Sentence Encoder lite",
    download: "none (in the npm package)",
    use: "the default: offline, no setup; weak on paraphrased questions",
    published: [],
  },
  {
    id: "ollama:nomic-embed-text",
    runs: "ollama",
    languages: "English",
    dimensions: 768,
    parameters: "137M",
    download: "274 MB",
    use: "a strong English model through Ollama, long passages",
    published: [
      { benchmark: "MTEB average (56 sets)", value: 62.39, source: "Nomic Embed technical report, arXiv:2402.01613" },
    ],
    setup: ["ollama pull nomic-embed-text"],
  },
  {
    id: "ollama:mxbai-embed-large",
    runs: "ollama",
    languages: "English",
    dimensions: 1024,
    parameters: "335M",
    download: "670 MB",
    use: "the strongest English model here; slower to index",
    published: [
      {
        benchmark: "MTEB retrieval average (15 sets)",
        value: 54.39,
        source: "mixedbread-ai/mxbai-embed-large-v1 model card",
      },
      { benchmark: "MTEB average (56 sets)", value: 64.68, source: "mixedbread-ai/mxbai-embed-large-v1 model card" },
    ],
    setup: ["ollama pull mxbai-embed-large"],
  },
  {
    id: "ollama:bge-m3",
    runs: "ollama",
    languages: "100+ languages",
    dimensions: 1024,
    parameters: "568M",
    download: "1.2 GB",
    use: "notes in several languages",
    published: [
      {
        benchmark: "MIRACL nDCG@10 (18 languages)",
        value: 69.2,
        source: "comparison table of the nomic-embed-text-v2-moe model card",
      },
    ],
    setup: ["ollama pull bge-m3"],
  },
  {
    id: "transformers:Xenova/bge-small-en-v1.5",
    runs: "transformers",
    languages: "English",
    dimensions: 384,
    parameters: "33M",
    download: "133 MB",
    use: "no server: runs in the vault-rag process; small and fast",
    published: [
      { benchmark: "MTEB retrieval average (15 sets)", value: 51.68, source: "BAAI/bge-small-en-v1.5 model card" },
    ],
    setup: [
      "npm install -g @huggingface/transformers --ignore-scripts",
      "vault-rag models pull Xenova/bge-small-en-v1.5",
    ],
  },
  {
    id: "transformers:sentence-transformers/all-MiniLM-L6-v2",
    runs: "transformers",
    languages: "English",
    dimensions: 384,
    parameters: "22.7M",
    download: "90 MB",
    use: "no server: small and fast; measured here",
    published: [
      {
        benchmark: "Semantic Search (6 sets)",
        value: 49.54,
        source: "sbert.net, table of pretrained models",
      },
    ],
    setup: [
      "npm install -g @huggingface/transformers --ignore-scripts",
      "vault-rag models pull sentence-transformers/all-MiniLM-L6-v2 --dtype fp32",
    ],
  },
  {
    id: "transformers:Xenova/bge-m3",
    runs: "transformers",
    languages: "100+ languages",
    dimensions: 1024,
    parameters: "568M",
    download: "2.3 GB",
    use: "several languages, no server",
    published: [
      {
        benchmark: "MIRACL nDCG@10 (18 languages)",
        value: 69.2,
        source: "comparison table of the nomic-embed-text-v2-moe model card",
      },
    ],
    setup: ["npm install -g @huggingface/transformers --ignore-scripts", "vault-rag models pull Xenova/bge-m3"],
  },
  {
    id: "openai:text-embedding-3-small",
    runs: "openai",
    languages: "100+ languages",
    dimensions: 1536,
    parameters: "not published",
    download: "none (a paid API: notes are sent to it)",
    use: "no local compute; your notes leave this machine",
    published: [
      {
        benchmark: "MTEB average (56 sets)",
        value: 62.3,
        source: "OpenAI, “New embedding models and API updates”, January 2024",
      },
    ],
    setup: ["export OPENAI_API_KEY=…", "export VAULT_RAG_ALLOW_REMOTE=openai:text-embedding-3-small"],
  },
];

/**
 * The recommended embedding models, each with the commands that switch a vault's index to it.
 * `vault` goes into the commands (else they work in the vault the working directory is in).
 *
 * @example
 * ```ts
 * const [, nomic] = recommendedModels();
 * nomic.commands; // ["ollama pull nomic-embed-text", "vault-rag index --full --model ollama:nomic-embed-text"]
 * ```
 */
export function recommendedModels(opts: { vault?: string } = {}): RecommendedModel[] {
  const where = opts.vault ? ` ${shellArg(opts.vault)}` : "";
  const table = measuredTable();
  return ENTRIES.map(({ setup = [], ...m }) => {
    const measured = measuredFigures(m.id, table);
    const { documentPrefix, queryPrefix } =
      m.runs === "bundled" ? { documentPrefix: "", queryPrefix: "" } : modelProfile(m.id);
    return {
      ...m,
      ...(measured ? { measured } : {}),
      documentPrefix,
      queryPrefix,
      commands: [...setup, `vault-rag index${where} --full --model ${m.id}`],
    };
  });
}
