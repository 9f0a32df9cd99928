import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { exampleVaultCopy } from "../e2e/helpers.js";
import { BIN, endlessLlm, request, startServe, type Served } from "./helpers.js";

// a server a failed test left running (registered first, so it runs after the other afterAll hooks)
afterAll(stopChildren);

/**
 * The review's findings on `vault-rag serve`, each against the real server over loopback: a token
 * that fails open, an LLM left generating for a client that has gone, connections held open by a
 * slow client, input that reached a 500, and request targets that skipped the Host check.
 */

let vault = "";
let s: Served;

/** Sends raw bytes and reads until the server closes the connection, however long that takes. */
function raw(port: number, bytes: string): Promise<{ text: string }> {
  return new Promise((resolve) => {
    let text = "";
    const sock = net.connect(port, "127.0.0.1", () => sock.write(bytes));
    sock.setEncoding("utf8");
    sock.on("data", (d) => (text += d));
    sock.on("close", () => resolve({ text }));
    sock.on("error", () => {});
  });
}

/** Asks the motors question and reads the stream until the first token; returns the reader to go on with. */
async function askUntilFirstToken(origin: string, signal?: AbortSignal) {
  const res = await fetch(`${origin}/api/ask`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question: "why did the motors cut out?" }),
    signal,
  });
  const reader = res.body!.getReader();
  let seen = "";
  while (!seen.includes("event: token")) seen += new TextDecoder().decode((await reader.read()).value);
  return reader;
}

/** Waits until `what()` holds, however long that takes (the test's timeout bounds it). */
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 50));
  return true;
};

/** Runs `serve` on the test vault with these flags, as a process that should refuse to start. */
const serveRefusing = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, "serve", "--vault", vault, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 20_000,
  });

/** A server whose chat model never stops (see endlessLlm), for `body`; both are stopped after it. */
async function withEndlessModel(
  body: (srv: Served, llm: Awaited<ReturnType<typeof endlessLlm>>) => Promise<void>,
): Promise<void> {
  const llm = await endlessLlm();
  const srv = await startServe(["--vault", vault, "--llm", "ollama:endless"], { OLLAMA_HOST: llm.base });
  try {
    await body(srv, llm);
  } finally {
    await srv.stop(); // at once when the body stopped it
    await llm.close();
  }
}

beforeAll(async () => {
  ({ vault } = exampleVaultCopy("vr-serve-hard-"));
  expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
  s = await startServe(["--vault", vault]);
});
afterAll(async () => {
  await s?.stop();
});

