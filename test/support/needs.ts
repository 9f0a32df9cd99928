import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";

/**
 * Tests that need something of the machine (a Chroma server, a mount namespace, root's capabilities
 * dropped) say so: when it is missing they are skipped, with the reason in their title and on
 * stderr, never passed silently nor failed with a cryptic error. `VAULT_RAG_TEST_STRICT=1` makes a
 * missing requirement fail instead (for CI machines that are meant to run everything).
 */
export function needs(title: string, missing: string | undefined): string {
  if (!missing) return title;
  if (process.env.VAULT_RAG_TEST_STRICT === "1") throw new Error(`vault-rag tests: "${title}" cannot run: ${missing}`);
  process.stderr.write(`vault-rag tests: skipping "${title}": ${missing}\n`);
  return `${title} [skipped: ${missing}]`;
}

/** Why the suite has no Chroma server (test/support/chroma-setup.ts could not start one), or undefined. */
export const CHROMA_MISSING: string | undefined = inject("chromaMissing") || undefined;

/** The prefix that runs a command in a private mount namespace (root: `unshare -m`; others: also a user namespace). */
export const MOUNT_NAMESPACE = process.getuid?.() === 0 ? ["unshare", "-m"] : ["unshare", "-rm"];

/** Why a tmpfs cannot be mounted in a private mount namespace here, or undefined when it can. */
export function mountNamespaceMissing(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-probe-"));
  try {
    const r = spawnSync(
      MOUNT_NAMESPACE[0],
      [...MOUNT_NAMESPACE.slice(1), "sh", "-c", `mount -t tmpfs -o size=64k tmpfs "${dir}" && umount "${dir}"`],
      { encoding: "utf8" },
    );
    if (r.status === 0) return undefined;
    const why = (r.error?.message ?? r.stderr).trim().split("\n")[0];
    return `needs \`${MOUNT_NAMESPACE.join(" ")}\` (util-linux) to mount a small tmpfs in a private mount namespace — as root, or with unprivileged user namespaces enabled (${why})`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A command prefix under which file permissions apply even to root (see test/reliability/helpers.ts). */
export const OBEY_PERMISSIONS =
  process.getuid?.() === 0 ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] : [];

/** Why permission bits cannot be made to apply here, or undefined when they can. */
export function permissionsMissing(): string | undefined {
  if (!OBEY_PERMISSIONS.length) return undefined;
  const r = spawnSync(OBEY_PERMISSIONS[0], [...OBEY_PERMISSIONS.slice(1), "true"], { encoding: "utf8" });
  if (r.status === 0) return undefined;
  return `runs as root, so it needs \`setpriv\` (util-linux) allowed to drop root's permission-override capabilities (${(r.error?.message ?? r.stderr).trim().split("\n")[0]})`;
}
