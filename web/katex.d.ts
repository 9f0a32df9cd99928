// dist/web/katex.js is KaTeX's own ES module (katex/dist/katex.mjs), which scripts/build-web.mjs
// copies there: this gives "./katex.js" the package's types.
import katex from "katex";
export default katex;
