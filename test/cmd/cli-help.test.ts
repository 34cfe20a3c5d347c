import { expect } from 'chai';
import type { CommandSpec } from '../../cmd/cli-usage.js';
import { DEVCLUSTER, SERVE, STOP, TENANT_VERBS, tenantVerbHelp } from '../../cmd/cli-commands.js';
import { runCli } from '../support/run-cli.js';

const run = runCli;

/** The help printed for `spec` names every flag, with its default where it has one. */
function expectEveryFlag(help: string, spec: CommandSpec): void {
  const flat = help.replace(/\n\s+/g, ' ');
  for (const [name, flag] of Object.entries(spec.flags)) {
    expect(flat, `--${name}`).to.match(new RegExp(`--${name}\\b`));
    if (flag.default !== undefined) {
      const line = flat.slice(flat.indexOf(`--${name}`)).split(/ {2}--| {2}-h,/)[0];
      expect(line, `--${name}'s default`).to.contain(`(default ${flag.default})`);
    }
  }
  expect(flat).to.contain('-h, --help');
}

describe('gateway: `paddock` help and usage errors', () => {
  it('prints the commands for --help, -h, help and no command (stdout, exit 0)', async () => {
    const argsList = [['--help'], ['-h'], ['help'], []];
    const results = await Promise.all(argsList.map(run));
    for (const [i, result] of results.entries()) {
      const args = argsList[i];
      expect(result.code, args.join(' ')).to.equal(0);
      expect(result.stderr).to.equal('');
      for (const command of ['serve', 'stop', 'devcluster', 'tenant', 'help'])
        expect(result.stdout).to.match(new RegExp(`^  ${command} +\\S`, 'm'));
    }
  });

  it('prints every flag of every command with its default, however help is asked for', async () => {
    const cases: [string[], CommandSpec][] = [
      [['serve', '--help'], SERVE],
      [['help', 'serve'], SERVE],
      [['devcluster', '-h'], DEVCLUSTER],
      ...Object.keys(TENANT_VERBS).flatMap((verb): [string[], CommandSpec][] => [
        [['tenant', verb, '--help'], tenantVerbHelp(verb)!],
        [['help', 'tenant', verb], tenantVerbHelp(verb)!],
      ]),
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    for (const [i, [args, spec]] of cases.entries()) {
      const result = results[i];
      expect(result.code, args.join(' ')).to.equal(0);
      expect(result.stderr).to.equal('');
      expect(result.stdout, args.join(' ')).to.match(new RegExp(`^Usage:\\n  paddock ${spec.name}\\b`, 'm'));
      expectEveryFlag(result.stdout, spec);
    }
    const tenant = await run(['tenant', '--help']);
    expect(tenant.code).to.equal(0);
    for (const verb of Object.keys(TENANT_VERBS)) expect(tenant.stdout).to.match(new RegExp(`^  ${verb} +\\S`, 'm'));
    const stop = await run(['stop', '--help']);
    expect(stop.code).to.equal(0);
    expectEveryFlag(stop.stdout, STOP);
  });

  it('says what is wrong and where the help is, on stderr with exit 2', async () => {
    const cases: [string[], string][] = [
      [['frobnicate'], `paddock: unknown command "frobnicate"\nSee 'paddock --help' for usage.\n`],
      [['--verbose'], `paddock: unknown flag: --verbose\nSee 'paddock --help' for usage.\n`],
      [['serve', '--nope'], `paddock: unknown flag: --nope\nSee 'paddock serve --help' for usage.\n`],
      [['serve', '--listen'], `paddock: flag needs an argument: --listen\nSee 'paddock serve --help' for usage.\n`],
      [['serve', 'extra'], `paddock: unexpected argument "extra" for serve\nSee 'paddock serve --help' for usage.\n`],
      [
        ['devcluster', '--upstream', 'x'],
        `paddock: unknown flag: --upstream\nSee 'paddock devcluster --help' for usage.\n`,
      ],
      [['tenant', 'create'], `paddock: tenant create needs ID\nSee 'paddock tenant create --help' for usage.\n`],
      [
        ['tenant', 'list', '--cluster', 'member1'],
        `paddock: unknown flag: --cluster\nSee 'paddock tenant list --help' for usage.\n`,
      ],
      [
        ['tenant', 'frob', 'x'],
        `paddock: unknown tenant command "frob": create, get, list, delete, kubeconfig, rotate\nSee 'paddock tenant --help' for usage.\n`,
      ],
      [['help', 'nope'], `paddock: no help for "nope": unknown command\nSee 'paddock --help' for usage.\n`],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    for (const [i, [args, stderr]] of cases.entries())
      expect(results[i], args.join(' ')).to.deep.equal({ code: 2, stdout: '', stderr });
  });
});
