"""Convert a BERT encoder's safetensors weights to ONNX, check it, and quantize it to int8.

Run with a Python that has numpy, onnx, onnxruntime and safetensors (fetch_models.py makes a
throwaway venv with only these). No PyTorch: the encoder graph is written node by node with
onnx.helper, the same computation as Hugging Face's BertModel:

  embeddings = LayerNorm(word[input_ids] + position[0..S) + token_type[token_type_ids])
  each layer: self-attention (12 heads, additive mask from attention_mask) -> dense -> +residual
              -> LayerNorm -> dense -> GELU (erf) -> dense -> +residual -> LayerNorm
  output: last_hidden_state [batch, seq, hidden]

Inputs are int64 input_ids / attention_mask / token_type_ids with dynamic batch and sequence
sizes, as Transformers.js feeds them.

The check (fails loudly, exit 1): the ONNX model against a plain numpy BERT on the same token ids
(max abs difference), then sentence similarities with mean pooling on both the fp32 and the int8
model: the sentence-transformers example pair must come out near 0.75 and unrelated pairs low.

Usage: python bert_onnx.py <model folder with config.json, tokenizer.json, model.safetensors> <out onnx folder>
"""

import json
import math
import re
import sys
import unicodedata
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 17  # LayerNormalization is a standard op from opset 17
MASK_FILL = -10000.0  # added to the scores of padded positions before softmax


def load_weights(src: Path) -> dict:
    """The tensors of model.safetensors, with any leading `bert.` removed from their names."""
    raw = load_file(str(src / "model.safetensors"))
    return {re.sub(r"^bert\.", "", k): v.astype(np.float32) if v.dtype != np.int64 else v for k, v in raw.items()}


