// Runs s3rver in its own process. Why a child process: s3rver encrypts ListObjectsV2
// continuation tokens with DES, which OpenSSL 3 only provides through the legacy provider,
// and `--openssl-legacy-provider` can only be set when a Node process starts
// (NODE_OPTIONS), not inside vitest's already-running workers. Without it a truncated
// ListObjectsV2 page (> 1,000 keys) is a 500.
// argv: <directory> <bucket>[,<bucket>…]; prints {"port": N} once listening; exits when
// stdin closes, so it never outlives the test process that started it.
import S3rver from 's3rver';

const [directory, buckets] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: (buckets ?? '').split(',').filter(Boolean).map((name) => ({ name })),
});
const address = await server.run();
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
