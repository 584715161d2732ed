;; One pass over a decoded RGB or RGBA frame (pixel-pass.ts lays out memory), band by band
;; of thumbnail rows, row by row:
;;  1. flatten transparency onto white:  (c*a + 255*(255-a) + 127) / 255
;;  2. Pillow's convert('L'):            (R*19595 + G*38470 + B*7471 + 0x8000) >> 16
;;  3. box-thumbnail sums: per-column sums over the band's rows, folded into its 32 cells
;;     when the band ends (JS divides)
;;  4. Pillow's horizontal LANCZOS pass of the grey row: 22-bit fixed-point taps, clip8.
;; Opaque rows (every RGB row; RGBA rows whose alpha is all 255) take SIMD for 1-3, four
;; pixels (grey) or sixteen samples (sums) at a time; rows with transparency take the scalar
;; loop. Step 4 multiplies four taps at a time (taps are zero-padded to a multiple of 4).
;; SIMD loops may read and write a few lanes past a row: pixel-pass.ts pads every buffer,
;; and the extra grey values meet zero taps, the extra sums are never folded.
;; i32 arithmetic wraps exactly like Pillow's `int ss`.
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

  ;; Grey of an opaque row, four pixels per step: each pixel's bytes go to one i32 lane as
  ;; R | G<<8 | B<<16, then the fixed-point luma in i32x4.
  (func $greyOpaque (param $p i32) (param $width i32) (param $channels i32) (param $grey i32)
    (local $x i32) (local $v v128) (local $step i32)
    (local.set $step (i32.shl (local.get $channels) (i32.const 2)))
    (block $done
      (loop $quads
        (br_if $done (i32.ge_u (local.get $x) (local.get $width)))
        (local.set $v (v128.load (local.get $p)))
        (if (i32.eq (local.get $channels) (i32.const 3))
          (then
            (local.set $v
              (i8x16.shuffle 0 1 2 16 3 4 5 16 6 7 8 16 9 10 11 16 (local.get $v) (v128.const i32x4 0 0 0 0)))))
        (v128.store (local.get $grey)
          (i32x4.shr_u
            (i32x4.add
              (i32x4.add
                (i32x4.mul (v128.and (local.get $v) (v128.const i32x4 255 255 255 255)) (v128.const i32x4 19595 19595 19595 19595))
                (i32x4.mul (v128.and (i32x4.shr_u (local.get $v) (i32.const 8)) (v128.const i32x4 255 255 255 255)) (v128.const i32x4 38470 38470 38470 38470)))
              (i32x4.add
                (i32x4.mul (v128.and (i32x4.shr_u (local.get $v) (i32.const 16)) (v128.const i32x4 255 255 255 255)) (v128.const i32x4 7471 7471 7471 7471))
                (v128.const i32x4 32768 32768 32768 32768)))
            (i32.const 16)))
        (local.set $p (i32.add (local.get $p) (local.get $step)))
        (local.set $grey (i32.add (local.get $grey) (i32.const 16)))
        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (br $quads))))

  ;; colsum[i] += row byte i for the n bytes of an opaque row, sixteen at a time.
  (func $sumsOpaque (param $p i32) (param $n i32) (param $colsum i32)
    (local $end i32) (local $v v128) (local $lo v128) (local $hi v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done
      (loop $groups
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $lo (i16x8.extend_low_i8x16_u (local.get $v)))
        (local.set $hi (i16x8.extend_high_i8x16_u (local.get $v)))
        (v128.store (local.get $colsum) (i32x4.add (v128.load (local.get $colsum)) (i32x4.extend_low_i16x8_u (local.get $lo))))
        (v128.store offset=16 (local.get $colsum) (i32x4.add (v128.load offset=16 (local.get $colsum)) (i32x4.extend_high_i16x8_u (local.get $lo))))
        (v128.store offset=32 (local.get $colsum) (i32x4.add (v128.load offset=32 (local.get $colsum)) (i32x4.extend_low_i16x8_u (local.get $hi))))
        (v128.store offset=48 (local.get $colsum) (i32x4.add (v128.load offset=48 (local.get $colsum)) (i32x4.extend_high_i16x8_u (local.get $hi))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $colsum (i32.add (local.get $colsum) (i32.const 64)))
        (br $groups))))

  ;; An RGBA row with transparency, pixel by pixel: flattened grey and column sums
  ;; (colsum keeps 4 slots per pixel, as the opaque path does; the alpha slot is unused).
  (func $rowWithAlpha (param $p i32) (param $width i32) (param $grey i32) (param $colsum i32)
    (local $x i32) (local $r i32) (local $g i32) (local $b i32) (local $a i32)
    (block $done
      (loop $pixels
        (br_if $done (i32.ge_u (local.get $x) (local.get $width)))
        (local.set $r (i32.load8_u (local.get $p)))
        (local.set $g (i32.load8_u offset=1 (local.get $p)))
        (local.set $b (i32.load8_u offset=2 (local.get $p)))
        (local.set $a (i32.load8_u offset=3 (local.get $p)))
        (if (i32.ne (local.get $a) (i32.const 255))
          (then
            (local.set $r (call $flatten (local.get $r) (local.get $a)))
            (local.set $g (call $flatten (local.get $g) (local.get $a)))
            (local.set $b (call $flatten (local.get $b) (local.get $a)))))
        (i32.store (local.get $grey)
          (i32.shr_u
            (i32.add
              (i32.add (i32.mul (local.get $r) (i32.const 19595)) (i32.mul (local.get $g) (i32.const 38470)))
              (i32.add (i32.mul (local.get $b) (i32.const 7471)) (i32.const 32768)))
            (i32.const 16)))
        (i32.store (local.get $colsum) (i32.add (i32.load (local.get $colsum)) (local.get $r)))
        (i32.store offset=4 (local.get $colsum) (i32.add (i32.load offset=4 (local.get $colsum)) (local.get $g)))
        (i32.store offset=8 (local.get $colsum) (i32.add (i32.load offset=8 (local.get $colsum)) (local.get $b)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (local.set $grey (i32.add (local.get $grey) (i32.const 4)))
        (local.set $colsum (i32.add (local.get $colsum) (i32.const 16)))
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (br $pixels))))

  ;; Step 4 for one grey row: one fixed-point dot product per output column, into midRow.
  (func $horizontal (param $grey i32) (param $taps i32) (param $kstride i32) (param $tstart i32) (param $tcount4 i32) (param $outW i32) (param $midRow i32)
    (local $xx i32) (local $q i32) (local $gp i32) (local $n i32) (local $i i32) (local $sum v128)
    (block $colsDone
      (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $xx) (local.get $outW)))
        (local.set $q (i32.shl (local.get $xx) (i32.const 2)))
        (local.set $gp (i32.add (local.get $grey) (i32.shl (i32.load (i32.add (local.get $tstart) (local.get $q))) (i32.const 2))))
        (local.set $n (i32.shl (i32.load (i32.add (local.get $tcount4) (local.get $q))) (i32.const 2)))
        (local.set $sum (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $tapsDone
          (loop $tapLoop
            (br_if $tapsDone (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $sum
              (i32x4.add (local.get $sum)
                (i32x4.mul
                  (v128.load (i32.add (local.get $gp) (local.get $i)))
                  (v128.load (i32.add (local.get $taps) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $tapLoop)))
        (i32.store8
          (i32.add (local.get $midRow) (local.get $xx))
          (call $clip8
            (i32.add
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
                (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum))))
              (i32.const 2097152))))
        (local.set $taps (i32.add (local.get $taps) (local.get $kstride)))
        (local.set $xx (i32.add (local.get $xx) (i32.const 1)))
        (br $cols))))

  ;; Fold a band's column sums into its 32 cells (acc row of 32 x 3 i32), then zero them.
  (func $foldBand (param $colsum i32) (param $width i32) (param $channels i32) (param $cellx i32) (param $accRow i32)
    (local $cell i32) (local $x i32) (local $xEnd i32) (local $s i32) (local $sr i32) (local $sg i32) (local $sb i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $channels) (i32.const 2)))
    (block $cellsDone
      (loop $cells
        (br_if $cellsDone (i32.ge_u (local.get $cell) (i32.const 32)))
        (local.set $x (i32.load (i32.add (local.get $cellx) (i32.shl (local.get $cell) (i32.const 3)))))
        (local.set $xEnd (i32.load offset=4 (i32.add (local.get $cellx) (i32.shl (local.get $cell) (i32.const 3)))))
        (local.set $s (i32.add (local.get $colsum) (i32.mul (local.get $x) (local.get $stride))))
        (local.set $sr (i32.const 0))
        (local.set $sg (i32.const 0))
        (local.set $sb (i32.const 0))
        (block $pixelsDone
          (loop $pixels
            (br_if $pixelsDone (i32.ge_u (local.get $x) (local.get $xEnd)))
            (local.set $sr (i32.add (local.get $sr) (i32.load (local.get $s))))
            (local.set $sg (i32.add (local.get $sg) (i32.load offset=4 (local.get $s))))
            (local.set $sb (i32.add (local.get $sb) (i32.load offset=8 (local.get $s))))
            (local.set $s (i32.add (local.get $s) (local.get $stride)))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $pixels)))
        (i32.store (local.get $accRow) (local.get $sr))
        (i32.store offset=4 (local.get $accRow) (local.get $sg))
        (i32.store offset=8 (local.get $accRow) (local.get $sb))
        (local.set $accRow (i32.add (local.get $accRow) (i32.const 12)))
        (local.set $cell (i32.add (local.get $cell) (i32.const 1)))
        (br $cells)))
    (memory.fill (local.get $colsum) (i32.const 0) (i32.mul (local.get $width) (local.get $stride))))

  ;; src: width*height*channels bytes (channels 3 or 4), row-major.
  ;; grey: scratch for one row, (width + 4) i32.
  ;; taps: outW rows of kstride bytes (i32 taps, zero-padded); tstart/tcount4: i32 per output
  ;;   (first source column; tap count rounded up to a multiple of 4).
  ;; cellx / celly: 32 pairs of i32 each, the [first, end) columns / rows of each thumbnail
  ;;   column / row (they tile the frame).
  ;; colsum: width*channels i32 (+16), zeroed by the caller. acc: 32*32*3 i32 out (cell sums).
  ;; mid: height*outW bytes out.
  (func (export "rows")
    (param $src i32) (param $width i32) (param $height i32) (param $channels i32)
    (param $grey i32) (param $taps i32) (param $kstride i32) (param $tstart i32) (param $tcount4 i32) (param $outW i32)
    (param $cellx i32) (param $celly i32) (param $acc i32) (param $mid i32) (param $colsum i32)
    (local $band i32) (local $y i32) (local $yEnd i32) (local $p i32) (local $rowBytes i32)
    (local.set $rowBytes (i32.mul (local.get $width) (local.get $channels)))
    (block $bandsDone
      (loop $bands
        (br_if $bandsDone (i32.ge_u (local.get $band) (i32.const 32)))
        (local.set $y (i32.load (i32.add (local.get $celly) (i32.shl (local.get $band) (i32.const 3)))))
        (local.set $yEnd (i32.load offset=4 (i32.add (local.get $celly) (i32.shl (local.get $band) (i32.const 3)))))
        (block $rowsDone
          (loop $rows
            (br_if $rowsDone (i32.ge_u (local.get $y) (local.get $yEnd)))
            (local.set $p (i32.add (local.get $src) (i32.mul (local.get $y) (local.get $rowBytes))))
            (if (i32.or (i32.eq (local.get $channels) (i32.const 3)) (call $opaque (local.get $p) (local.get $width)))
              (then
                (call $greyOpaque (local.get $p) (local.get $width) (local.get $channels) (local.get $grey))
                (call $sumsOpaque (local.get $p) (local.get $rowBytes) (local.get $colsum)))
              (else
                (call $rowWithAlpha (local.get $p) (local.get $width) (local.get $grey) (local.get $colsum))))
            (call $horizontal (local.get $grey) (local.get $taps) (local.get $kstride) (local.get $tstart) (local.get $tcount4) (local.get $outW)
              (i32.add (local.get $mid) (i32.mul (local.get $y) (local.get $outW))))
            (local.set $y (i32.add (local.get $y) (i32.const 1)))
            (br $rows)))
        (call $foldBand (local.get $colsum) (local.get $width) (local.get $channels) (local.get $cellx)
          (i32.add (local.get $acc) (i32.mul (local.get $band) (i32.const 384))))
        (local.set $band (i32.add (local.get $band) (i32.const 1)))
        (br $bands)))))
