/**
 * A full disk (ENOSPC) or an exhausted quota (EDQUOT) is an expected failure, not a bug: the
 * build reports it as a problem naming the folder and the flag to change, not a stack trace.
 */
import { error, type Problem } from '../shared/problems.js';

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

export const isDiskFull = (failure: unknown): failure is NodeJS.ErrnoException => DISK_FULL.has((failure as NodeJS.ErrnoException | null)?.code ?? '');

/** `what` is 'the output folder' or 'the cache folder'; `flag` the option that moves it. */
export function diskFullProblem(failure: NodeJS.ErrnoException, what: string, dir: string, flag: string): Problem {
  const reason = failure.code === 'EDQUOT' ? 'the disk quota is used up' : 'no space is left';
  return error('disk-full', `${reason} on the disk of ${what} "${dir}" (${failure.code}): free some space, or pass ${flag} with a folder on another disk`);
}
