import { synonymCandidates, sharedWordNet } from "../../src/search/expand.js";
import { queryTerms } from "../../src/store/index.js";
const wn = sharedWordNet();
for (const q of ["don't", "haven't tried", "won't start", "résumé", "naïve", "Größe", "tallying", "work-in-progress snapshot", "why won't the motors start"]) console.log(q, "→", synonymCandidates(wn, q, 3).join(", "), "| terms", queryTerms(q).join(","));
