import { describe, expect, it } from 'vitest';
import { parseWrk, reportRows } from './serve.bench.js';

const load = (rps: number, cpuUs: number | null = 20) => ({ rps, cpuUs, p99: 1, non2xx: 0, errors: 0 });

describe('serve benchmark report', () => {
  it('takes each ratio within its round, then the median over the rounds', () => {
    // The machine halves its speed in round 2: the ratios stay put, the raw figures do not.
    const rows = reportRows(
      new Map([
        ['bare node (fixed string)', [load(60_000), load(30_000), load(50_000)]],
        ['nginx 1 worker (static by-id)', [load(80_000), load(40_000), load(70_000)]],
        ['pepe serve: list page', [load(45_000), load(21_000), load(30_000)]],
      ]),
    );
    const list = rows.find((row) => row.case === 'pepe serve: list page')!;
    expect(list['vs bare node']).toBe(0.7); // rounds: 0.75, 0.70, 0.60
    expect(list['vs bare node, per round']).toBe('0.6–0.75');
    expect(list['vs nginx 1w']).toBe(0.53); // rounds: 0.5625, 0.525, 0.4286
    expect(list['vs nginx 2w']).toBe('n/a');
    expect(list['req/s']).toBe(30_000);
  });

  it('says n/a for CPU when a round could not read it', () => {
    const rows = reportRows(new Map([['bare node (fixed string)', [load(1000, null)]]]));
    expect(rows[0]!['server CPU µs/req']).toBe('n/a');
    expect(rows[0]!['vs bare node, per round']).toBe(1);
  });

  it('reads wrk --latency output', () => {
    const output = `Running 3s test @ http://127.0.0.1:1/
  1 threads and 32 connections
  Latency Distribution
     50%  480.00us
     99%    2.10ms
  150000 requests in 3.00s, 20.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  50000.12
`;
    expect(parseWrk(output)).toEqual({ rps: 50000.12, total: 150000, p99: 2.1, non2xx: 4, errors: 3 });
  });
});
