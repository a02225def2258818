// Synthetic runs for the reporter tests: every outcome, nasty strings, a partial selection.
import type { CaseResult, RunReport } from '../../runner/results.js';
import { summarise } from '../../runner/run.js';

export const NASTY = `value <&"'> with\u0001control`;
export const REQ_DEFAULT = '000-2.2-reclaim-policy-default';
export const REQ_NOT_FOUND = '000-7-status-not-found';
export const REQ_MISSING_2_10 = '000-2.10-surely-not-in-catalogue';
export const REQ_MISSING_4 = '000-4-surely-not-in-catalogue-either';

export function kase(over: Partial<CaseResult> & Pick<CaseResult, 'id' | 'status'>): CaseResult {
  return {
    title: `title of ${over.id}`,
    suite: 'storageclass',
    requirements: [REQ_DEFAULT],
    spec: { doc: '000', section: '2.2' },
    level: 'MUST',
    impact: 'cluster-scoped',
    durationMs: 12,
    message: '',
    exchanges: [],
    ...over,
  };
}

export const passed = kase({ id: 'api.storageclass.reclaim-policy.default', status: 'passed', title: 'reclaimPolicy defaults to Delete' });
export const failed = kase({
  id: 'api.status.not-found',
  status: 'failed',
  suite: 'status',
  title: 'GET of a missing object <script>alert("t")</script>',
  requirements: [REQ_NOT_FOUND],
  spec: { doc: '000', section: '7' },
  message: `status mismatch: ${NASTY}`,
  expected: '404 with a Status body, reason "NotFound"',
  actual: '200 <b>&amp;</b>',
  exchanges: [
    {
      method: 'GET',
      url: 'http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2',
      requestHeaders: { accept: 'application/json', authorization: 'Bearer secret-token-123' },
      status: 200,
      responseHeaders: { 'content-type': 'application/json', 'x-note': 'bell\u0007here' },
      responseBody: '{"kind":"Pod","note":"<script>alert(1)</script> & \\u0007 done"}',
      durationMs: 3,
    },
  ],
});
export const errored = kase({
  id: 'api.storageclass.list',
  status: 'errored',
  requirements: [REQ_MISSING_2_10],
  spec: { doc: '000', section: '2.10' },
  message: 'connect ECONNREFUSED 127.0.0.1:8080',
  exchanges: [
    {
      method: 'POST',
      url: 'http://127.0.0.1:8080/apis/storage.orch.io/v1/storageclasses',
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: '{"kind":"StorageClass"}',
      error: 'ECONNREFUSED',
      durationMs: 1,
    },
  ],
});
export const skipped = kase({ id: 'api.storageclass.gated', status: 'skipped', message: 'feature gate Foo is off', durationMs: 0 });
export const known = kase({
  id: 'api.status.known',
  status: 'failed',
  suite: 'status',
  requirements: [REQ_NOT_FOUND],
  spec: { doc: '000', section: '7' },
  message: 'still broken',
  expected: 'a',
  actual: 'b',
  knownFailure: { reason: 'upstream bug #123' },
});
export const unexpected = kase({
  id: 'api.quota.fixed',
  status: 'passed',
  suite: 'quota',
  requirements: [REQ_MISSING_4],
  spec: { doc: '000', section: '4' },
  // As the runner records it: the expect file's reason goes into the message.
  message: 'unexpected pass: listed as a known failure ("was broken"); remove it from the expect file',
  unexpectedPass: true,
});

export const report: RunReport = {
  tool: 'orch-conformance',
  version: '0.1.0',
  target: { api: 'http://127.0.0.1:8080', embedded: false },
  runId: 'run-abc123',
  startedAt: '2025-01-02T03:04:05.000Z',
  durationMs: 4321,
  summary: { total: 6, passed: 1, failed: 1, warned: 0, skipped: 1, errored: 1, interrupted: 0, knownFailures: 1, unexpectedPasses: 1 },
  cases: [passed, failed, errored, skipped, known, unexpected],
  leaks: ['/apis/storage.orch.io/v1/storageclasses/leaked-<1>'],
  cleanupUnverified: [],
  interrupted: false,
  strict: false,
};

export const REQ_SHOULD = '000-7-status-not-found';

