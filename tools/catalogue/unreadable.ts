/**
 * A content file or folder the build cannot read (permissions: a file copied in by another
 * user or with `sudo`; or deleted while the build ran) is a problem naming it, like any other
 * content mistake, not a crash with a stack trace. Any other system error is still thrown:
 * it is not something a maintainer fixes in the content folder.
 */
import { error, type Problem } from '../shared/problems.js';

export function unreadableProblem(cause: unknown, rel: string): Problem {
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') {
    return error('unreadable', `cannot be read by this user (${code}): fix its permissions (e.g. \`chmod a+r\`, \`a+rx\` for a folder) or its owner`, rel);
  }
  // A name that is not UTF-8 comes back from the listing with U+FFFD in place of its bytes, and
  // no file has that name: it did not disappear, it cannot be named.
  if (code === 'ENOENT' && rel.includes('\ufffd')) return error('unreadable', 'its name is not valid UTF-8 (shown with \ufffd), so it cannot be read by name: rename it', rel);
  if (code === 'ENOENT' || code === 'ENOTDIR') return error('unreadable', 'disappeared while the command ran: run it again', rel);
  // O_NOFOLLOW met a symlink put there after the scan.
  if (code === 'ELOOP') return error('symlink', 'became a symlink while the command ran; symlinks are never followed: replace it with the real file', rel);
  throw cause;
}
