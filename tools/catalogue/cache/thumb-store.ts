/**
 * The build cache's thumbnail file, `thumbs-<generation>.bin`: 32×32 RGB thumbnails, each
 * followed by its 32×32 texture map, in fixed-size slots (4 KB). Thumbnails are only needed to
 * confirm near-duplicate candidates, so they are read lazily, slot by slot.
 * New thumbnails are appended; the file is rewritten under a new generation name only when
 * more than half of it is dead, and the old generation is deleted only after the cache JSON
 * naming the new one is in place (see feature-cache.ts), so a crash never pairs a JSON with
 * the wrong thumbnails.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** 32 × 32 pixels × RGB. */
export const THUMB_BYTES = 32 * 32 * 3;
/** 32 × 32 cells (tools/image/pixels.ts `bandDeviations`). */
export const TEXTURE_BYTES = 32 * 32;
/** A slot: the thumbnail, then the texture map; what near-duplicate confirmation reads of an item. */
const SLOT_BYTES = THUMB_BYTES + TEXTURE_BYTES;

/** Which thumbnail file is current and its number of slots (live or dead), as the cache JSON records it. */
export interface ThumbState {
  generation: string;
  slots: number;
}

/** What `write` did: the state and slots to record, and `finish` to call once the JSON naming them is saved. */
export interface ThumbWrite {
  state: ThumbState;
  compacted: boolean;
  /** The slot of each live key after this write. */
  slotOf(key: string): number | undefined;
  /** Keys whose thumbnails were not in the file before this write, in the order given. */
  fresh: string[];
  finish(): Promise<void>;
}

const thumbFile = (dir: string, generation: string) => join(dir, `thumbs-${generation}.bin`);

export class ThumbStore {
  private state: ThumbState = { generation: '', slots: 0 };
  /** Slot in the current thumbnail file of each key loaded from (or written to) disk. */
  private readonly slots = new Map<string, number>();

  constructor(private readonly dir: string) {}

  /**
   * Takes over a recorded state if its file is a regular file of the expected length; false
   * (deleted, truncated, not a file) invalidates every thumbnail. A named pipe or a symlink to
   * /dev/null has the length of an empty file: adopted, the next thumbnails would be appended
   * to it, blocking the build for ever or vanishing.
   */
  adopt(state: ThumbState): boolean {
    let bytes: number;
    try {
      const info = statSync(thumbFile(this.dir, state.generation));
      bytes = info.isFile() ? info.size : -1;
    } catch {
      bytes = -1;
    }
    if (bytes !== state.slots * SLOT_BYTES) return false;
    this.state = state;
    return true;
  }

  /** Records `key`'s slot and returns a reader for it. */
  reader(key: string, slot: number): () => Uint8Array {
    this.slots.set(key, slot);
    // Looked up at access time: a save may have moved the thumbnail to another slot or file.
    return () => this.readSlot(this.slots.get(key)!);
  }

  /** `key`'s thumbnail is no longer the one on disk (it is written afresh on the next save). */
  forget(key: string): void {
    this.slots.delete(key);
  }

  /** Opens the file per read: thumbnails are read only for near-duplicate candidates, and no handle can leak. */
  private readSlot(slot: number): Uint8Array {
    const fd = openSync(thumbFile(this.dir, this.state.generation), 'r');
    try {
      const out = new Uint8Array(SLOT_BYTES);
      const read = readSync(fd, out, 0, SLOT_BYTES, slot * SLOT_BYTES);
      // A short read means the thumbnail file does not match the JSON: a bug or a tampered cache.
      if (read !== SLOT_BYTES) throw new Error(`build cache thumbnail slot ${slot} is incomplete; delete ${this.dir} and rebuild`);
      return out;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes the thumbnails of the live `entries` (every key that has features): appends the
   * fresh ones, or rewrites everything, sorted by key, under a new generation when more than
   * half the file would be dead. Appending touches only the fresh entries: one added image
   * must not cost a pass that sorts or re-maps 10k slots.
   */
  async write(entries: [string, { readonly thumb: Uint8Array; readonly texture: Uint8Array }][], { appendOnly = false } = {}): Promise<ThumbWrite> {
    const freshEntries = entries.filter(([key]) => !this.slots.has(key));
    const liveOld = entries.length - freshEntries.length;
    // `appendOnly`: the caller holds only the fresh entries (the live ones are not known), so the file is never compacted.
    const compacted = this.state.generation === '' || (!appendOnly && liveOld * 2 < this.state.slots);
    const previous = this.state;
    const newSlots = new Map<string, number>();
    let state: ThumbState;
    if (compacted) {
      const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
      state = { generation: `${Date.now().toString(36)}${process.pid.toString(36)}`, slots: sorted.length };
      sorted.forEach(([key], i) => newSlots.set(key, i));
      const file = thumbFile(this.dir, state.generation);
      // A file no cache JSON names is never read nor deleted: one left by a full disk would keep the disk full.
      await writeFile(file, Buffer.concat(sorted.flatMap(([, f]) => [f.thumb, f.texture]))).catch(async (failure: unknown) => {
        await rm(file, { force: true });
        throw failure;
      });
    } else {
      freshEntries.forEach(([key], i) => newSlots.set(key, previous.slots + i));
      if (freshEntries.length > 0) await appendFile(thumbFile(this.dir, previous.generation), Buffer.concat(freshEntries.flatMap(([, f]) => [f.thumb, f.texture])));
      state = { generation: previous.generation, slots: previous.slots + freshEntries.length };
    }
    const slotOf = (key: string) => newSlots.get(key) ?? (compacted ? undefined : this.slots.get(key));
    const finish = async () => {
      if (compacted && previous.generation !== '') await rm(thumbFile(this.dir, previous.generation), { force: true });
      this.state = state;
      if (compacted) this.slots.clear();
      for (const [key, slot] of newSlots) this.slots.set(key, slot);
    };
    return { state, compacted, slotOf, fresh: freshEntries.map(([key]) => key), finish };
  }
}
