/**
 * Worker-thread side of analyse-pool.ts: receives image bytes, answers with the analysis.
 * The thumbnail's buffer is transferred back (no copy); the decoded frame is not sent.
 */
import { parentPort } from 'node:worker_threads';
import { analyseImage, type AnalyseOptions } from '../image/analyse-image.js';
import { configureSharpForBatch } from '../image/decode.js';

export interface WorkerRequest {
  id: number;
  bytes: Uint8Array;
  options: AnalyseOptions;
}

if (!parentPort) throw new Error('analyse-worker.ts must run as a worker thread (see analyse-pool.ts)');
const port = parentPort;
await configureSharpForBatch();

port.on('message', (req: WorkerRequest) => {
  const bytes = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  analyseImage(bytes, req.options).then(
    (analysed) => {
      // The decoded frame stays here: copying megabytes back would measure postMessage, not the analysis.
      const result = analysed.ok ? (({ pixels: _frame, ...rest }) => rest)(analysed) : analysed;
      port.postMessage({ id: req.id, result }, result.ok ? [result.thumb.rgb.buffer as ArrayBuffer] : []);
    },
    (err: unknown) => port.postMessage({ id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