def build_graph(w: dict, cfg: dict) -> onnx.ModelProto:
    """The encoder as an ONNX graph whose initializers are the weights in `w`."""
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    head_dim = hidden // heads
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name + "_op", **attrs))
        return name

    def linear(x, prefix, out):
        # y = x @ W^T + b; the transpose is stored, so the graph holds one MatMul (quantizable).
        m = node("MatMul", [x, init(prefix + ".weight.T", w[prefix + ".weight"].T)], out + "_mm")
        return node("Add", [m, init(prefix + ".bias", w[prefix + ".bias"])], out)

    def layer_norm(x, prefix, out):
        g, b = init(prefix + ".weight", w[prefix + ".weight"]), init(prefix + ".bias", w[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    i64 = lambda name, values: init(name, np.array(values, dtype=np.int64))
    f32 = lambda name, value: init(name, np.array(value, dtype=np.float32))

    # Embeddings: word + position (0..seq-1) + token type, then LayerNorm.
    word = node("Gather", [init("word_embeddings", w["embeddings.word_embeddings.weight"]), "input_ids"], "word")
    # The first `seq` rows of the position table; seq is kept a 1-D tensor [seq] throughout.
    shape = node("Shape", ["input_ids"], "ids_shape")
    zero, one_1d = i64("zero_1d", [0]), i64("one_1d", [1])
    seq = node("Slice", [shape, one_1d, i64("two_1d", [2]), zero], "seq_len")
    table = init("position_embeddings", w["embeddings.position_embeddings.weight"])
    pos = node("Slice", [table, zero, seq, zero], "pos")
    typ = node(
        "Gather", [init("token_type_embeddings", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"], "typ"
    )
    x = node("Add", [node("Add", [word, pos], "word_pos"), typ], "emb_sum")
    x = layer_norm(x, "embeddings.LayerNorm", "emb")

    # Additive mask [batch, 1, 1, seq]: 0 where attention_mask is 1, MASK_FILL where it is 0.
    m = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    m = node("Unsqueeze", [m, i64("mask_axes", [1, 2])], "mask_4d")
    inv = node("Sub", [f32("one_f", 1.0), m], "mask_inv")
    bias = node("Mul", [inv, f32("mask_fill", MASK_FILL)], "mask_bias")

    split_shape = i64("split_heads_shape", [0, 0, heads, head_dim])
    merge_shape = i64("merge_heads_shape", [0, 0, hidden])
    scale = f32("attn_scale", 1.0 / math.sqrt(head_dim))
    sqrt2 = f32("sqrt2", math.sqrt(2.0))
    half, one = f32("half", 0.5), "one_f"

    for i in range(layers):
        p = f"encoder.layer.{i}"
        heads_of = lambda t, perm, n: node("Transpose", [node("Reshape", [t, split_shape], n + "_r")], n, perm=perm)
        q = heads_of(linear(x, p + ".attention.self.query", f"l{i}_q"), [0, 2, 1, 3], f"l{i}_qh")
        k = heads_of(linear(x, p + ".attention.self.key", f"l{i}_k"), [0, 2, 3, 1], f"l{i}_kh")
        v = heads_of(linear(x, p + ".attention.self.value", f"l{i}_v"), [0, 2, 1, 3], f"l{i}_vh")
        scores = node("Mul", [node("MatMul", [q, k], f"l{i}_qk"), scale], f"l{i}_scaled")
        probs = node("Softmax", [node("Add", [scores, bias], f"l{i}_masked")], f"l{i}_probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"l{i}_ctx_h")], f"l{i}_ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape], f"l{i}_ctx")
        attn = linear(ctx, p + ".attention.output.dense", f"l{i}_attn")
        x = layer_norm(node("Add", [attn, x], f"l{i}_attn_res"), p + ".attention.output.LayerNorm", f"l{i}_attn_ln")
        h = linear(x, p + ".intermediate.dense", f"l{i}_inter")
        # GELU (erf form): 0.5 * h * (1 + erf(h / sqrt 2))
        e = node("Erf", [node("Div", [h, sqrt2], f"l{i}_gelu_div")], f"l{i}_gelu_erf")
        h = node("Mul", [node("Mul", [h, half], f"l{i}_gelu_half"), node("Add", [e, one], f"l{i}_gelu_1p")], f"l{i}_gelu")
        out = linear(h, p + ".output.dense", f"l{i}_out")
        name = "last_hidden_state" if i == layers - 1 else f"l{i}_out_ln"
        x = layer_norm(node("Add", [out, x], f"l{i}_out_res"), p + ".output.LayerNorm", name)

    ints = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
    graph = helper.make_graph(
        nodes,
        "bert_encoder",
        [ints("input_ids"), ints("attention_mask"), ints("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="vault-rag")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def numpy_bert(w: dict, cfg: dict, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The same encoder in plain numpy (float64), written from the BERT paper, for the check."""
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    d = hidden // heads
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    g = lambda n: w[n].astype(np.float64)

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * g(p + ".weight") + g(p + ".bias")

    lin = lambda x, p: x @ g(p + ".weight").T + g(p + ".bias")
    erf = np.vectorize(math.erf)
    b, s = ids.shape
    x = g("embeddings.word_embeddings.weight")[ids] + g("embeddings.position_embeddings.weight")[:s]
    x = ln(x + g("embeddings.token_type_embeddings.weight")[np.zeros_like(ids)], "embeddings.LayerNorm")
    bias = (1.0 - mask[:, None, None, :]) * MASK_FILL
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        split = lambda t: t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)
        q, k, v = (split(lin(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        pr = np.exp(sc - sc.max(-1, keepdims=True))
        pr /= pr.sum(-1, keepdims=True)
        ctx = (pr @ v).transpose(0, 2, 1, 3).reshape(b, s, hidden)
        x = ln(lin(ctx, p + ".attention.output.dense") + x, p + ".attention.output.LayerNorm")
        h = lin(x, p + ".intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        x = ln(lin(h, p + ".output.dense") + x, p + ".output.LayerNorm")
    return x


def wordpiece(src: Path):
    """A minimal BERT tokenizer (lower-case, split on spaces and punctuation, greedy WordPiece) read
    from tokenizer.json; enough for the plain English sentences of the check."""
    vocab = json.loads((src / "tokenizer.json").read_text())["model"]["vocab"]

    def encode(text):
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        ids = [vocab["[CLS]"]]
        for word in re.findall(r"\w+|[^\w\s]", text):
            start = 0
            while start < len(word):
                end = len(word)
                while end > start and (("##" if start else "") + word[start:end]) not in vocab:
                    end -= 1
                if end == start:
                    ids.append(vocab["[UNK]"])
                    break
                ids.append(vocab[("##" if start else "") + word[start:end]])
                start = end
        return ids + [vocab["[SEP]"]]

    return encode


def batch(encode, texts):
    seqs = [encode(t) for t in texts]
    n = max(len(s) for s in seqs)
    ids = np.array([s + [0] * (n - len(s)) for s in seqs], dtype=np.int64)
    mask = np.array([[1] * len(s) + [0] * (n - len(s)) for s in seqs], dtype=np.int64)
    return ids, mask


def sentence_vectors(hidden, mask):
    """Mean pooling over real tokens, then unit length (what sentence-transformers does)."""
    m = mask[:, :, None].astype(np.float64)
    v = (hidden * m).sum(1) / m.sum(1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


CHECK_SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The new movie is awesome.",
    "The cat plays in the garden.",
]


def check(w, cfg, src: Path, onnx_path: Path, label: str, tolerance: float, min_agree: float):
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    ids, mask = batch(wordpiece(src), CHECK_SENTENCES)
    out = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    ref = numpy_bert(w, cfg, ids, mask)
    real = mask.astype(bool)
    diff = float(np.abs(out[real] - ref[real]).max())
    v = sentence_vectors(out.astype(np.float64), mask)
    agree = float(min((v * sentence_vectors(ref, mask)).sum(1)))
    same, unrelated = float(v[0] @ v[1]), float(max(v[0] @ v[3], v[1] @ v[3], v[0] @ v[2]))
    print(f"check {label}: max |onnx - numpy| = {diff:.2e}; lowest cos(onnx, numpy) per sentence = {agree:.4f}; "
          f"cos(eating food, eating bread) = {same:.3f}; highest unrelated cos = {unrelated:.3f}")
    failures = []
    if diff > tolerance:
        failures.append(f"ONNX output differs from the numpy BERT by {diff:.2e} (> {tolerance:g})")
    if agree < min_agree:
        failures.append(f"a sentence vector has cos {agree:.4f} with the numpy one (< {min_agree})")
    if not 0.6 <= same <= 0.9:
        failures.append(f"the sentence-transformers example pair scores {same:.3f}, expected about 0.75")
    if unrelated >= 0.35:
        failures.append(f"an unrelated pair scores {unrelated:.3f}, expected below 0.35")
    if failures:
        sys.exit(f"bert_onnx.py: the {label} model is wrong: " + "; ".join(failures))


def main():
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cfg = json.loads((src / "config.json").read_text())
    if cfg.get("model_type") != "bert":
        sys.exit(f"bert_onnx.py: {src}/config.json has model_type {cfg.get('model_type')!r}; only bert is converted")
    w = load_weights(src)
    out.mkdir(parents=True, exist_ok=True)
    fp32, q8 = out / "model.onnx", out / "model_quantized.onnx"
    onnx.save(build_graph(w, cfg), str(fp32))
    check(w, cfg, src, fp32, "fp32", 1e-3, 0.9999)
    quantize_dynamic(str(fp32), str(q8), weight_type=QuantType.QInt8, per_channel=True)
    # int8 weights (one scale per output channel) move single numbers by up to ~0.3; the sentence
    # vectors must still agree.
    check(w, cfg, src, q8, "int8", float("inf"), 0.98)


if __name__ == "__main__":
    main()
