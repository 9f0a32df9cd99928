/**
 * The embed stage's names that the interfaces show, in a module of their own with no imports, so
 * that a command's help and `status` do not load the embedders.
 */

/**
 * The environment variable that lets an index's own model send text over the network: a
 * comma-separated list of model specs (`openai:text-embedding-3-small`), or `<provider>:*` for every
 * model of a provider (`ollama:*`). The index file travels with a synced or cloned vault, so what
 * its manifest names is not trusted to send notes or questions off this machine.
 *
 * @example
 * ```ts
 * process.env[ALLOW_REMOTE_ENV] = "ollama:*"; // every Ollama model may be sent text
 * ```
 */
export const ALLOW_REMOTE_ENV = "VAULT_RAG_ALLOW_REMOTE";
