/**
 * The one seeded PRNG of the tools (mulberry32: tiny, fast, deterministic). The sample
 * content in content/, the test fixtures and the benchmark corpora are all drawn from it,
 * so the same seed must give the same sequence forever: changing this function changes
 * committed files (regenerate content/ and say so in the change).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
