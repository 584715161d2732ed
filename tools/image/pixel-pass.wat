;; One pass over a decoded RGB or RGBA frame (pixel-pass.ts lays out memory), row by row,
;; the rows arriving in chunks (pixel-pass.ts copies each into a buffer that stays in cache):
;;  1. flatten transparency onto white, in place:  (c*a + 255*(255-a) + 127) / 255
;;  2. Pillow's convert('L'):            (R*19595 + G*38470 + B*7471 + 0x8000) >> 16
;;  3. area-weighted thumbnail sums (pixels.ts cellWeights, in 1/32 pixel): per-column sums
;;     of the band's rows, each row weighted by the part of it inside the band (a row on a
;;     band border is added to both bands, split), folded into the band's 32 cells with the
;;     columns' weights when the band ends (JS divides)
;;  4. Pillow's horizontal LANCZOS pass of the grey row: 22-bit fixed-point taps, clip8;
;;     then, once every row is in, the vertical pass over those 32 columns (`vertical`).
;; Opaque rows (every RGB row; RGBA rows whose alpha is all 255) go straight to SIMD for
;; 2-3, four pixels (grey) or sixteen samples (sums) at a time; rows with transparency are
;; flattened by a scalar loop first (alpha set to 255), then take the same SIMD path.
;; Step 4 takes eight taps at a time (grey as i16, taps split into i16 halves, zero-padded).
;; SIMD loops may read and write a few lanes past a row: pixel-pass.ts pads every buffer,
;; and the extra grey values meet zero taps, the extra sums are never folded.
;; i32 arithmetic wraps exactly like Pillow's `int ss`. Column sums stay below 2^32
;; (255 * height; pixel-pass.ts bounds the height), cell sums are i64, stored as f64 (exact:
;; below 2^53).
;; The same arithmetic as pixels.ts and pil-resize.ts, which stay the reference and the
;; path for frames smaller than 32 px; tests hold the two to identical results.
(module
  (memory (export "memory") 1)

  ;; Pillow's clip8 for a 22-bit fixed-point sum.
  (func $clip8 (param $v i32) (result i32)
    (if (i32.ge_s (local.get $v) (i32.const 1073741824)) (then (return (i32.const 255))))
    (if (i32.le_s (local.get $v) (i32.const 0)) (then (return (i32.const 0))))
    (i32.shr_s (local.get $v) (i32.const 22)))

  ;; Composite one 8-bit sample with alpha onto white (integer, round half up).
  (func $flatten (param $c i32) (param $a i32) (result i32)
    (i32.div_u
      (i32.add
        (i32.mul (local.get $c) (local.get $a))
        (i32.add (i32.mul (i32.sub (i32.const 255) (local.get $a)) (i32.const 255)) (i32.const 127)))
      (i32.const 255)))

  ;; Whether every alpha byte of an RGBA row is 255 (reads whole 16-byte groups).
  (func $opaque (param $p i32) (param $width i32) (result i32)
    (local $end i32) (local $all v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $width) (i32.const 2))))
    (local.set $all (v128.const i32x4 -1 -1 -1 -1))
    (block $done
      (loop $groups
        (br_if $done (i32.ge_u (i32.add (local.get $p) (i32.const 16)) (i32.add (local.get $end) (i32.const 1))))
        (local.set $all (v128.and (local.get $all) (v128.load (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $groups)))
    ;; The last 0-3 pixels one by one.
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.ne (i32.load8_u offset=3 (local.get $p)) (i32.const 255)) (then (return (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $tail)))
    ;; Every alpha byte of the groups is 255 when the top byte of each lane is.
    (i32x4.all_true (i32x4.eq (i32x4.shr_u (local.get $all) (i32.const 24)) (v128.const i32x4 255 255 255 255))))

  ;; Grey of an opaque row, four pixels per step: bytes shuffled into i16 lanes, R and B
  ;; of each pixel side by side (R0 B0 R1 B1 …) and G twice (G0 G0 G1 G1 …), then one
  ;; i32x4.dot_i16x8_s each: R*19595 + B*7471 and G*19235 + G*19235 (38470 does not fit an
  ;; i16), the same integers as Pillow's sum. Into grey as i16.
  (func $greyOpaque (param $p i32) (param $width i32) (param $channels i32) (param $grey i32)
    (local $x i32) (local $v v128) (local $rb v128) (local $gg v128) (local $step i32)
    (local.set $step (i32.shl (local.get $channels) (i32.const 2)))
    (block $done
      (loop $quads
        (br_if $done (i32.ge_u (local.get $x) (local.get $width)))
        (local.set $v (v128.load (local.get $p)))
        (if (i32.eq (local.get $channels) (i32.const 3))
          (then
            (local.set $rb (i8x16.shuffle 0 16 2 16 3 16 5 16 6 16 8 16 9 16 11 16 (local.get $v) (v128.const i32x4 0 0 0 0)))
            (local.set $gg (i8x16.shuffle 1 16 1 16 4 16 4 16 7 16 7 16 10 16 10 16 (local.get $v) (v128.const i32x4 0 0 0 0))))
          (else
            (local.set $rb (i8x16.shuffle 0 16 2 16 4 16 6 16 8 16 10 16 12 16 14 16 (local.get $v) (v128.const i32x4 0 0 0 0)))
            (local.set $gg (i8x16.shuffle 1 16 1 16 5 16 5 16 9 16 9 16 13 16 13 16 (local.get $v) (v128.const i32x4 0 0 0 0)))))
        (local.set $v
          (i32x4.shr_u
            (i32x4.add
              (i32x4.add
                (i32x4.dot_i16x8_s (local.get $rb) (v128.const i16x8 19595 7471 19595 7471 19595 7471 19595 7471))
                (i32x4.dot_i16x8_s (local.get $gg) (v128.const i16x8 19235 19235 19235 19235 19235 19235 19235 19235)))
              (v128.const i32x4 32768 32768 32768 32768))
            (i32.const 16)))
        ;; Stored as four i16 (the grey levels are 0..255).
        (v128.store64_lane 0 (local.get $grey) (i16x8.narrow_i32x4_u (local.get $v) (local.get $v)))
        (local.set $p (i32.add (local.get $p) (local.get $step)))
        (local.set $grey (i32.add (local.get $grey) (i32.const 8)))
        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (br $quads))))

  ;; colsum[i] += w * row byte i for the n bytes of an opaque row, sixteen at a time
  ;; (w: the row's weight in the band, 1..32).
  (func $sumsRow (param $p i32) (param $n i32) (param $colsum i32) (param $w i32)
    (local $end i32) (local $v v128) (local $lo v128) (local $hi v128) (local $wv v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $wv (i16x8.splat (local.get $w)))
    (block $done
      (loop $groups
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        ;; 255 * 32 fits an i16 lane unsigned: weight while the samples are 16 bits wide.
        (local.set $lo (i16x8.mul (i16x8.extend_low_i8x16_u (local.get $v)) (local.get $wv)))
        (local.set $hi (i16x8.mul (i16x8.extend_high_i8x16_u (local.get $v)) (local.get $wv)))
        (v128.store (local.get $colsum) (i32x4.add (v128.load (local.get $colsum)) (i32x4.extend_low_i16x8_u (local.get $lo))))
        (v128.store offset=16 (local.get $colsum) (i32x4.add (v128.load offset=16 (local.get $colsum)) (i32x4.extend_high_i16x8_u (local.get $lo))))
        (v128.store offset=32 (local.get $colsum) (i32x4.add (v128.load offset=32 (local.get $colsum)) (i32x4.extend_low_i16x8_u (local.get $hi))))
        (v128.store offset=48 (local.get $colsum) (i32x4.add (v128.load offset=48 (local.get $colsum)) (i32x4.extend_high_i16x8_u (local.get $hi))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $colsum (i32.add (local.get $colsum) (i32.const 64)))
        (br $groups))))

  ;; An RGBA row with transparency, pixel by pixel: flattened onto white in place (alpha set
  ;; to 255), so that it then takes the opaque path like any other row.
  (func $flattenRow (param $p i32) (param $width i32)
    (local $end i32) (local $a i32)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $width) (i32.const 2))))
    (block $done
      (loop $pixels
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a (i32.load8_u offset=3 (local.get $p)))
        (if (i32.ne (local.get $a) (i32.const 255))
          (then
            (i32.store8 (local.get $p) (call $flatten (i32.load8_u (local.get $p)) (local.get $a)))
            (i32.store8 offset=1 (local.get $p) (call $flatten (i32.load8_u offset=1 (local.get $p)) (local.get $a)))
            (i32.store8 offset=2 (local.get $p) (call $flatten (i32.load8_u offset=2 (local.get $p)) (local.get $a)))
            (i32.store8 offset=3 (local.get $p) (i32.const 255))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $pixels))))

  ;; Step 4 for one grey row (i16): one fixed-point dot product per output column, into
  ;; midRow, eight taps at a time with i32x4.dot_i16x8_s. A 22-bit tap does not fit an i16
  ;; lane, so each is split as hi * 2048 + lo (hi = tap >> 11, signed; lo = tap & 2047): the
  ;; column's taps are blocks of 32 bytes, eight hi then eight lo (zero-padded), and its sum
  ;; is (sum(grey * hi) << 11) + sum(grey * lo), the same integer as Pillow's (i32 wraps the
  ;; same way). tblocks: i32 per output, its number of blocks.
  (func $horizontal (param $grey i32) (param $taps i32) (param $kstride i32) (param $tstart i32) (param $tblocks i32) (param $outW i32) (param $midRow i32)
    (local $xx i32) (local $q i32) (local $gp i32) (local $tp i32) (local $end i32) (local $g v128) (local $hi v128) (local $lo v128)
    (block $colsDone
      (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $xx) (local.get $outW)))
        (local.set $q (i32.shl (local.get $xx) (i32.const 2)))
        (local.set $gp (i32.add (local.get $grey) (i32.shl (i32.load (i32.add (local.get $tstart) (local.get $q))) (i32.const 1))))
        (local.set $tp (local.get $taps))
        (local.set $end (i32.add (local.get $taps) (i32.shl (i32.load (i32.add (local.get $tblocks) (local.get $q))) (i32.const 5))))
        (local.set $hi (v128.const i32x4 0 0 0 0))
        (local.set $lo (v128.const i32x4 0 0 0 0))
        (block $tapsDone
          (loop $tapLoop
            (br_if $tapsDone (i32.ge_u (local.get $tp) (local.get $end)))
            (local.set $g (v128.load (local.get $gp)))
            (local.set $hi (i32x4.add (local.get $hi) (i32x4.dot_i16x8_s (local.get $g) (v128.load (local.get $tp)))))
            (local.set $lo (i32x4.add (local.get $lo) (i32x4.dot_i16x8_s (local.get $g) (v128.load offset=16 (local.get $tp)))))
            (local.set $gp (i32.add (local.get $gp) (i32.const 16)))
            (local.set $tp (i32.add (local.get $tp) (i32.const 32)))
            (br $tapLoop)))
        (local.set $hi (i32x4.add (i32x4.shl (local.get $hi) (i32.const 11)) (local.get $lo)))
        (i32.store8
          (i32.add (local.get $midRow) (local.get $xx))
          (call $clip8
            (i32.add
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $hi)) (i32x4.extract_lane 1 (local.get $hi)))
                (i32.add (i32x4.extract_lane 2 (local.get $hi)) (i32x4.extract_lane 3 (local.get $hi))))
              (i32.const 2097152))))
        (local.set $taps (i32.add (local.get $taps) (local.get $kstride)))
        (local.set $xx (i32.add (local.get $xx) (i32.const 1)))
        (br $cols))))

  ;; Fold a band's column sums into its 32 cells, each column weighted by the part of it
  ;; inside the cell (cellx: first, end, head, tail per cell, as pixels.ts cellWeights),
  ;; into the acc row of 32 x 3 f64; then zero the sums.
  (func $foldBand (param $colsum i32) (param $width i32) (param $channels i32) (param $cellx i32) (param $accRow i32)
    (local $cell i32) (local $x i32) (local $first i32) (local $xEnd i32) (local $s i32) (local $w i64)
    (local $sr i64) (local $sg i64) (local $sb i64) (local $stride i32)
    (local.set $stride (i32.shl (local.get $channels) (i32.const 2)))
    (block $cellsDone
      (loop $cells
        (br_if $cellsDone (i32.ge_u (local.get $cell) (i32.const 32)))
        (local.set $first (i32.load (local.get $cellx)))
        (local.set $xEnd (i32.load offset=4 (local.get $cellx)))
        (local.set $x (local.get $first))
        (local.set $s (i32.add (local.get $colsum) (i32.mul (local.get $x) (local.get $stride))))
        (local.set $sr (i64.const 0))
        (local.set $sg (i64.const 0))
        (local.set $sb (i64.const 0))
        (block $pixelsDone
          (loop $pixels
            (br_if $pixelsDone (i32.ge_u (local.get $x) (local.get $xEnd)))
            (local.set $w
              (i64.extend_i32_u
                (if (result i32) (i32.eq (local.get $x) (local.get $first))
                  (then (i32.load offset=8 (local.get $cellx)))
                  (else
                    (if (result i32) (i32.eq (local.get $x) (i32.sub (local.get $xEnd) (i32.const 1)))
                      (then (i32.load offset=12 (local.get $cellx)))
                      (else (i32.const 32)))))))
            (local.set $sr (i64.add (local.get $sr) (i64.mul (local.get $w) (i64.extend_i32_u (i32.load (local.get $s))))))
            (local.set $sg (i64.add (local.get $sg) (i64.mul (local.get $w) (i64.extend_i32_u (i32.load offset=4 (local.get $s))))))
            (local.set $sb (i64.add (local.get $sb) (i64.mul (local.get $w) (i64.extend_i32_u (i32.load offset=8 (local.get $s))))))
            (local.set $s (i32.add (local.get $s) (local.get $stride)))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $pixels)))
        (f64.store (local.get $accRow) (f64.convert_i64_u (local.get $sr)))
        (f64.store offset=8 (local.get $accRow) (f64.convert_i64_u (local.get $sg)))
        (f64.store offset=16 (local.get $accRow) (f64.convert_i64_u (local.get $sb)))
        (local.set $accRow (i32.add (local.get $accRow) (i32.const 24)))
        (local.set $cellx (i32.add (local.get $cellx) (i32.const 16)))
        (local.set $cell (i32.add (local.get $cell) (i32.const 1)))
        (br $cells)))
    (memory.fill (local.get $colsum) (i32.const 0) (i32.mul (local.get $width) (local.get $stride))))

