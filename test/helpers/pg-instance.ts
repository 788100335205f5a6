/**
 * A throwaway PostgreSQL server of a test's own, for tests that stop or
 * restart the server under a running queue: the shared server on 5432 serves
 * other tests in parallel and must never be restarted.
 *
 * The cluster lives in a temp folder (data, log and unix socket), listens on
 * 127.0.0.1 on a free port, trusts local connections and skips fsync: an
 * immediate stop kills the server, not the machine, so what was written to
 * the kernel survives it. (synchronous_commit stays on: off, a commit is
 * acknowledged before its WAL is written, and an immediate stop loses it.)
 * initdb refuses to run as root, so as root every PostgreSQL binary runs as
 * the `postgres` user, which owns the folder.
 *
 * `remove()` stops the server and deletes the folder. A failed test, or a
 * test process that dies, leaves neither behind either: `remove()` runs on
 * exit, and a watchdog process does it once the test process is gone,
 * however it ended.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 keeps its server binaries; `PG_BIN` overrides it. */
export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const OS_USER = 'postgres';

export interface PgInstance {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /**
   * Stops the server and starts it again. `fast` rolls back open
   * transactions and closes every connection cleanly (57P01 to each
   * session); `immediate` kills the server's processes at once (no goodbye
   * to clients, crash recovery on start). `downMs`: how long it stays down,
   * so that clients meet refused connections meanwhile.
   */
  restart(options: { mode: 'fast' | 'immediate'; downMs?: number }): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Whether the server was started and not stopped since. */
  running(): boolean;
  /** The server's own log, for a failure report. */
  log(): string;
  /** Stops the server (immediately) and deletes its folder. Safe to call twice. */
  remove(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The command line for a PostgreSQL binary: as `postgres` when this process is root. */
function asOwner(binary: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, binary);
  return process.getuid?.() === 0 ? ['runuser', ['-u', OS_USER, '--', path, ...args]] : [path, args];
}

const live = new Set<PgInstance>();
process.once('exit', () => {
  for (const instance of live) instance.remove();
});

export async function startPgInstance(): Promise<PgInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'litejobs-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', OS_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', OS_USER], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  // The folder as working directory: the binaries run as `postgres`, who may not be able to enter the caller's.
  const pg = async (binary: string, args: string[]) => {
    const [command, argv] = asOwner(binary, args);
    await run(command, argv, { cwd: dir });
  };
  let port = 0; // picked at the first start
  const settings = () =>
    [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${dir}`,
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
      '-c shared_buffers=16MB',
    ].join(' ');
  // Stops the server and deletes the folder once this process is gone (a SIGKILLed test runner runs no exit hook).
  const [stopCommand, stopArgs] = asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  const watchdog = spawn(
    'sh',
    ['-c', 'dir=$1; shift; while [ -d "/proc/$0" ]; do sleep 1; done; "$@" >/dev/null 2>&1; rm -rf "$dir"', String(process.pid), dir, stopCommand, ...stopArgs],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  let removed = false;
  let running = false;
  const stopNow = () => {
    if (!running) return;
    const [command, argv] = asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    spawnSync(command, argv, { cwd: dir, stdio: 'ignore' });
    running = false;
  };
  const instance: PgInstance = {
    get port() {
      return port;
    },
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    async start() {
      await pg('pg_ctl', ['-D', data, '-l', logFile, '-o', settings(), '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async restart({ mode, downMs = 0 }) {
      await instance.stop(mode);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await instance.start();
    },
    running: () => running,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    remove() {
      if (removed) return;
      removed = true;
      live.delete(instance);
      stopNow();
      rmSync(dir, { recursive: true, force: true });
      watchdog.kill();
    },
  };
  live.add(instance);
  try {
    await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    // A port found free may be taken before the server binds it (tests run in parallel): then another.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await instance.start();
        break;
      } catch (err) {
        if (attempt >= 3 || !/already in use/i.test(instance.log())) throw err;
      }
    }
  } catch (err) {
    const log = instance.log();
    instance.remove();
    throw new Error(`could not start a PostgreSQL cluster of the test's own: ${(err as Error).message}${log ? `\n${log}` : ''}`);
  }
  return instance;
}
