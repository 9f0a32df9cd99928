import { parseNote, parseBlocks } from './dist/vault/index.js'; import { chunkNote } from './dist/chunk/index.js';
let s = ""; let i = 0; while (s.length < 5_000_000) s += `## Section ${i++}\n\nSome text about motors and wiring with a few more words in it. Another sentence follows.\n\n- item\n- item\n\n`;
const n=parseNote('big.md', s, 0);
for (let k=0;k<3;k++){ const t=performance.now(); chunkNote(n); console.log('chunk', (performance.now()-t).toFixed(0)); }
