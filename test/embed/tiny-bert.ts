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
