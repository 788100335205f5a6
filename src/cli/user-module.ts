/** Loads a module the user names on the command line (`--handlers`, `diagram <module>`), relative to the working folder. */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliFailure } from './exit-codes.js';

export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new CliFailure(`cannot load ${file}: ${(err as Error).message}`);
  }
}
