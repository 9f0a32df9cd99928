;; Float32 matrix products with 128-bit SIMD for the bundled model: TensorFlow.js's wasm backend
;; runs batched products (attention) in a scalar loop at ~1 GFLOP/s, and its XNNPACK products
;; (the dense layers, 90% of the model's work) reach 15–23 GFLOP/s here; these reach ~30 and ~22.
;; Every output is summed over k in order, like the plain triple loop (no fused multiply-add), so
;; results equal that loop's bit for bit.
;;
;; matmul(a, b, c, m, k, n): C[m×n] = A[m×k] · B[k×n], row-major float32, byte addresses in this
;; module's memory; n must be a multiple of 4 (the caller pads). Rows of C are built two at a time, 16 columns at a time, in
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
    (local $j i32) (local $aend i32) (local $ap i32) (local $bp i32) (local $nb i32) (local $kb i32) (local $r1 i32)
    (local $a0 v128) (local $a1 v128) (local $bv v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local $d0 v128) (local $d1 v128) (local $d2 v128) (local $d3 v128)
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $kb (i32.shl (local.get $k) (i32.const 2)))
    ;; the second row's offset in A; with one row, row 0 again (its sums are not stored)
    (local.set $r1 (select (local.get $kb) (i32.const 0) (local.get $two)))
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
            (local.set $a0 (v128.load32_splat (local.get $ap)))
            (local.set $a1 (v128.load32_splat (i32.add (local.get $ap) (local.get $r1))))
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
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.mul (v128.load32_splat (local.get $ap)) (local.get $bv))))
            (local.set $d0 (f32x4.add (local.get $d0)
              (f32x4.mul (v128.load32_splat (i32.add (local.get $ap) (local.get $r1))) (local.get $bv))))
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
      (then (call $block (local.get $arow) (local.get $b) (local.get $crow) (local.get $k) (local.get $n) (i32.const 0)))))

  ;; Two rows of C, 16 columns, from a packed panel of B (k rows of 16 floats, contiguous): each
  ;; load of B feeds both rows, each broadcast of A feeds 16 columns, in eight accumulators. Row 1 is
  ;; $r1 bytes after row 0 in A and $cr1 bytes after it in C; with one row left both are 0 (row 0
  ;; is read twice, stored once).
  (func $micro2
    (param $ap i32) (param $r1 i32) (param $bp i32) (param $k i32) (param $cp i32) (param $cr1 i32)
    (local $aend i32) (local $a0 v128) (local $a1 v128) (local $bv v128)
    (local $c00 v128) (local $c01 v128) (local $c02 v128) (local $c03 v128)
    (local $c10 v128) (local $c11 v128) (local $c12 v128) (local $c13 v128)
    (local.set $aend (i32.add (local.get $ap) (i32.shl (local.get $k) (i32.const 2))))
    (block $done
      (loop $ks
        (br_if $done (i32.ge_u (local.get $ap) (local.get $aend)))
        (local.set $a0 (v128.load32_splat (local.get $ap)))
        (local.set $a1 (v128.load32_splat (i32.add (local.get $ap) (local.get $r1))))
        (local.set $bv (v128.load (local.get $bp)))
        (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $a0) (local.get $bv))))
        (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $a1) (local.get $bv))))
        (local.set $bv (v128.load offset=16 (local.get $bp)))
        (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $a0) (local.get $bv))))
        (local.set $c11 (f32x4.add (local.get $c11) (f32x4.mul (local.get $a1) (local.get $bv))))
        (local.set $bv (v128.load offset=32 (local.get $bp)))
        (local.set $c02 (f32x4.add (local.get $c02) (f32x4.mul (local.get $a0) (local.get $bv))))
        (local.set $c12 (f32x4.add (local.get $c12) (f32x4.mul (local.get $a1) (local.get $bv))))
        (local.set $bv (v128.load offset=48 (local.get $bp)))
        (local.set $c03 (f32x4.add (local.get $c03) (f32x4.mul (local.get $a0) (local.get $bv))))
        (local.set $c13 (f32x4.add (local.get $c13) (f32x4.mul (local.get $a1) (local.get $bv))))
        (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
        (local.set $bp (i32.add (local.get $bp) (i32.const 64)))
        (br $ks)))
    (v128.store (local.get $cp) (local.get $c00))
    (v128.store offset=16 (local.get $cp) (local.get $c01))
    (v128.store offset=32 (local.get $cp) (local.get $c02))
    (v128.store offset=48 (local.get $cp) (local.get $c03))
    (if (local.get $cr1)
      (then
        (local.set $cp (i32.add (local.get $cp) (local.get $cr1)))
        (v128.store (local.get $cp) (local.get $c10))
        (v128.store offset=16 (local.get $cp) (local.get $c11))
        (v128.store offset=32 (local.get $cp) (local.get $c12))
        (v128.store offset=48 (local.get $cp) (local.get $c13)))))

  ;; gemm(a, bp, c, m, k, n): C[m×n] = A[m×k] · B[k×n] with B packed as n/16 panels of k×16 floats
  ;; (n a multiple of 16), for the model's weights, packed once. Rows go 48 at a time, so that block
  ;; of A stays in cache while every panel of B passes over it, two rows per pass.
  (func (export "gemm")
    (param $a i32) (param $bp i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32)
    (local $i0 i32) (local $iend i32) (local $i i32) (local $p i32) (local $panels i32)
    (local $kb i32) (local $nb i32) (local $two i32)
    (local.set $kb (i32.shl (local.get $k) (i32.const 2)))
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $panels (i32.shr_u (local.get $n) (i32.const 4)))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.ge_u (local.get $i0) (local.get $m)))
        (local.set $iend (select (local.get $m) (i32.add (local.get $i0) (i32.const 48))
          (i32.lt_u (local.get $m) (i32.add (local.get $i0) (i32.const 48)))))
        (local.set $p (i32.const 0))
        (block $panels_done
          (loop $panel
            (br_if $panels_done (i32.ge_u (local.get $p) (local.get $panels)))
            (local.set $i (local.get $i0))
            (block $rows_done
              (loop $rows
                (br_if $rows_done (i32.ge_u (local.get $i) (local.get $iend)))
                (local.set $two (i32.gt_u (i32.sub (local.get $iend) (local.get $i)) (i32.const 1)))
                (call $micro2
                  (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $kb)))
                  (select (local.get $kb) (i32.const 0) (local.get $two))
                  (i32.add (local.get $bp) (i32.shl (i32.mul (local.get $p) (local.get $k)) (i32.const 6)))
                  (local.get $k)
                  (i32.add (i32.add (local.get $c) (i32.mul (local.get $i) (local.get $nb))) (i32.shl (local.get $p) (i32.const 6)))
                  (select (local.get $nb) (i32.const 0) (local.get $two)))
                (local.set $i (i32.add (local.get $i) (i32.const 2)))
                (br $rows)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $panel)))
        (local.set $i0 (local.get $iend))
        (br $blocks)))))