/** A SHOULD case that failed in a run without --strict. */
export const warned = kase({
  id: 'api.status.should-message',
  status: 'warned',
  suite: 'status',
  level: 'SHOULD',
  requirements: [REQ_NOT_FOUND],
  spec: { doc: '000', section: '7' },
  message: 'Status.message differs from upstream',
  expected: 'message "pods \\"missing\\" not found"',
  actual: 'message "no such pod"',
  exchanges: [{ method: 'GET', url: 'http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing', requestHeaders: {}, status: 404, durationMs: 2 }],
});

/** A case stopped by Ctrl-C. */
export const interrupted = kase({ id: 'api.storageclass.slow', status: 'interrupted', message: 'the run was interrupted while this case ran' });

/** A run that passes with one warning, selected with --focus out of a bigger kit. */
export function passingWithWarning(): RunReport {
  const cases = [passed, skipped, warned];
  return {
    ...report,
    cases,
    summary: summarise(cases),
    leaks: [],
    cleanupUnverified: [],
    selection: {
      focus: 'storageclass|status', suites: [], facts: [{ fact: 'continueTtl', flag: '--continue-ttl', value: '300s' }, { fact: 'authentication', flag: '--token' }],
      gates: { ShardedListAndWatch: true }, expect: { file: 'known.yaml', entries: { 'api.status.known': 'upstream bug #123' } },
      strict: false, selectedCases: 3, totalCases: 700, partial: true,
    },
  };
}

/** A case that failed once, then passed on a retry (`run --retries 1`), with the failed attempt's evidence. */
export const flaky = kase({
  id: 'api.status.flaky-read',
  status: 'flaky',
  suite: 'status',
  requirements: [REQ_NOT_FOUND],
  spec: { doc: '000', section: '7' },
  message: '',
  attempts: [
    {
      status: 'failed', durationMs: 40, message: 'status mismatch on the first attempt', expected: '404', actual: '500',
      exchanges: [{ method: 'GET', url: 'http://127.0.0.1:8080/api/v1/namespaces/x/pods/flaky-first', requestHeaders: {}, status: 500, responseBody: '{"kind":"Status","code":500}', durationMs: 2 }],
    },
    { status: 'passed', durationMs: 12, message: '', exchanges: [] },
  ],
});

/** A case the run never started: it was interrupted first. */
export const unstarted = kase({ id: 'api.storageclass.never', status: 'unstarted', durationMs: 0, message: 'not started: the run was interrupted first' });

/**
 * A run with `failures` failed cases spread over the catalogue's requirements (so that every
 * section and level has some), each with `exchanges` recorded exchanges whose bodies are
 * `bodyChars` characters of JSON: what a badly broken target gives. Plus a pass, a flaky case and
 * a case never started. The bodies share one string, so the fixture itself costs little memory.
 */
export function manyFailures(requirements: readonly { id: string; doc: string; section: string; level: 'MUST' | 'SHOULD' }[], failures = 1000, exchanges = 20, bodyChars = 5000): RunReport {
  const body = JSON.stringify({ kind: 'PodList', items: [{ metadata: { name: 'x'.repeat(Math.max(0, bodyChars - 60)) } }] });
  const cases: CaseResult[] = [passed, flaky, unstarted];
  for (let i = 0; i < failures; i++) {
    const r = requirements[i % requirements.length]!;
    cases.push(kase({
      id: `api.bulk.case-${String(i).padStart(4, '0')}`,
      status: 'failed',
      suite: `bulk-${r.doc}`,
      title: `bulk case ${i} <b>checks</b> ${r.id}`,
      requirements: [r.id],
      spec: { doc: r.doc as CaseResult['spec']['doc'], section: r.section },
      level: r.level,
      message: `status mismatch in bulk case ${i}: ${'the target answered something else; '.repeat(8)}`,
      expected: `404 NotFound ${'e'.repeat(300)}`,
      actual: `200 OK ${'a'.repeat(300)}`,
      exchanges: Array.from({ length: exchanges }, (_, j) => ({
        method: j % 2 ? 'GET' : 'POST',
        url: `http://127.0.0.1:8080/api/v1/namespaces/bulk-${i}/pods/p-${j}`,
        requestHeaders: { 'content-type': 'application/json', authorization: 'Bearer secret' },
        requestBody: body,
        status: 200,
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: body,
        durationMs: 3,
      })),
    }));
  }
  return { ...report, cases, summary: summarise(cases), leaks: [], cleanupUnverified: [], durationMs: 99_700 };
}
