import { err, exitWhenWritten, out, stderrLogger } from "../io.js";
import { isVaultKnown, locate } from "../open.js";
import { startResident } from "../resident.js";

/** The flags of `vault-rag serve`. */
export interface ServeFlags {
  vault?: string;
  db?: string;
  port: number;
  host: string;
  watch?: boolean;
  llm?: string;
  cors?: string;
}

/**
 * `vault-rag serve`: the web app and HTTP API until interrupted. The address goes to stdout (with
 * the token when the bind is not loopback); watch batches and errors to stderr.
 */
export async function runServe(o: ServeFlags): Promise<void> {
  const loc = locate(o);
  const { startServer } = await import("../../serve/server.js");
  const s = await startServer(loc.vault, {
    db: o.db,
    vaultKnown: isVaultKnown(o, loc),
    port: o.port,
    host: o.host,
    watch: o.watch,
    llm: o.llm,
    cors: o.cors,
    log: stderrLogger(false),
    report: (line) => err(`${new Date().toISOString()} ${line}`),
  });
  // the CLI's reading commands are answered here too, on this vault's endpoint
  const resident = await startResident(loc, o);
  out(`vault-rag: serving ${s.vault.vault} (${s.vault.db}) at ${s.url}`);
  if (s.token) {
    const where = s.elsewhere ? `every interface (${o.host})` : o.host;
    const there = s.elsewhere?.length ? `; from another machine: ${s.elsewhere.slice(0, 3).join(" or ")}` : "";
    out(
      `vault-rag: listening on ${where}, beyond this machine: every request needs the token — open the URL above${there}, or send \`Authorization: Bearer ${s.token}\``,
    );
  }
  out("Ctrl-C to stop");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await resident?.close();
  await s.close();
  // under --watch, as `watch` does: the batch the model was embedding next is not waited for
  await exitWhenWritten();
}
