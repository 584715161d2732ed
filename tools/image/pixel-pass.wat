;; One pass over a decoded RGB or RGBA frame, row by row (pixel-pass.ts lays out memory):
;;  1. flatten transparency onto white:  (c*a + 255*(255-a) + 127) / 255
;;  2. Pillow's convert('L'):            (R*19595 + G*38470 + B*7471 + 0x8000) >> 16
;;  3. add the flattened RGB to its 32x32 box-thumbnail cell (sums; JS divides)
;;  4. Pillow's horizontal LANCZOS pass of the grey row: 22-bit fixed-point taps, clip8,
;;     four taps per i32x4 multiply (taps are zero-padded to a multiple of 4, so there is
;;     no scalar tail). i32 arithmetic wraps exactly like Pillow's `int ss`.
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

  ;; src: width*height*channels bytes (channels 3 or 4), row-major.
  ;; grey: scratch for one row, (width + 4) i32.
  ;; taps: outW rows of kstride bytes (i32 taps, zero-padded); tstart/tcount4: i32 per output
  ;;   (first source column; tap count rounded up to a multiple of 4).
  ;; cellx: 32 pairs of i32, the [first, end) columns of each thumbnail column (they tile the row);
  ;; celly: i32 per row = byte offset of its thumbnail row in acc (cellRow * 32 * 12).
  ;; acc: 32*32*3 i32 sums (zeroed by the caller). mid: height*outW bytes out.
  (func (export "rows")
    (param $src i32) (param $width i32) (param $height i32) (param $channels i32)
    (param $grey i32) (param $taps i32) (param $kstride i32) (param $tstart i32) (param $tcount4 i32) (param $outW i32)
    (param $cellx i32) (param $celly i32) (param $acc i32) (param $mid i32)
    (local $y i32) (local $x i32) (local $p i32) (local $xEnd i32)
    (local $r i32) (local $g i32) (local $b i32) (local $a i32)
    (local $sr i32) (local $sg i32) (local $sb i32) (local $gq i32)
    (local $cellRow i32) (local $cell i32) (local $q i32)
    (local $xx i32) (local $t i32) (local $gp i32) (local $n i32) (local $i i32)
    (local $sum v128)
    (local.set $p (local.get $src))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $y) (local.get $height)))
        (local.set $cellRow (i32.add (local.get $acc) (i32.load (i32.add (local.get $celly) (i32.shl (local.get $y) (i32.const 2))))))
        ;; Steps 1-3, one thumbnail cell (a run of columns) at a time: its sums stay in locals.
        (local.set $gq (local.get $grey))
        (local.set $cell (i32.const 0))
        (block $cellsDone
          (loop $cells
            (br_if $cellsDone (i32.ge_u (local.get $cell) (i32.const 32)))
            (local.set $x (i32.load (i32.add (local.get $cellx) (i32.shl (local.get $cell) (i32.const 3)))))
            (local.set $xEnd (i32.load offset=4 (i32.add (local.get $cellx) (i32.shl (local.get $cell) (i32.const 3)))))
            (local.set $sr (i32.const 0))
            (local.set $sg (i32.const 0))
            (local.set $sb (i32.const 0))
            (block $pixelsDone
              (loop $pixels
                (br_if $pixelsDone (i32.ge_u (local.get $x) (local.get $xEnd)))
                (local.set $r (i32.load8_u (local.get $p)))
                (local.set $g (i32.load8_u offset=1 (local.get $p)))
                (local.set $b (i32.load8_u offset=2 (local.get $p)))
                (if (i32.eq (local.get $channels) (i32.const 4))
                  (then
                    (local.set $a (i32.load8_u offset=3 (local.get $p)))
                    (if (i32.ne (local.get $a) (i32.const 255))
                      (then
                        (local.set $r (call $flatten (local.get $r) (local.get $a)))
                        (local.set $g (call $flatten (local.get $g) (local.get $a)))
                        (local.set $b (call $flatten (local.get $b) (local.get $a)))))))
                (local.set $p (i32.add (local.get $p) (local.get $channels)))
                (i32.store (local.get $gq)
                  (i32.shr_u
                    (i32.add
                      (i32.add (i32.mul (local.get $r) (i32.const 19595)) (i32.mul (local.get $g) (i32.const 38470)))
                      (i32.add (i32.mul (local.get $b) (i32.const 7471)) (i32.const 32768)))
                    (i32.const 16)))
                (local.set $gq (i32.add (local.get $gq) (i32.const 4)))
                (local.set $sr (i32.add (local.get $sr) (local.get $r)))
                (local.set $sg (i32.add (local.get $sg) (local.get $g)))
                (local.set $sb (i32.add (local.get $sb) (local.get $b)))
                (local.set $x (i32.add (local.get $x) (i32.const 1)))
                (br $pixels)))
            (local.set $q (i32.add (local.get $cellRow) (i32.mul (local.get $cell) (i32.const 12))))
            (i32.store (local.get $q) (i32.add (i32.load (local.get $q)) (local.get $sr)))
            (i32.store offset=4 (local.get $q) (i32.add (i32.load offset=4 (local.get $q)) (local.get $sg)))
            (i32.store offset=8 (local.get $q) (i32.add (i32.load offset=8 (local.get $q)) (local.get $sb)))
            (local.set $cell (i32.add (local.get $cell) (i32.const 1)))
            (br $cells)))
        ;; Step 4: one fixed-point dot product per output column.
        (local.set $xx (i32.const 0))
        (local.set $t (local.get $taps))
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
                      (v128.load (i32.add (local.get $t) (local.get $i))))))
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $tapLoop)))
            (i32.store8
              (i32.add (local.get $mid) (i32.add (i32.mul (local.get $y) (local.get $outW)) (local.get $xx)))
              (call $clip8
                (i32.add
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
                    (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum))))
                  (i32.const 2097152))))
            (local.set $t (i32.add (local.get $t) (local.get $kstride)))
            (local.set $xx (i32.add (local.get $xx) (i32.const 1)))
            (br $cols)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows)))))
