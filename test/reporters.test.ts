import t from 'tap';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import type { CaseResult, RunReport } from '../runner/results.js';
import { UsageError } from '../runner/errors.js';
import { REPORTER_NAMES, createReporter, renderReport } from '../reporters/index.js';
import { ConsoleReporter, renderConsole } from '../reporters/console.js';
import { renderJson } from '../reporters/json.js';
import { renderJunit } from '../reporters/junit.js';
import { renderTap } from '../reporters/tap.js';
import { renderMarkdown } from '../reporters/markdown.js';
import { renderHtml } from '../reporters/html.js';
import { compareSections, groupBySpec } from '../reporters/grouping.js';
import { splitCodeSpans } from '../reporters/format.js';
import { requirementById } from '../suites/requirements/index.js';

// ---------------------------------------------------------------------------------------------
// A synthetic run covering every outcome.

const NASTY = `value <&"'> with\u0001control`;
const REQ_DEFAULT = '000-2.2-reclaim-policy-default';
const REQ_NOT_FOUND = '000-7-status-not-found';
const REQ_MISSING_2_10 = '000-2.10-surely-not-in-catalogue';
const REQ_MISSING_4 = '000-4-surely-not-in-catalogue-either';

function kase(over: Partial<CaseResult> & Pick<CaseResult, 'id' | 'status'>): CaseResult {
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

const passed = kase({ id: 'api.storageclass.reclaim-policy.default', status: 'passed', title: 'reclaimPolicy defaults to Delete' });
const failed = kase({
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
const errored = kase({
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
const skipped = kase({ id: 'api.storageclass.gated', status: 'skipped', message: 'feature gate Foo is off', durationMs: 0 });
const known = kase({
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
const unexpected = kase({
  id: 'api.quota.fixed',
  status: 'passed',
  suite: 'quota',
  requirements: [REQ_MISSING_4],
  spec: { doc: '000', section: '4' },
  // As the runner records it: the expect file's reason goes into the message.
  message: 'unexpected pass: listed as a known failure ("was broken"); remove it from the expect file',
  unexpectedPass: true,
});

const report: RunReport = {
  tool: 'orch-conformance',
  version: '0.1.0',
  target: { api: 'http://127.0.0.1:8080', embedded: false },
  runId: 'run-abc123',
  startedAt: '2025-01-02T03:04:05.000Z',
  durationMs: 4321,
  summary: { total: 6, passed: 2, failed: 2, skipped: 1, errored: 1 },
  cases: [passed, failed, errored, skipped, known, unexpected],
  leaks: ['/apis/storage.orch.io/v1/storageclasses/leaked-<1>'],
  interrupted: false,
};

// ---------------------------------------------------------------------------------------------
// A tiny XML well-formedness checker that builds a tree (elements, attributes, text).

interface El {
  name: string;
  attrs: Record<string, string>;
  children: El[];
  text: string;
}

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[e]!;
  });
}

const BAD_REF = /&(?!(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);)/;
const INVALID_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function parseXml(xml: string): El {
  if (INVALID_CHAR.test(xml)) throw new Error('character not allowed in XML 1.0');
  const doc: El = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: El[] = [doc];
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (BAD_REF.test(text)) throw new Error(`bad entity reference in text at ${i}`);
    if (text.includes(']]>')) throw new Error(`]]> in text at ${i}`);
    if (stack.length === 1 && text.trim()) throw new Error(`text outside the root element at ${i}`);
    stack.at(-1)!.text += decode(text);
    if (lt === -1) break;
    const rest = xml.slice(lt);
    let m: RegExpExecArray | null;
    if (rest.startsWith('<?')) {
      const end = xml.indexOf('?>', lt);
      if (end === -1) throw new Error('unterminated processing instruction');
      i = end + 2;
    } else if (rest.startsWith('<!--')) {
      const end = xml.indexOf('-->', lt);
      if (end === -1) throw new Error('unterminated comment');
      i = end + 3;
    } else if (/^<!DOCTYPE\s/i.test(rest)) {
      if (doc.children.length) throw new Error('DOCTYPE after the root element');
      i = xml.indexOf('>', lt) + 1;
    } else if ((m = /^<\/([A-Za-z_][\w.:-]*)\s*>/.exec(rest))) {
      const open = stack.pop();
      if (!open || open === doc || open.name !== m[1]) throw new Error(`</${m[1]}> closes <${open?.name}> at ${lt}`);
      i = lt + m[0].length;
    } else if ((m = /^<([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/.exec(rest))) {
      const el: El = { name: m[1]!, attrs: {}, children: [], text: '' };
      for (const a of m[2]!.matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        const raw = a[2] ?? a[3] ?? '';
        if (BAD_REF.test(raw)) throw new Error(`bad entity reference in attribute ${a[1]}`);
        if (a[1]! in el.attrs) throw new Error(`duplicate attribute ${a[1]}`);
        // Attribute-value normalisation: literal whitespace becomes a space, references are kept.
        el.attrs[a[1]!] = decode(raw.replace(/[\t\n\r]/g, ' '));
      }
      const parent = stack.at(-1)!;
      if (parent === doc && doc.children.length) throw new Error('second root element');
      parent.children.push(el);
      if (!m[3]) stack.push(el);
      i = lt + m[0].length;
    } else {
      throw new Error(`malformed markup at ${lt}: ${rest.slice(0, 40)}`);
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  if (doc.children.length !== 1) throw new Error('no root element');
  return doc.children[0]!;
}

function all(el: El, name: string): El[] {
  const out: El[] = [];
  const walk = (e: El): void => {
    if (e.name === name) out.push(e);
    e.children.forEach(walk);
  };
  walk(el);
  return out;
}

t.test('the XML checker itself rejects broken documents', async (t) => {
  t.throws(() => parseXml('<a><b></a></b>'));
  t.throws(() => parseXml('<a>x & y</a>'));
  t.throws(() => parseXml('<a x="1" x="2"/>'));
  t.throws(() => parseXml('<a>\u0001</a>'));
  t.throws(() => parseXml('<a/><b/>'));
  t.throws(() => parseXml('<a x="<"/>'));
  t.same(parseXml('<a x="1&#10;2"><b>&lt;&amp;</b></a>').attrs, { x: '1\n2' });
});

// ---------------------------------------------------------------------------------------------

t.test('json round-trips to the same report', async (t) => {
  const text = renderJson(report);
  t.same(JSON.parse(text), JSON.parse(JSON.stringify(report)));
  t.strictSame(JSON.parse(text), report);
  t.match(text, /^\{\n {2}"tool": "orch-conformance",/);
});

t.test('junit: well-formed, counts, escaping', async (t) => {
  const xml = renderJunit(report);
  t.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
  const root = parseXml(xml);
  t.equal(root.name, 'testsuites');
  // 6 cases plus the run-level cleanup check, which fails because of the leak.
  t.match(root.attrs, { tests: '7', failures: '3', errors: '1', skipped: '2' });
  t.equal(Number(root.attrs.time), 4.321);

  const suites = Object.fromEntries(all(root, 'testsuite').map((s) => [s.attrs.name, s.attrs]));
  t.match(suites.storageclass, { tests: '3', failures: '0', errors: '1', skipped: '1' });
  t.match(suites.status, { tests: '2', failures: '1', errors: '0', skipped: '1' });
  t.match(suites.quota, { tests: '1', failures: '1', errors: '0', skipped: '0' });
  t.match(suites['orch-conformance run'], { tests: '1', failures: '1', errors: '0', skipped: '0' });

  const cases = all(root, 'testcase');
  const sum = (k: string): number => all(root, 'testsuite').reduce((n, s) => n + Number(s.attrs[k]), 0);
  t.equal(sum('tests'), cases.length, 'suite tests add up to the testcases');
  t.equal(cases.filter((c) => c.children.some((x) => x.name === 'failure')).length, Number(root.attrs.failures));
  t.equal(cases.filter((c) => c.children.some((x) => x.name === 'error')).length, Number(root.attrs.errors));
  t.equal(cases.filter((c) => c.children.some((x) => x.name === 'skipped')).length, Number(root.attrs.skipped));

  const byName = (id: string): El => cases.find((c) => c.attrs.name!.startsWith(`${id}: `))!;
  const f = byName(failed.id);
  t.equal(f.attrs.classname, 'status');
  t.equal(f.attrs.name, `${failed.id}: ${failed.title}`, 'name attribute escaped and decoded back');
  t.equal(f.attrs.time, '0.012');
  const failure = f.children[0]!;
  t.equal(failure.name, 'failure');
  t.equal(failure.attrs.message, failed.message.replace('\u0001', ''), 'message round-trips, control char stripped');
  t.match(failure.text, `expected: ${failed.expected}`);
  t.match(failure.text, `actual: ${failed.actual}`);
  t.match(failure.text, REQ_NOT_FOUND);
  t.match(failure.text, 'GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2 -> 200');
  t.match(failure.text, '<script>alert(1)</script> & \\u0007 done', 'response body included (decoded)');
  t.notOk(/[\u0001\u0007]/.test(xml), 'no control characters in the XML');

  t.equal(byName(errored.id).children[0]!.name, 'error');
  t.equal(byName(skipped.id).children[0]!.attrs.message, 'feature gate Foo is off');
  const k = byName(known.id).children[0]!;
  t.equal(k.name, 'skipped');
  t.equal(k.attrs.message, 'known failure: upstream bug #123');
  const u = byName(unexpected.id).children[0]!;
  t.equal(u.name, 'failure');
  t.equal(u.attrs.type, 'unexpected-pass');
  t.equal(u.attrs.message, unexpected.message);
  t.equal(byName(passed.id).children.length, 0);

  const cleanup = cases.find((c) => c.attrs.name === 'run: cleanup')!;
  t.equal(cleanup.children[0]!.name, 'failure');
  t.match(cleanup.children[0]!.text, report.leaks[0]!);
});

t.test('junit: interruption and leaks fail the run, so CI is not green', async (t) => {
  const clean: RunReport = {
    ...report,
    cases: [passed, skipped, known],
    summary: { total: 3, passed: 1, failed: 1, skipped: 1, errored: 0 },
    leaks: [],
  };
  const green = parseXml(renderJunit(clean));
  t.match(green.attrs, { tests: '3', failures: '0', errors: '0', skipped: '2' }, 'known failure alone keeps CI green');
  const root = parseXml(renderJunit({ ...clean, interrupted: true }));
  t.match(root.attrs, { tests: '4', failures: '0', errors: '1' });
  const leaky = parseXml(renderJunit({ ...clean, leaks: ['/api/v1/namespaces/left'] }));
  t.match(leaky.attrs, { tests: '4', failures: '1', errors: '0' }, 'a leak fails the run, so CI is not green');
});

t.test('tap 14: plan, test points, directives, diagnostics', async (t) => {
  const tap = renderTap(report);
  const lines = tap.split('\n');
  t.equal(lines[0], 'TAP version 14');
  t.ok(lines.includes('1..6'));
  const points = lines.filter((l) => /^(not )?ok \d+ /.test(l));
  t.equal(points.length, 6);
  t.equal(points[0], `ok 1 - ${passed.id}: ${passed.title}`);
  t.match(points[1], /^not ok 2 - api\.status\.not-found: /);
  t.match(points[2], /^not ok 3 - api\.storageclass\.list: /);
  t.equal(points[3], `ok 4 - ${skipped.id}: ${skipped.title} # SKIP feature gate Foo is off`);
  t.equal(points[4], `not ok 5 - ${known.id}: ${known.title} # TODO known failure: upstream bug #123`);
  t.match(points[5], /^not ok 6 - api\.quota\.fixed: [^#]*$/);

  // The YAML block after test point 2.
  const start = lines.indexOf(points[1]!) + 1;
  t.equal(lines[start], '  ---');
  const end = lines.indexOf('  ...', start);
  const diag = parseYaml(lines.slice(start + 1, end).map((l) => l.slice(2)).join('\n')) as Record<string, unknown>;
  t.equal(diag.message, failed.message);
  t.equal(diag.expected, failed.expected);
  t.equal(diag.actual, failed.actual);
  t.same(diag.requirements, [REQ_NOT_FOUND]);

  t.notMatch(tap, 'Bail out!');
  t.match(renderTap({ ...report, interrupted: true }), /\nBail out! /);
});

t.test('spec prose: code spans split out', async (t) => {
  t.same(splitCodeSpans('a `b` c ``d`e`` f ` g'), [
    { code: false, text: 'a ' },
    { code: true, text: 'b' },
    { code: false, text: ' c ' },
    { code: true, text: 'd`e' },
    { code: false, text: ' f ` g' },
  ]);
  const md = renderMarkdown(report);
  const html = renderHtml(report);
  for (const id of [REQ_DEFAULT, REQ_NOT_FOUND]) {
    const req = requirementById(id);
    const span = req && splitCodeSpans(req.text).find((p) => p.code);
    if (!span) continue;
    t.ok(html.includes(`<code>${span.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code>`), `code span of ${id} in html`);
    t.ok(md.includes(`\`${span.text}\``), `code span of ${id} in markdown`);
  }
});

t.test('grouping: numeric section order, catalogue lookup, missing requirements', async (t) => {
  t.same(['4', '2.10', '2.2', '7', '2', '2.1'].sort(compareSections), ['2', '2.1', '2.2', '2.10', '4', '7']);
  const docs = groupBySpec(report);
  t.same(docs.map((d) => d.doc), ['000']);
  t.same(docs[0]!.sections.map((s) => s.section), ['2.2', '2.10', '4', '7']);
  const s22 = docs[0]!.sections[0]!.requirements.find((r) => r.id === REQ_DEFAULT)!;
  t.same(s22.cases.map((c) => c.id), [passed.id, skipped.id]);
  t.equal(s22.status, 'passed');
  const missing = docs[0]!.sections[1]!.requirements[0]!;
  t.equal(missing.id, REQ_MISSING_2_10);
  t.equal(missing.requirement, undefined);
  t.equal(missing.status, 'errored');

  const bare = groupBySpec({ ...report, cases: [kase({ id: 'x.no-req', status: 'passed', requirements: [] })] });
  t.equal(bare[0]!.sections[0]!.section, '2.2', 'a case naming no requirement sits under its own spec section');
  t.equal(bare[0]!.sections[0]!.requirements[0]!.id, '');
  t.match(renderMarkdown({ ...report, cases: [kase({ id: 'x.no-req', status: 'passed', requirements: [] })] }), 'Cases that name no requirement');
});

/** A subtest's `t`. */
type T = Parameters<Parameters<typeof t.test>[0]>[0];

function checkAuditorReport(t: T, text: string, headings: RegExp): void {
  // Section headings appear in numeric order.
  const order = [...text.matchAll(headings)].map((m) => m[1]);
  t.same(order, ['2.2', '2.10', '4', '7'], 'sections in numeric order');
  t.match(text, 'Control-plane resource API');
  for (const id of [REQ_DEFAULT, REQ_NOT_FOUND]) t.ok(text.includes(id), `mentions ${id}`);
  t.ok(text.includes(REQ_MISSING_2_10));
  t.match(text, 'not in catalogue');
  t.match(text, 'run-abc123');
  t.match(text, '2025-01-02T03:04:05.000Z');
  t.match(text, 'FAIL');
  t.notMatch(text, 'secret-token-123', 'credentials are masked');
  t.match(text, 'ECONNREFUSED');
}

/** The longest stretch of a requirement's text free of characters the reports escape or format. */
function plainFragment(id: string): string | undefined {
  const req = requirementById(id);
  if (!req) return undefined;
  return req.text.split(/[<>&"'`*_[\]|#~!\\\n]/).reduce((a, b) => (b.length > a.length ? b : a), '');
}

/** The requirement's text is shown when the catalogue has it, "not in catalogue" otherwise. */
function checkRequirementTexts(t: T, text: string): void {
  for (const id of [REQ_DEFAULT, REQ_NOT_FOUND]) {
    const fragment = plainFragment(id);
    if (fragment !== undefined) t.ok(text.includes(fragment), `requirement text of ${id} shown`);
    else t.ok(text.includes(id) && text.includes('not in catalogue'), `${id} shown as not in catalogue`);
  }
}

t.test('markdown report', async (t) => {
  const md = renderMarkdown(report);
  checkAuditorReport(t, md, /^### ([\d.]+)/gm);
  t.match(md, /^## 000: Control-plane resource API$/m);
  t.match(md, /\| Verdict \| \*\*FAIL\*\*/);
  checkRequirementTexts(t, md);
  // The failure's exchange, with request and response.
  t.match(md, '`GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2` → **200**');
  t.match(md, 'authorization: Bearer <redacted>');
  t.match(md, '"note": "<script>alert(1)</script> & \\u0007 done"', 'JSON body pretty-printed in a code block');
  t.match(md, '&lt;script&gt;alert("t")&lt;/script&gt;', 'title escaped outside code');
  t.notMatch(md, /\u0001|\u0007/, 'control characters stripped');
  t.match(md, 'x-note: bellhere');
  t.match(md, 'leaked-<1>');
});

t.test('html report: self-contained, escaped, well-formed', async (t) => {
  const html = renderHtml(report);
  checkAuditorReport(t, html, /<h3 id="[^"]*">([\d.]+)/g);
  t.ok(html.startsWith('<!DOCTYPE html>'));
  t.doesNotThrow(() => parseXml(html), 'balanced, properly escaped markup');
  t.notMatch(html, /<script/i, 'no script element from data');
  t.notMatch(html, /\b(src|href)="(https?:)?\/\//, 'no external assets');
  t.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;');
  t.match(html, '<details>');
  t.match(html, 'GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=&lt;1&gt;&amp;b=2');
  checkRequirementTexts(t, html);
  const root = parseXml(html);
  const h2 = all(root, 'h2').map((e) => e.text);
  t.ok(h2.includes('000: Control-plane resource API'));
});

// ---------------------------------------------------------------------------------------------

class Capture extends Writable {
  data = '';
  isTTY: boolean;
  constructor(tty = false) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.data += chunk.toString();
    cb();
  }
}

async function drive(out: Capture, r: RunReport = report): Promise<string> {
  const rep = new ConsoleReporter(out);
  rep.start({ runId: r.runId, target: r.target, total: r.cases.length });
  for (const c of r.cases) rep.caseEnd(c);
  await rep.end(r);
  return out.data;
}

t.test('console reporter (not a TTY)', async (t) => {
  const text = await drive(new Capture(false));
  t.match(text, /^Run run-abc123 against http:\/\/127\.0\.0\.1:8080: 6 cases\n/);
  t.notMatch(text, /\u001b\[/, 'no colour without a TTY');
  t.notMatch(text, /\[\d+\/6\]/, 'no progress counter without a TTY');
  t.match(text, `${skipped.id} (0ms) skipped: feature gate Foo is off`);
  t.match(text, '2 passed, 2 failed, 1 errored, 1 skipped; 6 total in 4.3s');
  t.match(text, `expected: ${failed.expected}`);
  t.match(text, `actual:   ${failed.actual}`);
  t.match(text, `requirements: ${REQ_NOT_FOUND}; spec 000 §7`);
  t.match(text, 'last exchange: GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2 -> 200 (3ms)');
  t.match(text, 'last exchange: POST http://127.0.0.1:8080/apis/storage.orch.io/v1/storageclasses -> no response: ECONNREFUSED');
  t.match(text, /Known failures \(not counted\):\n.*api\.status\.known: upstream bug #123/);
  t.match(text, /Unexpected passes.*\n.*api\.quota\.fixed/);
  t.match(text, 'leaked-<1>');
  t.match(text, 'FAIL');
  // The known failure is not listed among the failures.
  const failures = text.slice(text.indexOf('Failures:'), text.indexOf('Known failures'));
  t.notMatch(failures, known.id);

  const interrupted = await drive(new Capture(false), { ...report, interrupted: true });
  t.match(interrupted, 'Interrupted');
  t.equal(renderConsole(report), renderReport('console', report));
  t.match(renderConsole(report), '2 passed, 2 failed');
});

t.test('console reporter on a TTY: progress counter, colours unless NO_COLOR', async (t) => {
  const saved = process.env.NO_COLOR;
  t.teardown(() => {
    if (saved === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved;
  });
  delete process.env.NO_COLOR;
  const text = await drive(new Capture(true));
  t.match(text, /\[1\/6\]/);
  t.match(text, /\[6\/6\]/);
  t.match(text, /\u001b\[/);
  t.match(text, '✓');
  process.env.NO_COLOR = '1';
  const plain = await drive(new Capture(true));
  t.notMatch(plain, /\u001b\[/);
  t.match(plain, /\[3\/6\]/);
});

t.test('createReporter', async (t) => {
  t.same([...REPORTER_NAMES], ['console', 'json', 'junit', 'markdown', 'html', 'tap']);
  t.throws(() => createReporter('nope'), UsageError);
  try {
    createReporter('nope');
  } catch (e) {
    t.ok(e instanceof UsageError);
    t.match((e as Error).message, /console, json, junit, markdown, html, tap/);
  }
  t.throws(() => createReporter('json='), UsageError);
  t.throws(() => createReporter('console=/tmp/x'), UsageError);
  t.throws(() => renderReport('nope', report), UsageError);
  for (const name of REPORTER_NAMES) t.equal(createReporter(name).name, name);

  const dir = await mkdtemp(join(tmpdir(), 'orch-reporters-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'x', 'y.json');
  const stdout = new Capture();
  await createReporter(`json=${path}`, { stdout }).end(report);
  t.strictSame(JSON.parse(await readFile(path, 'utf8')), report);
  t.equal(stdout.data, '', 'nothing on stdout when writing a file');

  const out = new Capture();
  await createReporter('tap', { stdout: out }).end(report);
  t.equal(out.data, renderTap(report));
  for (const name of REPORTER_NAMES) t.type(renderReport(name, report), 'string');
});
