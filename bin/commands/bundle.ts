// `bundle sign` and `bundle verify`: the evidence bundle a `run --bundle` wrote (runner/bundle.ts).
import { BundleError, loadKey, signBundle, verifyBundle, type BundleVerification } from '../../runner/bundle.js';
import { verdictText } from '../../reporters/format.js';
import { EXIT } from './exit-codes.js';

export async function cmdBundleSign(argv: { file: string; key: string }): Promise<number> {
  const key = loadKey(argv.key, 'private');
  try {
    const sig = await signBundle(argv.file, key);
    process.stdout.write(`signed ${argv.file} (Ed25519, public key sha256 ${sig.publicKeySha256}); signature.json added to the archive\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof BundleError) {
      process.stderr.write(`orch-conformance: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** The lines `bundle verify` prints: verdict of the check, then what the bundle says about its run. */
export function verificationLines(file: string, v: BundleVerification): string[] {
  const sig = { valid: 'signature valid', invalid: 'signature INVALID', absent: 'not signed', unchecked: 'signed, signature not checked (give --key <public key>)' }[v.signature];
  const lines = [v.ok ? `VERIFIED: ${file}: every digest matches its manifest; ${sig}` : `NOT VERIFIED: ${file}`];
  for (const p of v.problems) lines.push(`  ${p}`);
  // A bundle that did not verify is still described, but what it says is not to be relied on.
  if (!v.ok && (v.metadata || v.report)) lines.push('What the bundle says (unverified: not evidence):');
  const m = v.metadata;
  if (m) {
    lines.push(`kit: ${m.kit.tool} ${m.kit.version}, suites sha256 ${m.kit.suitesSha256}`);
    lines.push(`run: ${m.runId} on ${m.hostname}, ${m.startedAt} to ${m.endedAt}${m.command.length ? `: orch-conformance ${m.command.join(' ')}` : ''}`);
    const t = m.target;
    lines.push(`target: ${t.embedded ? 'the embedded reference' : t.api}${t.servingCertSha256 ? `, certificate sha256 ${t.servingCertSha256}` : ''}${t.discoveryDigest ? `, discovery sha256 ${t.discoveryDigest}` : ''}`);
    const s = m.selection;
    if (s) {
      const parts = [s.focus && `focus ${s.focus}`, s.skip && `skip ${s.skip}`, s.suites.length && `suites ${s.suites.join(',')}`, s.level && `level ${s.level}`, s.ids?.length && `${s.ids.length} id(s)`].filter(Boolean);
      lines.push(`selection: ${s.selectedCases} of ${s.totalCases} cases${parts.length ? ` (${parts.join('; ')})` : ''}${s.partial ? ', partial' : ''}`);
    }
  }
  if (v.report) {
    lines.push(`verdict: ${verdictText(v.report)}`);
    const c = v.report.coverage?.total;
    if (c) lines.push(`coverage: ${c.covered} of ${c.requirements} requirements covered by the kit; this run: ${c.passed} passed, ${c.failed} failed, ${c.warned} warned, ${c.skipped} skipped, ${c.notRun} not run`);
  }
  return lines;
}

export async function cmdBundleVerify(argv: { file: string; key?: string }): Promise<number> {
  const key = argv.key !== undefined ? loadKey(argv.key, 'public') : undefined;
  const v = await verifyBundle(argv.file, key);
  const text = `${verificationLines(argv.file, v).join('\n')}\n`;
  if (v.ok) process.stdout.write(text);
  else process.stderr.write(text);
  return v.ok ? EXIT.ok : 1;
}
