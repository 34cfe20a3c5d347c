#!/usr/bin/env node
/**
 * The `paddock` command: `serve` (a gateway replica), `stop`, `devcluster`, and `tenant` and
 * `cluster` (administration through the gateway's admin API). `--help` on any of them, or
 * `paddock help <command>`, prints its flags (stdout, exit 0); a mistake on the command line
 * prints what was wrong and where the help is (stderr, exit 2); a command that fails exits 1.
 */
import path from 'node:path';
import {
  CLUSTER_HELP,
  clusterVerbHelp,
  DEVCLUSTER,
  HELP,
  SERVE,
  STOP,
  TENANT_HELP,
  tenantVerbHelp,
} from './cli-commands.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './cli-usage.js';
import { commandMessage } from '../log/log.js';

/** `paddock help [command [verb]]`: the help of that command, or the list of commands. */
function help(words: string[]): string {
  const [command, verb] = words;
  if (command === undefined) return HELP;
  const verbHelp: Record<string, (verb: string) => CommandSpec | undefined> = {
    tenant: tenantVerbHelp,
    cluster: clusterVerbHelp,
  };
  if (Object.hasOwn(verbHelp, command) && verb !== undefined) {
    const spec = verbHelp[command](verb);
    if (!spec) throw new UsageError(`no help for "${command} ${verb}": unknown ${command} command`, command);
    return helpText(spec);
  }
  const specs: Record<string, CommandSpec> = { serve: SERVE, stop: STOP, devcluster: DEVCLUSTER };
  if (command === 'tenant') return TENANT_HELP;
  if (command === 'cluster') return CLUSTER_HELP;
  if (command === 'help') return HELP;
  if (Object.hasOwn(specs, command)) return helpText(specs[command]);
  throw new UsageError(`no help for ${JSON.stringify(command)}: unknown command`);
}

async function main(argv: string[]): Promise<number> {
  const print = (text: string) => process.stdout.write(text);
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
      print(HELP);
      return 0;
    case 'help':
      print(help(rest));
      return 0;
    // Each command's code is loaded when it runs: the gateway and the devcluster take a while to
    // load, and `--help` or `paddock tenant list` need neither.
    case 'serve':
      return (await import('./serve-cli.js')).serve(rest);
    case 'devcluster':
      return (await import('./devcluster-cli.js')).devcluster(rest);
    case 'stop': {
      const parsed = parseCommand(STOP, rest, print);
      if (!parsed) return 0;
      const { stopServer } = await import('./background.js');
      return stopServer(path.resolve(parsed.values['data-dir']), Number(parsed.values.timeout));
    }
    case 'tenant':
      return (await import('./tenant-cli.js')).tenantCommand(
        rest,
        (line) => print(`${line}\n`),
        (line) => process.stderr.write(`${line}\n`),
      );
    case 'cluster':
      return (await import('./cluster-cli.js')).clusterCommand(rest, (line) => print(`${line}\n`));
    default:
      throw new UsageError(
        command.startsWith('-') ? `unknown flag: ${command}` : `unknown command ${JSON.stringify(command)}`,
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: Error) => {
    if (err instanceof UsageError) {
      process.stderr.write(err.explain());
      process.exitCode = 2;
      return;
    }
    // A server's failure (a port taken, a store locked) in its log's format: `paddock serve --log-format json` writes JSON only.
    commandMessage('paddock', `paddock: ${err.message}\n`, { msg: err.message, level: 'error' });
    process.exitCode = 1;
  },
);
