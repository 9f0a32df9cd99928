import { generateVault } from "../gen.js";
import { indexVault } from "../../src/indexing/index.js";
import { useLiteEmbedder, type Embedder } from "../../src/embed/index.js";
const dir = process.argv[2];
generateVault(dir, 10000);
const real = useLiteEmbedder();
let seed = 1;
const e: Embedder = {
  ...real,
  async embedDocuments(texts) {
    return texts.map(() =>
      Float32Array.from({ length: 512 }, () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5),
    );
  },
};
await indexVault(dir, `${dir}/.vault-rag/index.db`, e);
