import { type Command, type Io, UsageError, processIo } from '../shared/io.js';
import { terminalIo } from './print-results.js';

/** Subcommands are loaded lazily so that `pepe serve` does not load sharp, nor `pepe build` the S3 SDK. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ default: Command }> }> = {
  build: { summary: 'content/ → dist/: validate, analyse images, write the static API', load: () => import('./commands/build.js') },
  check: { summary: 'validate content/ like build does, near-duplicates are errors; writes nothing', load: () => import('./commands/check.js') },
  add: { summary: 'import image files into content/ with a new sidecar each', load: () => import('./commands/add.js') },
  dupes: { summary: 'list near-duplicate image pairs in content/', load: () => import('./commands/dupes.js') },
  serve: { summary: 'serve a build locally exactly as production does', load: () => import('./commands/serve.js') },
  publish: { summary: 'sync a build to an S3-compatible bucket', load: () => import('./commands/publish.js') },
  export: { summary: 'download a published catalogue: its dataset shards and every image, verified, resumable', load: () => import('./commands/export.js') },
};

export function rootUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: pepe <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'pepe <command> --help' for a command's options.\n`;
}

export { processIo } from '../shared/io.js';

/** The command called `name`: own keys only (`pepe constructor` is an unknown command, not Object's constructor). */
const commandNamed = (name: string | undefined) => (name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);

/**
 * Runs one command line and returns the exit code; only this function turns errors into text.
 * Everything any command prints goes through `terminalIo`, which escapes control and bidi characters.
 */
export async function runMain(argv: string[], rawIo: Io = processIo()): Promise<number> {
  const io = terminalIo(rawIo);
  // `pepe help build` is `pepe build --help`, as in git and npm.
  const [name, ...rest] = argv[0] === 'help' && commandNamed(argv[1]) ? [argv[1]!, '--help'] : argv;
  if (!name) {
    // No command is a wrong command line: its usage goes to stderr, as for an unknown command, so `pepe | …` reads nothing.
    io.stderr(`pepe: name a command.\n\n${rootUsage()}`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(rootUsage());
    return 0;
  }
  const entry = commandNamed(name);
  if (!entry) {
    io.stderr(`pepe: unknown command '${name}'.\n\n${rootUsage()}`);
    return 2;
  }
  const command = (await entry.load()).default;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`pepe ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    // A bug: show everything, the maintainers need the stack.
    io.stderr(`pepe ${name}: unexpected failure\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
