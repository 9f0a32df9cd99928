import { loadExact } from "./sess15-exact.js";
const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log("baseline hybrid", X.fmt(await X.evalRun((q) => X.baseHits(q))));
