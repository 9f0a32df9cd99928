import fs from "node:fs";
import path from "node:path";

/**
 * Writes a tiny BERT-shaped model that Transformers.js loads from a folder, as it loads a model
 * copied by hand: `config.json`, a WordPiece `tokenizer.json`, `tokenizer_config.json` and
 * `onnx/model.onnx`. The ONNX graph is one a BERT encoder's interface would have, with no layers:
 *
 *     last_hidden_state = (word_embeddings[input_ids] + type_embeddings[token_type_ids]) · attention_mask
 *
 * so every input is read, and a text's pooled vector is the mean of its tokens' rows. The graph is
 * written with a small Protocol Buffers encoder (the few ONNX messages it needs), and its weights
 * come from a seeded generator, so the model is the same on every run. No network, no hub.
 */
export const TINY_VOCAB = [
  "[PAD]",
  "[UNK]",
  "[CLS]",
  "[SEP]",
  "[MASK]",
  ...(
    "the a of to and in is how do i my for with on it what when why " +
    "robot robots motor motors wheel battery power sleep save bread sourdough starter flour water " +
    "oven bake coffee kitchen garden tomato seed note notes search vault"
  ).split(" "),
  "##s",
  "##ing",
  "##ed",
];

/** Width of the tiny model's vectors. */
export const TINY_DIMS = 16;

/** Writes the model into `<root>/<name>/` and returns that folder. */
export function writeTinyBert(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, "onnx"), { recursive: true });
  const vocab = Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i]));
  fs.writeFileSync(
    path.join(dir, "config.json"),
    JSON.stringify({
      model_type: "bert",
      architectures: ["BertModel"],
      vocab_size: TINY_VOCAB.length,
      hidden_size: TINY_DIMS,
      num_hidden_layers: 0,
      num_attention_heads: 1,
      type_vocab_size: 2,
      max_position_embeddings: 512,
      pad_token_id: 0,
    }),
  );
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  fs.writeFileSync(
    path.join(dir, "tokenizer.json"),
    JSON.stringify({
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(special),
      normalizer: {
        type: "BertNormalizer",
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: "BertPreTokenizer" },
      post_processor: {
        type: "TemplateProcessing",
        single: [
          { SpecialToken: { id: "[CLS]", type_id: 0 } },
          { Sequence: { id: "A", type_id: 0 } },
          { SpecialToken: { id: "[SEP]", type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: "[CLS]", type_id: 0 } },
          { Sequence: { id: "A", type_id: 0 } },
          { SpecialToken: { id: "[SEP]", type_id: 0 } },
          { Sequence: { id: "B", type_id: 1 } },
          { SpecialToken: { id: "[SEP]", type_id: 1 } },
        ],
        special_tokens: {
          "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
          "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
        },
      },
      decoder: { type: "WordPiece", prefix: "##", cleanup: true },
      model: {
        type: "WordPiece",
        unk_token: "[UNK]",
        continuing_subword_prefix: "##",
        max_input_chars_per_word: 100,
        vocab,
      },
    }),
  );
  fs.writeFileSync(
    path.join(dir, "tokenizer_config.json"),
    JSON.stringify({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      mask_token: "[MASK]",
    }),
  );
  fs.writeFileSync(path.join(dir, "onnx", "model.onnx"), tinyBertOnnx());
  return dir;
}

/** A seeded generator (mulberry32), so the weights are the same on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

// --- a Protocol Buffers encoder for the few ONNX messages the graph needs (onnx/onnx.proto3) ---

type Field = Buffer;
function varint(n: number | bigint): Buffer {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}
const intField = (no: number, n: number | bigint): Field => Buffer.concat([varint(no << 3), varint(n)]);
const bytesField = (no: number, b: Buffer | string): Field => {
  const body = typeof b === "string" ? Buffer.from(b, "utf8") : b;
  return Buffer.concat([varint((no << 3) | 2), varint(body.length), body]);
};
const msg = (...fields: Field[]) => Buffer.concat(fields);

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian). */
function tensor(name: string, dims: number[], type: number, raw: Buffer): Buffer {
  return msg(...dims.map((d) => intField(1, d)), intField(2, type), bytesField(8, name), bytesField(9, raw));
}
/** ValueInfoProto with a tensor type whose dimensions are named (`batch`, `seq`) or sized. */
function valueInfo(name: string, type: number, dims: (string | number)[]): Buffer {
  const shape = msg(
    ...dims.map((d) => bytesField(1, typeof d === "string" ? bytesField(2, d) : intField(1, d))), // Dimension
  );
  const tensorType = msg(intField(1, type), bytesField(2, shape)); // TypeProto.Tensor
  return msg(bytesField(1, name), bytesField(2, bytesField(1, tensorType))); // name, TypeProto{tensor_type}
}
/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5 (integer ones: name = 1, i = 3, type = 20, INT = 2). */
function node(op: string, inputs: string[], outputs: string[], ints: Record<string, number> = {}): Buffer {
  return msg(
    ...inputs.map((i) => bytesField(1, i)),
    ...outputs.map((o) => bytesField(2, o)),
    bytesField(3, `${op}_${outputs[0]}`),
    bytesField(4, op),
    ...Object.entries(ints).map(([k, v]) => bytesField(5, msg(bytesField(1, k), intField(3, v), intField(20, 2)))),
  );
}

