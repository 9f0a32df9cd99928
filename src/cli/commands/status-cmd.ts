import { indexStatus } from "../../library.js";
import { ALLOW_REMOTE_ENV, modelPlace, remoteAllowed } from "../../embed/remote.js";
import { lockHolder } from "../../indexing/index.js";
import { lockTarget } from "../../store/index.js";
import { indexCommand, locate, openForQuery } from "../open.js";
import { out, stderrLogger } from "../io.js";

/** `vault-rag status`. */
export async function runStatus(o: { vault?: string; db?: string; json?: boolean }): Promise<void> {
  const loc = locate(o);
  const { store, manifest } = await openForQuery(loc, { log: stderrLogger(false) });
  try {
    const info = await indexStatus(loc.vault, store, manifest);
    // another process writing (index, watch, serve --watch): the stale notes are what it has yet to store
    const pid = lockHolder(lockTarget(loc.db, loc.store.sidecarDir));
    const writer = pid !== undefined && pid !== process.pid ? pid : undefined;
    // where the model runs, and whether this machine lets the index's own model send text there
    const place = modelPlace(info.model ?? "");
    const refused = place.network && !remoteAllowed(info.model ?? "");
    const runs = `${place.where}${refused ? ` (not used: the index names it, but neither ${ALLOW_REMOTE_ENV} nor --model does)` : ""}`;
    if (o.json)
      out(
        JSON.stringify(
          {
            ...info,
            modelRuns: place.where,
            ...(refused ? { modelRefused: true } : {}),
            ...(writer ? { indexing: { pid: writer } } : {}),
          },
          null,
          2,
        ),
      );
    else
      out(
        `index:        ${info.index}\nvault:        ${info.vault}\nmodel:        ${info.model} (${info.dimensions}-d)\nruns:         ${runs}\nnotes:        ${info.notes}\nchunks:       ${info.chunks}\nlast indexed: ${info.lastIndexed}\nstale:        ${info.stale} note(s) new, edited or deleted since the last index${
          writer
            ? `\nindexing:     in progress (pid ${writer}) — the stale notes are those it has not stored yet`
            : info.stale
              ? ` — run \`${indexCommand(loc)}\``
              : ""
        }`,
      );
  } finally {
    await store.close();
  }
}
