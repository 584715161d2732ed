/**
 * Runs the real `pepe` command as a user without write or read rights the test takes away.
 * Root reads and writes anywhere, so under root (CI containers) the command runs as "nobody"
 * through setpriv; `available` is false where neither works (Windows, root without setpriv).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PEPE = fileURLToPath(new URL('../pepe.mjs', import.meta.url));
const isRoot = process.getuid?.() === 0;
const setpriv = isRoot ? ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => spawnSync(path, ['--version']).status === 0) : undefined;

export const otherUser = {
  available: process.platform !== 'win32' && (!isRoot || setpriv !== undefined),
};

export function pepeAsOtherUser(cwd: string, ...args: string[]): { status: number | null; stderr: string; stdout: string } {
  const command = isRoot ? [setpriv!, '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, PEPE, ...args] : [process.execPath, PEPE, ...args];
  const child = spawnSync(command[0]!, command.slice(1), { cwd, encoding: 'utf8', env: { ...process.env, HOME: cwd } });
  return { status: child.status, stderr: child.stderr, stdout: child.stdout };
}
