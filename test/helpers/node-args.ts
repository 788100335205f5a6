/** Node arguments that run a TypeScript file in a child process, from any working folder. */
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;

export function tsxArgs(script: string, ...args: string[]): string[] {
  return ['--import', loader, script, ...args];
}
