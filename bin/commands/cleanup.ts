// `cleanup --run-id <id>` (or `--all-runs`): removes from a target what a run labelled and left
// behind (runner/cleanup.ts), and the command line an interrupted run prints to do so.
import { UsageError } from '../../runner/errors.js';
import { RUN_LABEL } from '../../runner/run.js';
import { checkCredentials, probeTarget } from '../../runner/target.js';
import { EXIT } from './exit-codes.js';

/** Run ids as `run` makes them, a shard's suffix (`<id>s<index>`) included. */
const RUN_ID = /^[a-z0-9]{1,32}$/;

export async function cmdCleanup(argv: any): Promise<number> {
  if ((argv.runId === undefined) === !argv.allRuns) throw new UsageError('cleanup: give --run-id <id> (the run whose objects to remove) or --all-runs');
  if (argv.runId !== undefined && !RUN_ID.test(String(argv.runId))) throw new UsageError(`--run-id ${argv.runId}: not a run id (lowercase letters and digits, as the run printed it)`);
  if (!(argv.wait >= 0)) throw new UsageError('--wait must be a number of seconds, 0 or more');
  // Loaded here: run.ts imports this file for cleanupCommand.
  const { resolveTarget } = await import('./run.js');
  const conn = resolveTarget(argv);
  if (!conn) throw new UsageError('cleanup needs the target: --api <url> or --kubeconfig (the embedded reference of a run is gone with the run)');
  await probeTarget(conn);
  await checkCredentials(conn);
  const { cleanupRun } = await import('../../runner/cleanup.js');
  const which = argv.allRuns ? `labelled ${RUN_LABEL} (any run)` : `labelled ${RUN_LABEL}=${argv.runId}`;
  const result = await cleanupRun({ conn, runId: argv.runId, allRuns: !!argv.allRuns, waitMs: argv.wait * 1000 });
  for (const p of result.deleted) process.stdout.write(`deleted ${p}\n`);
  for (const u of result.unverified) process.stderr.write(`orch-conformance: not searched: ${u}\n`);
  if (result.left.length) {
    process.stderr.write(`orch-conformance: ${result.left.length} object(s) ${which} are still there after ${argv.wait}s:\n${result.left.map((l) => `  ${l}\n`).join('')}`);
    return EXIT.failed;
  }
  process.stdout.write(`${result.deleted.length ? `deleted ${result.deleted.length} object(s)` : 'found nothing'} ${which}; nothing ${which} is left${result.unverified.length ? ` in the resources that could be searched (${result.unverified.length} could not: see above)` : ''}\n`);
  return EXIT.ok;
}

/** Shell-quotes a word when it needs it. */
function quote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `cleanup` command line for a run against `argv`'s target: its target flags as given, never a
 * token's value (a placeholder stands for it).
 */
export function cleanupCommand(argv: any, runId: string): string {
  const parts = ['orch-conformance', 'cleanup', '--run-id', runId];
  const flag = (name: string, value: unknown) => { if (value !== undefined && value !== false) parts.push(`--${name}`, ...(value === true ? [] : [quote(String(value))])); };
  flag('api', argv.api);
  flag('kubeconfig', argv.kubeconfig);
  flag('context', argv.context);
  flag('ca', argv.ca);
  flag('insecure-skip-tls-verify', argv.insecureSkipTlsVerify);
  flag('token-file', argv.tokenFile);
  if (argv.token !== undefined) parts.push('--token', '<token>');
  return parts.join(' ');
}