/** The model's weights: one row of {@link TINY_DIMS} per token, and one per token type. */
export function tinyBertWeights(): { words: Float32Array; types: Float32Array } {
  const rand = seeded(17);
  const words = Float32Array.from({ length: TINY_VOCAB.length * TINY_DIMS }, rand);
  const types = Float32Array.from({ length: 2 * TINY_DIMS }, rand);
  return { words, types };
}

/** The model's bytes: a ModelProto (IR 8, opset 17) around the embedding graph. */
export function tinyBertOnnx(): Buffer {
  const { words, types } = tinyBertWeights();
  const raw = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength); // little-endian here
  const axes = Buffer.alloc(8);
  axes.writeBigInt64LE(-1n);
  const graph = msg(
    bytesField(1, node("Gather", ["word_embeddings", "input_ids"], ["words"])),
    bytesField(1, node("Gather", ["type_embeddings", "token_type_ids"], ["types"])),
    bytesField(1, node("Add", ["words", "types"], ["summed"])),
    bytesField(1, node("Cast", ["attention_mask"], ["mask_float"], { to: FLOAT })),
    bytesField(1, node("Unsqueeze", ["mask_float", "last_axis"], ["mask_3d"])),
    bytesField(1, node("Mul", ["summed", "mask_3d"], ["last_hidden_state"])),
    bytesField(2, "tiny-bert"),
    bytesField(5, tensor("word_embeddings", [TINY_VOCAB.length, TINY_DIMS], FLOAT, raw(words))),
    bytesField(5, tensor("type_embeddings", [2, TINY_DIMS], FLOAT, raw(types))),
    bytesField(5, tensor("last_axis", [1], INT64, axes)),
    bytesField(11, valueInfo("input_ids", INT64, ["batch", "seq"])),
    bytesField(11, valueInfo("attention_mask", INT64, ["batch", "seq"])),
    bytesField(11, valueInfo("token_type_ids", INT64, ["batch", "seq"])),
    bytesField(12, valueInfo("last_hidden_state", FLOAT, ["batch", "seq", TINY_DIMS])),
  );
  return msg(
    intField(1, 8), // ir_version
    bytesField(2, "vault-rag tests"), // producer_name
    bytesField(7, graph),
    bytesField(8, msg(bytesField(1, ""), intField(2, 17))), // opset_import
  );
}

/**
 * What the model should give for a text whose words are all in {@link TINY_VOCAB}, worked out here
 * without the library: `[CLS] words… [SEP]`, each row plus the type-0 row, averaged, unit length.
 */
export function expectedTinyVector(text: string): number[] {
  const { words, types } = tinyBertWeights();
  const ids = ["[CLS]", ...text.toLowerCase().split(/\s+/), "[SEP]"].map((t) => {
    const id = TINY_VOCAB.indexOf(t);
    if (id < 0) throw new Error(`tiny-bert: "${t}" is not in the vocabulary`);
    return id;
  });
  const mean = Array.from({ length: TINY_DIMS }, (_, d) => {
    let sum = 0;
    for (const id of ids) sum += words[id * TINY_DIMS + d] + types[d];
    return sum / ids.length;
  });
  const norm = Math.hypot(...mean);
  return mean.map((x) => x / norm);
}

/**
 * Writes a tiny cross-encoder into `<root>/<name>/`, as Transformers.js loads one for
 * `AutoModelForSequenceClassification`: the tiny BERT's tokenizer, a `BertForSequenceClassification`
 * config with one label, and an ONNX graph whose `logits` (shape `[batch, 1]`) are the dot product
 * of the mean of the query's token rows (token type 0: `[CLS] query [SEP]`) and the mean of the
 * passage's (type 1: `passage [SEP]`). Each word's row is one-hot and the special tokens' rows are
 * zero, so a pair's score is {@link expectedTinyScore}: a passage that shares more of the query's
 * words, in fewer words, scores higher. Deterministic; no network.
 */
