;; A float32 matrix product with 128-bit SIMD, for the attention products of the bundled model
;; (TensorFlow.js's wasm backend runs batched matrix products in a scalar loop at ~1 GFLOP/s).
;;
;; matmul(a, b, c, m, k, n): C[m×n] = A[m×k] · B[k×n], row-major float32, byte addresses in this
;; module's memory; n must be a multiple of 4 (the caller pads). Each output is summed over k in
;; order, like the plain triple loop. Rows of C are built two at a time, 16 columns at a time, in
;; eight vector accumulators (each load of B feeds two rows, each broadcast of A feeds 16 columns);
;; then 4 columns at a time for the rest, and a last odd row alone.
;;
;; The bytes in matmul-wasm.ts are this file assembled (`node scripts/wasm-bytes.mjs`); a test
;; assembles it again and compares.
(module
  (memory (export "memory") 1)

  ;; rows [i, i + rows) of C, rows = 1 or 2
  (func $block
    (param $arow i32) (param $b i32) (param $crow i32) (param $k i32) (param $n i32) (param $two i32)
    (local $j i32) (local $aend i32) (local $ap i32) (local $bp i32) (local $nb i32) (local $kb i32)
    (local $a0 v128) (local $a1 v128) (local $bv v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local $d0 v128) (local $d1 v128) (local $d2 v128) (local $d3 v128)
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $kb (i32.shl (local.get $k) (i32.const 2)))
    (local.set $aend (i32.add (local.get $arow) (local.get $kb)))
    ;; 16 columns at a time
    (block $wide_done
      (loop $wide
        (br_if $wide_done (i32.gt_u (i32.add (local.get $j) (i32.const 16)) (local.get $n)))
        (local.set $c0 (v128.const i32x4 0 0 0 0))
        (local.set $c1 (v128.const i32x4 0 0 0 0))
        (local.set $c2 (v128.const i32x4 0 0 0 0))
        (local.set $c3 (v128.const i32x4 0 0 0 0))
        (local.set $d0 (v128.const i32x4 0 0 0 0))
        (local.set $d1 (v128.const i32x4 0 0 0 0))
        (local.set $d2 (v128.const i32x4 0 0 0 0))
        (local.set $d3 (v128.const i32x4 0 0 0 0))
        (local.set $ap (local.get $arow))
        (local.set $bp (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))
        (block $k_done
          (loop $ks
            (br_if $k_done (i32.ge_u (local.get $ap) (local.get $aend)))
            (local.set $a0 (f32x4.splat (f32.load (local.get $ap))))
            ;; the second row (a copy of the first when there is one row: its sums are not stored)
            (local.set $a1 (f32x4.splat (f32.load (i32.add (local.get $ap) (i32.mul (local.get $kb) (local.get $two))))))
            (local.set $bv (v128.load (local.get $bp)))
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.mul (local.get $a0) (local.get $bv))))
            (local.set $d0 (f32x4.add (local.get $d0) (f32x4.mul (local.get $a1) (local.get $bv))))
            (local.set $bv (v128.load offset=16 (local.get $bp)))
            (local.set $c1 (f32x4.add (local.get $c1) (f32x4.mul (local.get $a0) (local.get $bv))))
            (local.set $d1 (f32x4.add (local.get $d1) (f32x4.mul (local.get $a1) (local.get $bv))))
            (local.set $bv (v128.load offset=32 (local.get $bp)))
            (local.set $c2 (f32x4.add (local.get $c2) (f32x4.mul (local.get $a0) (local.get $bv))))
            (local.set $d2 (f32x4.add (local.get $d2) (f32x4.mul (local.get $a1) (local.get $bv))))
            (local.set $bv (v128.load offset=48 (local.get $bp)))
            (local.set $c3 (f32x4.add (local.get $c3) (f32x4.mul (local.get $a0) (local.get $bv))))
            (local.set $d3 (f32x4.add (local.get $d3) (f32x4.mul (local.get $a1) (local.get $bv))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
            (local.set $bp (i32.add (local.get $bp) (local.get $nb)))
            (br $ks)))
        (local.set $bp (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
        (v128.store (local.get $bp) (local.get $c0))
        (v128.store offset=16 (local.get $bp) (local.get $c1))
        (v128.store offset=32 (local.get $bp) (local.get $c2))
        (v128.store offset=48 (local.get $bp) (local.get $c3))
        (if (local.get $two)
          (then
            (local.set $bp (i32.add (local.get $bp) (local.get $nb)))
            (v128.store (local.get $bp) (local.get $d0))
            (v128.store offset=16 (local.get $bp) (local.get $d1))
            (v128.store offset=32 (local.get $bp) (local.get $d2))
            (v128.store offset=48 (local.get $bp) (local.get $d3))))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (br $wide)))
    ;; the remaining columns, 4 at a time
    (block $narrow_done
      (loop $narrow
        (br_if $narrow_done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $c0 (v128.const i32x4 0 0 0 0))
        (local.set $d0 (v128.const i32x4 0 0 0 0))
        (local.set $ap (local.get $arow))
        (local.set $bp (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))
        (block $k4_done
          (loop $k4
            (br_if $k4_done (i32.ge_u (local.get $ap) (local.get $aend)))
            (local.set $bv (v128.load (local.get $bp)))
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.mul (f32x4.splat (f32.load (local.get $ap))) (local.get $bv))))
            (local.set $d0 (f32x4.add (local.get $d0)
              (f32x4.mul (f32x4.splat (f32.load (i32.add (local.get $ap) (i32.mul (local.get $kb) (local.get $two))))) (local.get $bv))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
            (local.set $bp (i32.add (local.get $bp) (local.get $nb)))
            (br $k4)))
        (local.set $bp (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
        (v128.store (local.get $bp) (local.get $c0))
        (if (local.get $two) (then (v128.store (i32.add (local.get $bp) (local.get $nb)) (local.get $d0))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $narrow))))

  (func (export "matmul")
    (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32)
    (local $i i32) (local $arow i32) (local $crow i32)
    (local.set $arow (local.get $a))
    (local.set $crow (local.get $c))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.gt_u (i32.add (local.get $i) (i32.const 2)) (local.get $m)))
        (call $block (local.get $arow) (local.get $b) (local.get $crow) (local.get $k) (local.get $n) (i32.const 1))
        (local.set $arow (i32.add (local.get $arow) (i32.shl (local.get $k) (i32.const 3))))
        (local.set $crow (i32.add (local.get $crow) (i32.shl (local.get $n) (i32.const 3))))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $rows)))
    (if (i32.lt_u (local.get $i) (local.get $m))
      (then (call $block (local.get $arow) (local.get $b) (local.get $crow) (local.get $k) (local.get $n) (i32.const 0))))))
