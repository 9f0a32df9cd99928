/** Limits of reading a note that the interfaces name in their help: a module of its own, light to load. */

/** The most `get_note` returns, in characters (about 10,000 tokens); longer text is cut with a mark. */
export const GET_NOTE_MAX_CHARS = 40_000;
