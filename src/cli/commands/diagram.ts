/** `litejobs diagram`: the job machine as Mermaid, Graphviz DOT or SVG, from the base machine or a user's module. */
import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { AnyStateMachine } from 'xstate';
import { createJobMachine } from '../../../machines/job.machine.js';
import { machineGraph, renderDot, renderMermaid, renderSvg } from '../../diagram/index.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { importUserModule } from '../user-module.js';

const isMachine = (value: unknown): value is AnyStateMachine =>
  typeof value === 'object' && value !== null && 'root' in value && typeof (value as { transition?: unknown }).transition === 'function';

/**
 * A machine from what a module exports: a machine, a factory that makes one
 * (`createJobMachine`-style, called without a policy), or a job definition
 * with a `machine`.
 */
export function machineFrom(value: unknown): AnyStateMachine | undefined {
  if (isMachine(value)) return value;
  if (typeof value === 'function') {
    const made = (value as () => unknown)();
    return isMachine(made) ? made : undefined;
  }
  if (typeof value === 'object' && value !== null && 'machine' in value) return machineFrom((value as { machine: unknown }).machine);
  return undefined;
}

async function loadMachine(file: string, exportName: string): Promise<AnyStateMachine> {
  const mod = await importUserModule(file);
  if (!(exportName in mod)) throw new CliFailure(`${file} has no export named "${exportName}" (it exports: ${Object.keys(mod).join(', ') || 'nothing'})`);
  const machine = machineFrom(mod[exportName]);
  if (!machine) throw new CliFailure(`${file}: export "${exportName}" is not a machine, a machine factory, or a job definition with a machine`);
  return machine;
}

interface DiagramFlags {
  format: 'mermaid' | 'dot' | 'svg';
  export: string;
  output?: string;
  direction: 'RIGHT' | 'DOWN';
}

export function registerDiagram(program: Command, io: CliIO): void {
  const cmd = program
    .command('diagram')
    .description("Draw the job machine (the base one, or a user's machine from a module) as Mermaid, Graphviz DOT or SVG.")
    .argument('[module]', "a module exporting a machine, a machine factory, or a job definition with a machine (default: litejobs' base job machine)")
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot', 'svg']).default('mermaid'))
    .option('--export <name>', 'the export of the module to draw', 'default')
    .addOption(new Option('--direction <direction>', 'layout direction (dot and svg)').choices(['RIGHT', 'DOWN']).default('RIGHT'))
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (module: string | undefined, flags: DiagramFlags) => {
      const machine = module ? await loadMachine(module, flags.export) : createJobMachine();
      const graph = machineGraph(machine);
      const text =
        flags.format === 'svg'
          ? await renderSvg(graph, { direction: flags.direction })
          : flags.format === 'dot'
            ? renderDot(graph, { direction: flags.direction })
            : renderMermaid(graph);
      if (flags.output) {
        writeFileSync(flags.output, text.endsWith('\n') ? text : `${text}\n`);
        io.stderr.write(`wrote ${flags.output} (${graph.states.length} states, ${graph.edges.length} transitions)\n`);
      } else io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
  document(cmd, {
    examples: ['litejobs diagram', 'litejobs diagram --format svg --output lifecycle.svg', 'litejobs diagram node_modules/litejobs/dist/machines/index.js --export createQuarantineMachine --format dot'],
    exitCodes: [[ExitCode.failure, 'runtime error: the module cannot be loaded, or the export is not a machine']],
  });
}