describe("the token off loopback", () => {
  it("does not fail open when VAULT_RAG_TOKEN is set but empty: a random token is required instead", async () => {
    const wide = await startServe(["--vault", vault, "--host", "0.0.0.0"], { VAULT_RAG_TOKEN: "" });
    try {
      expect(wide.token).toMatch(/^[0-9a-f]{64}$/);
      const none = await request(wide.port, "/api/note?path=SMARS");
      expect(none.status).toBe(401);
      expect(none.text).not.toContain("SMARS");
      expect(
        (await request(wide.port, "/api/status", { headers: { authorization: `Bearer ${wide.token}` } })).status,
      ).toBe(200);
    } finally {
      await wide.stop();
    }
  });

  it("refuses to start with a VAULT_RAG_TOKEN too short to guard anything", () => {
    const r = serveRefusing(["--host", "0.0.0.0", "--port", "0"], { VAULT_RAG_TOKEN: "abc" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^vault-rag: VAULT_RAG_TOKEN is 3 characters — a token needs at least 16/m);
    expect(r.stderr).not.toContain("abc");
  });

  it("refuses an --llm that names no provider at start-up, as ask does", () => {
    const r = serveRefusing(["--port", "0", "--llm", "foo"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'vault-rag: unknown --llm "foo" — use ollama:<model> (e.g. ollama:llama3.2) or openai:<model>',
    );
  });

  it("refuses a --cors value that is not an origin, at start-up", () => {
    for (const bad of ["notanorigin", "http://localhost:5173/", "ftp://x.org"]) {
      const r = serveRefusing(["--port", "0", "--cors", bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr.trim(), bad).toBe(
        `vault-rag: --cors "${bad}" is not an origin — give one like http://localhost:5173 (scheme, host and port; no path or trailing slash)`,
      );
    }
  });

  it("refuses a port out of range with a usage error, not a stack trace", () => {
    for (const bad of ["99999", "65536", "-1", "abc"]) {
      const r = serveRefusing(["--port", bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--port must be a whole number from 0 to 65535, got "${bad}"`);
      expect(r.stderr, bad).not.toMatch(/\n\s+at /);
    }
  });
});

describe("POST /api/ask and a client that goes away", () => {
  it("stops the model's request when the client disconnects mid-stream, for each of many asks", async () => {
    await withEndlessModel(async (srv, llm) => {
      const asks = Array.from({ length: 4 }, async () => {
        const ctrl = new AbortController();
        await askUntilFirstToken(srv.origin, ctrl.signal);
        ctrl.abort();
      });
      await Promise.all(asks);
      expect(llm.requests()).toBe(4);
      // every request to the model is closed soon after its client left
      expect(await until(() => llm.open() === 0)).toBe(true);
      // and the server still answers
      expect((await request(srv.port, "/api/status")).status).toBe(200);
      expect(srv.proc.exitCode).toBeNull();
    });
  });

  it("writes at most four answers at once: a fifth ask gets a JSON 429 at once, and is taken when one is done", async () => {
    await withEndlessModel(async (srv, llm) => {
      const ctrls = Array.from({ length: 4 }, () => new AbortController());
      await Promise.all(ctrls.map((c) => askUntilFirstToken(srv.origin, c.signal)));
      const ask = () =>
        fetch(`${srv.origin}/api/ask`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ question: "why did the motors cut out?" }),
        });
      const fifth = await ask();
      expect(fifth.status).toBe(429);
      expect(fifth.headers.get("retry-after")).toBe("1");
      expect(await fifth.json()).toEqual({
        error:
          "vault-rag: 4 answers are being written already, the most this server writes at once — ask again when one is done",
        code: "busy",
      });
      expect(llm.requests(), "the refused ask never reached the model").toBe(4);
      ctrls[0].abort();
      expect(await until(() => llm.open() === 3)).toBe(true);
      // the slot is freed once the server has seen its answer stop (just after the model's request closed)
      let again = await ask();
      while (again.status === 429) {
        await new Promise((r) => setTimeout(r, 50));
        again = await ask();
      }
      expect(again.status, "an ask is taken again").toBe(200);
      expect(await until(() => llm.requests() === 5)).toBe(true);
      await again.body!.cancel();
      for (const c of ctrls) c.abort();
    });
  });

  it("stops on SIGTERM while an answer is streaming, closing the model's request", async () => {
    await withEndlessModel(async (srv, llm) => {
      const reader = await askUntilFirstToken(srv.origin);
      srv.proc.kill("SIGTERM");
      expect(await until(() => srv.proc.exitCode !== null)).toBe(true);
      expect(await until(() => llm.open() === 0)).toBe(true);
      await reader.cancel().catch(() => {});
    });
  });
});

describe("slow clients", () => {
  it("closes a connection whose headers never finish, and one whose body never finishes, with a JSON 408", async () => {
    const [headers, body] = await Promise.all([
      raw(s.port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nX-Slow: `),
      raw(
        s.port,
        `POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"question":`,
      ),
    ]);
    expect(headers.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(headers.text.split("\r\n\r\n")[1]).error).toMatch(/^vault-rag: the request took too long/);
    expect(body.text).toMatch(/^HTTP\/1\.1 408 /);
    expect((await request(s.port, "/api/status")).status).toBe(200);
  });

  // Linux: the server's open files are counted in /proc
  it.skipIf(!fs.existsSync("/proc/self/fd"))(
    "lets go of a connection once its 408 is sent, even when the client never closes its side",
    async () => {
      const fds = () => fs.readdirSync(`/proc/${s.proc.pid}/fd`).length;
      const before = fds();
      // clients that send half a request, read the 408, and then hold on (as a slowloris client does)
      const held = await Promise.all(
        Array.from(
          { length: 10 },
          () =>
            new Promise<net.Socket>((resolve) => {
              const sock = net.connect({ port: s.port, host: "127.0.0.1", allowHalfOpen: true }, () =>
                sock.write(`GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nX-Slow: `),
              );
              sock.on("data", (d) => String(d).startsWith("HTTP/1.1 408 ") && resolve(sock));
              sock.on("error", () => {});
            }),
        ),
      );
      // each 408 was sent and its socket closed by the server: its open files are as before
      expect(await until(() => fds() <= before), `open files: ${fds()}, before ${before}`).toBe(true);
      for (const sock of held) sock.destroy();
    },
  );

  it("still streams an answer for longer than the request timeouts (they bound the request, not the response)", async () => {
    await withEndlessModel(async (srv) => {
      const ctrl = new AbortController();
      const reader = await askUntilFirstToken(srv.origin, ctrl.signal);
      const t0 = Date.now();
      let last = "";
      while (Date.now() - t0 < 17_000) last = new TextDecoder().decode((await reader.read()).value);
      expect(last).toContain("event: token");
      ctrl.abort();
    });
  });
});

describe("input that reached a 500", () => {
  it("answers JSON nested thousands deep with a 400 that quotes a short form of it", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    for (const body of [deep, `{"question": ${deep}}`, `{"question": "x", "where": ${deep}}`]) {
      const r = await fetch(`${s.origin}/api/ask`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(r.status, body.slice(0, 40)).toBe(400);
      const { error } = await r.json();
      expect(error).toMatch(/^vault-rag: /);
      expect(error).toMatch(/got \[\[\[\[.*…( — .*)?$/);
      expect(error.length).toBeLessThan(300);
    }
  });

  it("quotes a number too big to read as the client wrote it, not as null", async () => {
    const big = "9".repeat(400);
    const r = await request(s.port, `/api/search?q=x&top_k=${big}`);
    expect(r.status).toBe(400);
    expect(r.json.error).not.toContain("null");
    expect(r.json.error).toMatch(/^vault-rag: top_k .*got "9999/);
  });
});

describe("the Host check", () => {
  it("checks the authority of an absolute-form request target too, not only the Host header", async () => {
    const r = await raw(
      s.port,
      `GET http://rebind.example:${s.port}/api/status HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 403 /);
    expect(r.text).toContain('refused a request for host \\"rebind.example');
    const ok = await raw(
      s.port,
      `GET http://127.0.0.1:${s.port}/api/status HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(ok.text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("answers a request without a usable Host header with a JSON error, not an empty 400", async () => {
    for (const head of ["", `Host: a b\r\n`]) {
      const r = await raw(s.port, `GET /api/status HTTP/1.1\r\n${head}Connection: close\r\n\r\n`);
      expect(r.text, head).toMatch(/^HTTP\/1\.1 4\d\d /);
      const body = r.text.slice(r.text.indexOf("\r\n\r\n") + 4);
      expect(JSON.parse(body).error, head).toMatch(/^vault-rag: /);
    }
  });
});

describe("a loopback bind written in another form", () => {
  /** One GET to `address:port` with this Host header (fetch would write the Host itself). */
  const getAt = (address: string, port: number, host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: address, port, path: "/api/status", headers: { host } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
    });

  it("is loopback: no token, no word of the network, and its own address answered however it is written", async () => {
    for (const [bind, address, shown] of [
      ["127.1", "127.0.0.1", "127.0.0.1"],
      ["0:0:0:0:0:0:0:1", "::1", "[::1]"],
      ["::ffff:127.0.0.1", "127.0.0.1", "[::ffff:7f00:1]"],
    ]) {
      const srv = await startServe(["--vault", vault, "--host", bind]);
      try {
        const out = srv.stdout();
        expect(srv.token, out).toBeUndefined();
        expect(out).not.toContain("beyond this machine");
        expect(out).toContain(` at http://${shown}:${srv.port}/\n`);
        // the Host a browser sends for the printed address, localhost, and an IPv4 address as given
        // (an IPv6 one not in its shortest form is refused before the app, by the HTTP adapter)
        for (const host of [
          `${shown}:${srv.port}`,
          `localhost:${srv.port}`,
          ...(bind.includes(":") ? [] : [`${bind}:${srv.port}`]),
        ]) {
          const r = await getAt(address, srv.port, host);
          expect(r.status, `${bind}, Host ${host}: ${r.body}`).toBe(200);
        }
        const foreign = await getAt(address, srv.port, `rebind.example:${srv.port}`);
        expect(foreign.status).toBe(403);
        expect(JSON.parse(foreign.body).error).toContain(`this server answers only ${shown}:${srv.port}`);
      } finally {
        await srv.stop();
      }
    }
  }, 120_000);
});

describe("paths that lead out of the vault", () => {
  it("refuses symlinks to files and folders outside, and NUL bytes, on /api/note and /api/related", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const outside = path.join(path.dirname(vault), "outside");
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, "secret.md"), "# Secret\n\nTOPSECRET\n");
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(vault, "leak.md"));
    fs.symlinkSync(outside, path.join(vault, "outdir"));
    try {
      for (const p of ["leak.md", "leak", "outdir/secret.md", "outdir/secret", "secret", "robots\0/SMARS.md", "\0"]) {
        for (const ep of ["note", "related"]) {
          const r = await request(s.port, `/api/${ep}?path=${encodeURIComponent(p)}`);
          expect(r.status, `${ep} ${JSON.stringify(p)}`).toBeGreaterThanOrEqual(400);
          expect(r.status, `${ep} ${JSON.stringify(p)}`).toBeLessThan(500);
          expect(r.text).not.toContain("TOPSECRET");
          expect(r.json.error).toMatch(/^vault-rag: /);
        }
      }
    } finally {
      fs.rmSync(path.join(vault, "leak.md"));
      fs.rmSync(path.join(vault, "outdir"));
    }
  });
});
