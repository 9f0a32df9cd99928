#!/usr/bin/env bash
# Installs vault-rag as a user does and runs it: `npm pack`, then the tarball installed into a clean
# prefix (`npm i -g <tgz> --prefix <tmp>`) and run with `npx --package <tgz> vault-rag`, each indexing and searching a
# copy of examples/vault (without its .vault-rag folder); then, in the global prefix, the optional
# @huggingface/transformers loading a local model folder. Needs only the npm registry. Prints the
# installed size. Run after `npm run build` (`.ci/run` runs it after `npm test`).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d "${TMPDIR:-/tmp}/vr-install-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }

tgz="$tmp/$(npm pack --silent --pack-destination "$tmp" | tail -1)"
[ -f "$tgz" ] || fail "npm pack made no tarball"
if tar -tzf "$tgz" | grep -E '^package/(src|test|bench|scripts)/|^package/dist/bench/'; then fail "the tarball holds source, test or bench files (above)"; fi

# a fresh vault, as a user has it
vault="$tmp/vault"
cp -R examples/vault "$vault"
rm -rf "$vault/.vault-rag"

# checks one installed vault-rag (a command prefix) on the vault; $2 names the run
check() {
  local name="$1"; shift
  rm -rf "$vault/.vault-rag"
  "$@" index "$vault" --quiet || fail "$name: vault-rag index failed"
  [ -f "$vault/.vault-rag/index.db" ] || fail "$name: index made no $vault/.vault-rag/index.db"
  "$@" search --vault "$vault" --json "how do the SMARS motors work" > "$tmp/hits.json" || fail "$name: vault-rag search failed"
  node -e '
    const hits = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!Array.isArray(hits) || hits.length === 0) { console.error("install-test: '"$name"': search found nothing"); process.exit(1); }
    if (hits[0].path !== "robots/SMARS.md") { console.error("install-test: '"$name"': top hit is " + hits[0].path + ", expected robots/SMARS.md"); process.exit(1); }
    console.log("install-test: '"$name"': index and search work (" + hits.length + " hits, top " + hits[0].path + ")");
  ' "$tmp/hits.json"
  # chromadb is not installed with the package: a Chroma index says what to install, in one line
  local err
  if err="$("$@" search --vault "$vault" --db chroma://127.0.0.1:9/notes motors 2>&1)"; then fail "$name: a Chroma index without chromadb did not fail"; fi
  # (npx may print npm's own warnings first)
  [[ "$err" == *"vault-rag: a Chroma index needs the chromadb package — run \`npm install chromadb\`"* ]] || fail "$name: without chromadb a Chroma index said: $err"
  # nor is @huggingface/transformers (a devDependency here): a transformers model says what to install
  if err="$("$@" index "$vault" --db "$tmp/transformers.db" --model transformers:Xenova/bge-small-en-v1.5 --offline --quiet 2>&1)"; then fail "$name: a transformers model without @huggingface/transformers did not fail"; fi
  [[ "$err" == *"vault-rag: the transformers provider needs the @huggingface/transformers package — install it"* ]] || fail "$name: without @huggingface/transformers a transformers model said: $err"
  hint="$err"
}

prefix="$tmp/prefix"
npm i -g "$tgz" --prefix "$prefix" --no-audit --no-fund --loglevel=error
[ ! -e "$prefix/lib/node_modules/vault-rag/node_modules/chromadb" ] || fail "chromadb was installed with the package"
[ ! -e "$prefix/lib/node_modules/vault-rag/node_modules/@huggingface/transformers" ] || fail "@huggingface/transformers was installed with the package"
check "npm i -g" "$prefix/bin/vault-rag"
echo "install-test: installed size $(du -sh "$prefix" | cut -f1) ($prefix)"

# the Transformers.js path of a global install (docs/models.md): the hint names the global install
# and where a global vault-rag looks; installed there, a model folder copied by hand loads offline
[[ "$hint" == *"npm install -g @huggingface/transformers --ignore-scripts"*"$prefix/lib/node_modules"* ]] || fail "npm i -g: the transformers hint does not say where a global install finds it: $hint"
transformers="@huggingface/transformers@$(node -p 'require("./package.json").devDependencies["@huggingface/transformers"]')"
npm i -g "$transformers" --ignore-scripts --prefix "$prefix" --prefer-offline --no-audit --no-fund --loglevel=error
npx tsx -e 'import("./test/embed/tiny-bert.ts").then((m) => m.writeTinyBert(process.argv[1], "Xenova/bge-small-en-v1.5"))' "$tmp/models"
[ -f "$tmp/models/Xenova/bge-small-en-v1.5/onnx/model.onnx" ] || fail "no local model folder was written"
(
  cd "$tmp" # not this checkout: the global vault-rag must find the global package by itself
  "$prefix/bin/vault-rag" index "$vault" --db "$tmp/tf-global.db" --model transformers:Xenova/bge-small-en-v1.5 --model-dir "$tmp/models" --offline --quiet || fail "npm i -g: index with a transformers model failed"
  "$prefix/bin/vault-rag" status --vault "$vault" --db "$tmp/tf-global.db" | grep -q "^model: *transformers:Xenova/bge-small-en-v1.5 (16-d)" || fail "npm i -g: the index does not name the transformers model"
  "$prefix/bin/vault-rag" search --vault "$vault" --db "$tmp/tf-global.db" --model-dir "$tmp/models" --offline --json "SMARS motors" > "$tmp/tf-hits.json" || fail "npm i -g: search with a transformers model failed"
  node -e 'const h = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (!h.length) process.exit(1); console.log("install-test: npm i -g + @huggingface/transformers: a local model folder indexes and searches (" + h.length + " hits, top " + h[0].path + ")")' "$tmp/tf-hits.json" || fail "npm i -g: the transformers search found nothing"
)

# npx installs into its own cache folder; a private npm cache keeps this run clean
export npm_config_cache="$tmp/npm-cache"
check "npx" npx --yes --package "$tgz" vault-rag