;; Pillow's vertical LANCZOS pass over the 32-byte rows of mid (the horizontal pass's output),
  ;; all 32 columns at once (eight i32x4 sums), for the outH output rows: output row yy reads
  ;; vcount[yy] rows from row vstart[yy] with the i32 taps at vtaps + yy * vkstride; each sum
  ;; starts at 1 << 21 and is clipped like $clip8 (>> 22, clamped to 0..255). Into out, 32
  ;; bytes per output row.
  (func (export "vertical") (param $mid i32) (param $vtaps i32) (param $vkstride i32) (param $vstart i32) (param $vcount i32) (param $outH i32) (param $out i32)
    (local $yy i32) (local $row i32) (local $tap i32) (local $n i32) (local $i i32) (local $w v128)
    (local $lo v128) (local $hi v128) (local $lo16 v128) (local $hi16 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $s4 v128) (local $s5 v128) (local $s6 v128) (local $s7 v128)
    (block $outDone
      (loop $outRows
        (br_if $outDone (i32.ge_u (local.get $yy) (local.get $outH)))
        (local.set $row (i32.add (local.get $mid) (i32.shl (i32.load (i32.add (local.get $vstart) (i32.shl (local.get $yy) (i32.const 2)))) (i32.const 5))))
        (local.set $n (i32.load (i32.add (local.get $vcount) (i32.shl (local.get $yy) (i32.const 2)))))
        (local.set $tap (i32.add (local.get $vtaps) (i32.mul (local.get $yy) (local.get $vkstride))))
        (local.set $s0 (v128.const i32x4 2097152 2097152 2097152 2097152))
        (local.set $s1 (local.get $s0)) (local.set $s2 (local.get $s0)) (local.set $s3 (local.get $s0))
        (local.set $s4 (local.get $s0)) (local.set $s5 (local.get $s0)) (local.set $s6 (local.get $s0)) (local.set $s7 (local.get $s0))
        (local.set $i (i32.const 0))
        (block $tapsDone
          (loop $taps
            (br_if $tapsDone (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $w (v128.load32_splat (local.get $tap)))
            (local.set $lo (v128.load (local.get $row)))
            (local.set $hi (v128.load offset=16 (local.get $row)))
            (local.set $lo16 (i16x8.extend_low_i8x16_u (local.get $lo)))
            (local.set $s0 (i32x4.add (local.get $s0) (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $lo16)) (local.get $w))))
            (local.set $s1 (i32x4.add (local.get $s1) (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $lo16)) (local.get $w))))
            (local.set $lo16 (i16x8.extend_high_i8x16_u (local.get $lo)))
            (local.set $s2 (i32x4.add (local.get $s2) (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $lo16)) (local.get $w))))
            (local.set $s3 (i32x4.add (local.get $s3) (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $lo16)) (local.get $w))))
            (local.set $hi16 (i16x8.extend_low_i8x16_u (local.get $hi)))
            (local.set $s4 (i32x4.add (local.get $s4) (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $hi16)) (local.get $w))))
            (local.set $s5 (i32x4.add (local.get $s5) (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $hi16)) (local.get $w))))
            (local.set $hi16 (i16x8.extend_high_i8x16_u (local.get $hi)))
            (local.set $s6 (i32x4.add (local.get $s6) (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $hi16)) (local.get $w))))
            (local.set $s7 (i32x4.add (local.get $s7) (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $hi16)) (local.get $w))))
            (local.set $row (i32.add (local.get $row) (i32.const 32)))
            (local.set $tap (i32.add (local.get $tap) (i32.const 4)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $taps)))
        ;; clip8 on every lane, then narrowed to bytes (the values are 0..255 by then).
        (v128.store (local.get $out)
          (i8x16.narrow_i16x8_u
            (i16x8.narrow_i32x4_s (call $clip8x4 (local.get $s0)) (call $clip8x4 (local.get $s1)))
            (i16x8.narrow_i32x4_s (call $clip8x4 (local.get $s2)) (call $clip8x4 (local.get $s3)))))
        (v128.store offset=16 (local.get $out)
          (i8x16.narrow_i16x8_u
            (i16x8.narrow_i32x4_s (call $clip8x4 (local.get $s4)) (call $clip8x4 (local.get $s5)))
            (i16x8.narrow_i32x4_s (call $clip8x4 (local.get $s6)) (call $clip8x4 (local.get $s7)))))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (local.set $yy (i32.add (local.get $yy) (i32.const 1)))
        (br $outRows))))

  ;; $clip8 on four lanes: >= 1 << 30 gives 255, <= 0 gives 0, else >> 22.
  (func $clip8x4 (param $v v128) (result v128)
    (i32x4.min_s (i32x4.max_s (i32x4.shr_s (local.get $v) (i32.const 22)) (v128.const i32x4 0 0 0 0)) (v128.const i32x4 255 255 255 255)))

  ;; Rows y0..y1 of the frame (called once per chunk of rows, in order, from y0 = 0; the
  ;; band state is derived from y0, the column sums carry over from the previous call).
  ;; src: rows y0..y1, width*channels bytes each (channels 3 or 4), row-major; rows with
  ;;   transparency are flattened in place.
  ;; grey: scratch for one row, (width + 8) i16.
  ;; taps: outW rows of kstride bytes (blocks of 8 hi + 8 lo i16 taps, see $horizontal);
  ;;   tstart/tblocks: i32 per output (first source column; blocks of eight taps).
  ;; cellx: 32 x (first, end, head, tail) i32, the columns of each thumbnail column and the
  ;;   weights of its first and last (pixels.ts cellWeights). Rows are weighted the same way,
  ;;   computed here: row y covers [32y, 32y + 32) and band b [b*height, (b+1)*height).
  ;; colsum: width*channels i32 (+16), zeroed by the caller. acc: 32*32*3 f64 out (cell sums).
  ;; mid: height*outW bytes out.
  (func (export "rows")
    (param $src i32) (param $y0 i32) (param $y1 i32) (param $width i32) (param $height i32) (param $channels i32)
    (param $grey i32) (param $taps i32) (param $kstride i32) (param $tstart i32) (param $tblocks i32) (param $outW i32)
    (param $cellx i32) (param $acc i32) (param $mid i32) (param $colsum i32)
    (local $band i32) (local $y i32) (local $lo i32) (local $boundary i32) (local $p i32) (local $rowBytes i32)
    (local.set $rowBytes (i32.mul (local.get $width) (local.get $channels)))
    ;; Row y0 starts at 32*y0 in 1/32 pixel: its band, and where that band ends.
    (local.set $band (i32.div_u (i32.shl (local.get $y0) (i32.const 5)) (local.get $height)))
    (local.set $boundary (i32.mul (i32.add (local.get $band) (i32.const 1)) (local.get $height)))
    (local.set $y (local.get $y0))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $y) (local.get $y1)))
        (local.set $p (i32.add (local.get $src) (i32.mul (i32.sub (local.get $y) (local.get $y0)) (local.get $rowBytes))))
        (if (i32.eq (local.get $channels) (i32.const 4))
          (then
            (if (i32.eqz (call $opaque (local.get $p) (local.get $width)))
              (then (call $flattenRow (local.get $p) (local.get $width))))))
        (call $greyOpaque (local.get $p) (local.get $width) (local.get $channels) (local.get $grey))
        (call $horizontal (local.get $grey) (local.get $taps) (local.get $kstride) (local.get $tstart) (local.get $tblocks) (local.get $outW)
          (i32.add (local.get $mid) (i32.mul (local.get $y) (local.get $outW))))
        (local.set $lo (i32.shl (local.get $y) (i32.const 5)))
        (if (i32.le_u (i32.add (local.get $lo) (i32.const 32)) (local.get $boundary))
          (then
            (call $sumsRow (local.get $p) (local.get $rowBytes) (local.get $colsum) (i32.const 32)))
          (else
            ;; The row straddles the band's end: its upper part ends this band, the rest
            ;; starts the next (a band is at least one row tall, so it reaches no further).
            (call $sumsRow (local.get $p) (local.get $rowBytes) (local.get $colsum) (i32.sub (local.get $boundary) (local.get $lo)))
            (call $foldBand (local.get $colsum) (local.get $width) (local.get $channels) (local.get $cellx)
              (i32.add (local.get $acc) (i32.mul (local.get $band) (i32.const 768))))
            (local.set $band (i32.add (local.get $band) (i32.const 1)))
            (local.set $boundary (i32.add (local.get $boundary) (local.get $height)))
            (call $sumsRow (local.get $p) (local.get $rowBytes) (local.get $colsum)
              (i32.sub (i32.add (local.get $lo) (i32.const 32)) (i32.sub (local.get $boundary) (local.get $height))))))
        (if (i32.eq (i32.add (local.get $lo) (i32.const 32)) (local.get $boundary))
          (then
            (call $foldBand (local.get $colsum) (local.get $width) (local.get $channels) (local.get $cellx)
              (i32.add (local.get $acc) (i32.mul (local.get $band) (i32.const 768))))
            (local.set $band (i32.add (local.get $band) (i32.const 1)))
            (local.set $boundary (i32.add (local.get $boundary) (local.get $height)))))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows)))))
