import { synonymCandidates, sharedWordNet } from "../../src/search/expand.js";
const wn = sharedWordNet();
for (const q of ["turn it upside down", "from the command line", "a hot dog", "a hard disk"])
  console.log(q, "→", synonymCandidates(wn, q, 3));