export function writeTinyCrossEncoder(root: string, name: string): string {
  const dir = writeTinyBert(root, name);
  fs.writeFileSync(
    path.join(dir, "config.json"),
    JSON.stringify({
      model_type: "bert",
      architectures: ["BertForSequenceClassification"],
      vocab_size: TINY_VOCAB.length,
      hidden_size: TINY_VOCAB.length,
      num_hidden_layers: 0,
      num_attention_heads: 1,
      type_vocab_size: 2,
      max_position_embeddings: 512,
      pad_token_id: 0,
      id2label: { 0: "LABEL_0" },
      label2id: { LABEL_0: 0 },
    }),
  );
  fs.writeFileSync(path.join(dir, "onnx", "model.onnx"), tinyCrossEncoderOnnx());
  return dir;
}

/** The tokens that carry no word: their rows in the tiny cross-encoder are zero. */
const SPECIAL = new Set(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]);

/** The tiny cross-encoder's bytes: a ModelProto (IR 8, opset 17); see {@link writeTinyCrossEncoder}. */
export function tinyCrossEncoderOnnx(): Buffer {
  const v = TINY_VOCAB.length;
  const rows = new Float32Array(v * v);
  TINY_VOCAB.forEach((t, i) => {
    if (!SPECIAL.has(t)) rows[i * v + i] = 1;
  });
  const raw = (a: Float32Array | BigInt64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const graph = msg(
    bytesField(1, node("Gather", ["word_rows", "input_ids"], ["rows"])),
    bytesField(1, node("Cast", ["attention_mask"], ["mask"], { to: FLOAT })),
    bytesField(1, node("Cast", ["token_type_ids"], ["types"], { to: FLOAT })),
    bytesField(1, node("Mul", ["mask", "types"], ["in_passage"])),
    bytesField(1, node("Sub", ["mask", "in_passage"], ["in_query"])),
    ...(["query", "passage"] as const).flatMap((part) => [
      bytesField(1, node("Unsqueeze", [`in_${part}`, "last_axis"], [`${part}_mask`])),
      bytesField(1, node("Mul", ["rows", `${part}_mask`], [`${part}_rows`])),
      bytesField(1, node("ReduceSum", [`${part}_rows`, "seq_axis"], [`${part}_sum`], { keepdims: 0 })),
      bytesField(1, node("ReduceSum", [`${part}_mask`, "seq_axis"], [`${part}_count`], { keepdims: 0 })),
      bytesField(1, node("Max", [`${part}_count`, "one"], [`${part}_n`])),
      bytesField(1, node("Div", [`${part}_sum`, `${part}_n`], [`${part}_mean`])),
    ]),
    bytesField(1, node("Mul", ["query_mean", "passage_mean"], ["products"])),
    bytesField(1, node("ReduceSum", ["products", "row_axis"], ["logits"], { keepdims: 1 })),
    bytesField(2, "tiny-cross-encoder"),
    bytesField(5, tensor("word_rows", [v, v], FLOAT, raw(rows))),
    bytesField(5, tensor("last_axis", [1], INT64, raw(BigInt64Array.from([-1n])))),
    bytesField(5, tensor("seq_axis", [1], INT64, raw(BigInt64Array.from([1n])))),
    bytesField(5, tensor("row_axis", [1], INT64, raw(BigInt64Array.from([1n])))),
    bytesField(5, tensor("one", [1], FLOAT, raw(Float32Array.from([1])))),
    bytesField(11, valueInfo("input_ids", INT64, ["batch", "seq"])),
    bytesField(11, valueInfo("attention_mask", INT64, ["batch", "seq"])),
    bytesField(11, valueInfo("token_type_ids", INT64, ["batch", "seq"])),
    bytesField(12, valueInfo("logits", FLOAT, ["batch", 1])),
  );
  return msg(
    intField(1, 8), // ir_version
    bytesField(2, "vault-rag tests"), // producer_name
    bytesField(7, graph),
    bytesField(8, msg(bytesField(1, ""), intField(2, 17))), // opset_import
  );
}

/**
 * The tiny cross-encoder's score for a query and a passage whose words are all in
 * {@link TINY_VOCAB} (whole words, lower or upper case, separated by white space), worked out here
 * without the library: `Σ_word count_in_query · count_in_passage / ((query words + 2) · (passage words + 1))`,
 * the dot product of the two parts' mean one-hot rows (`[CLS]` and two `[SEP]` count, as zero rows).
 */
export function expectedTinyScore(query: string, passage: string): number {
  const words = (t: string) =>
    t
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => {
        if (!TINY_VOCAB.includes(w) || SPECIAL.has(w))
          throw new Error(`tiny-cross-encoder: "${w}" is not a word of the vocabulary`);
        return w;
      });
  const q = words(query);
  const p = words(passage);
  let shared = 0;
  for (const w of q) shared += p.filter((x) => x === w).length;
  return shared / ((q.length + 2) * (p.length + 1));
}
