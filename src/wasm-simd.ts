/**
 * Whether this host runs WebAssembly SIMD: one check shared by the embedding kernels and the int8
 * store kernel. `VAULT_RAG_WASM_SIMD=0` makes the host look as one without it (for tests, or to
 * rule SIMD out while chasing a problem).
 */

/** The smallest module that needs SIMD: `(func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)`. */
const PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);
let validated: boolean | undefined;

/**
 * True when WebAssembly SIMD can be used here; false without it or when `VAULT_RAG_WASM_SIMD=0`.
 *
 * @example
 * ```ts
 * const kernels = wasmSimd() ? "fast SIMD kernels" : "stock kernels";
 * ```
 */
export function wasmSimd(): boolean {
  if (process.env.VAULT_RAG_WASM_SIMD === "0") return false;
  validated ??= (() => {
    try {
      return WebAssembly.validate(PROBE);
    } catch {
      return false;
    }
  })();
  return validated;
}
