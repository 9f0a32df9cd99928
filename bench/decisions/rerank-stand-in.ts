/**
 * A loopback `/v1/rerank` server for timing the rerank stage over HTTP (docs/decisions/reranker.md):
 * it scores each document by the question's words it holds, over its length in hundreds of
 * characters. Its order means nothing; what is timed is the stage and the round trip.
 *
 *     npx tsx bench/decisions/rerank-stand-in.ts 8012
 */
import http from "node:http";

const port = Number(process.argv[2] ?? 8012);
const words = (t: string) => t.toLowerCase().split(/\W+/).filter(Boolean);

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const { query, documents } = JSON.parse(body) as { query: string; documents: string[] };
    const asked = new Set(words(query));
    const results = documents.map((d, index) => ({
      index,
      relevance_score: words(d).filter((w) => asked.has(w)).length / (1 + d.length / 100),
    }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
  });
});
server.listen(port, "127.0.0.1", () => console.log(`rerank stand-in at http://127.0.0.1:${port}`));
