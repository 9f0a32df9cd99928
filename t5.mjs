import { parseNote, parseBlocks } from './dist/vault/index.js'; import { chunkNote } from './dist/chunk/index.js';
function gen(kind){ let s = ""; let i = 0;
 while (s.length < 5_000_000) {
  if (kind==='dense') s += `## Section ${i++}\n\nSome text about motors and wiring with a few more words in it. Another sentence follows.\n\n- item\n- item\n\n`;
  else s += `## Section ${i++}\n\n` + Array.from({length:6},(_,k)=>`Paragraph ${k} about the robot motors, the battery and the garden. It has a few sentences of ordinary prose. Nothing special happens here, which is fine.`).join("\n\n") + "\n\n```js\nconst x = 1;\n```\n\n- a list item\n- another\n\n";
 } return s; }
for (const kind of ['dense','prose']) { const s=gen(kind);
for (let k=0;k<2;k++){ let t=performance.now(); parseBlocks(s); const tp=performance.now()-t; t=performance.now(); const n=parseNote('big.md', s, 0); const t1=performance.now(); const c=chunkNote(n); console.log(kind, 'mdit', tp.toFixed(0), 'parseNote', (t1-t).toFixed(0),'ms chunk', (performance.now()-t1).toFixed(0), 'ms', c.length); } }
