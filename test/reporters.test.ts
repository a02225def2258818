import t from 'tap';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import type { RunReport } from '../runner/results.js';
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
import { REQUIREMENTS, requirementById } from '../suites/requirements/index.js';
import { computeCoverage, specOutline } from '../reporters/coverage.js';
import { buildRunSelection } from '../runner/selection.js';
import { ALL_CASES } from '../suites/index.js';
import type { Requirement } from '../suites/requirements/index.js';

// A synthetic run covering every outcome (test/helpers/report-fixture.ts).
import {
  REQ_DEFAULT, REQ_NOT_FOUND, REQ_MISSING_2_10, kase, passed, failed, errored, skipped, known, unexpected, report,
  warned, interrupted, passingWithWarning, flaky, unstarted, manyFailures,
} from './helpers/report-fixture.js';
import { MARKDOWN_LIMIT } from '../reporters/markdown.js';
import { summarise } from '../runner/run.js';

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

/** A parsed JSON report without the reproducers the JSON reporter adds at render (reporters/reproducer.ts). */
function withoutReproducers(r: RunReport): RunReport {
  return { ...r, cases: r.cases.map((c) => ({ ...c, exchanges: c.exchanges.map(({ reproducer: _, ...ex }) => ex) })) };
}

t.test('json round-trips to the same report; coverage is added when missing and kept when present', async (t) => {
  const recorded = { ...passingWithWarning(), coverage: computeCoverage(passingWithWarning().cases) };
  const text = renderJson(recorded);
  t.strictSame(withoutReproducers(JSON.parse(text)), JSON.parse(JSON.stringify(recorded)));
  t.equal(renderJson(JSON.parse(text)), text, 'rendering a read-back report again changes nothing (its reproducers included)');
  t.match(text, /^\{\n {2}"tool": "orch-conformance",/);
  // A report written before coverage existed gets it computed from its cases.
  const old = withoutReproducers(JSON.parse(renderJson(report)));
  t.strictSame({ ...old, coverage: undefined }, { ...JSON.parse(JSON.stringify(report)), coverage: undefined });
  t.same(old.coverage, computeCoverage(report.cases));
  // A saved coverage is used as saved (re-rendering must not recompute against a newer catalogue).
  const doctored: RunReport = { ...recorded, coverage: { ...recorded.coverage, total: { ...recorded.coverage.total, requirements: 99999 } } };
  t.equal((JSON.parse(renderJson(doctored)) as RunReport).coverage!.total.requirements, 99999);
  t.match(renderHtml(doctored), '<th>All sections</th><td class="n n-requirements">99999</td>');
  t.match(renderMarkdown(doctored), '| **All sections** | 99999 |');
});

t.test('json: the selection as recorded', async (t) => {
  const r = JSON.parse(renderJson(passingWithWarning())) as RunReport;
  t.same(r.selection, {
    focus: 'storageclass|status', suites: [], facts: [{ fact: 'continueTtl', flag: '--continue-ttl', value: '300s' }, { fact: 'authentication', flag: '--token' }],
    gates: { ShardedListAndWatch: true }, expect: { file: 'known.yaml', entries: { 'api.status.known': 'upstream bug #123' } },
    strict: false, selectedCases: 3, totalCases: 700, partial: true,
  });
  t.same(r.summary, { total: 3, passed: 1, failed: 0, warned: 1, skipped: 1, errored: 0, interrupted: 0, flaky: 0, unstarted: 0, knownFailures: 0, unexpectedPasses: 0 });
  const w = r.cases.find((c) => c.status === 'warned')!;
  t.equal(w.expected, warned.expected);
  t.equal(w.actual, warned.actual);
});

t.test('junit: well-formed, counts, escaping', async (t) => {
  const xml = renderJunit(report);
  t.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
  const root = parseXml(xml);
  t.equal(root.name, 'testsuites');
  // 6 cases plus the run-level cleanup check, which fails because of the leak.
  t.match(root.attrs, { tests: '7', failures: '3', errors: '1', skipped: '2' });
  t.equal(Number(root.attrs.time), 4.321);
  // Suites run interleaved in one run: each suite's time is the run's wall time, not a sum of cases.
  for (const s of all(root, 'testsuite').filter((s) => s.attrs.name !== 'orch-conformance run')) t.equal(Number(s.attrs.time), 4.321, `suite ${s.attrs.name}: wall time`);

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

  const byName = (id: string): El => cases.find((c) => c.attrs.name === id)!;
  // The testcase's result element (after its properties).
  const result = (c: El): El => c.children.find((x) => x.name !== 'properties')!;
  const f = byName(failed.id);
  t.equal(f.attrs.classname, 'status');
  t.equal(f.attrs.name, failed.id, 'named by the case id alone, stable when a title changes');
  t.equal(f.attrs.time, '0.012');
  t.equal(f.children[0]!.name, 'properties', 'properties first');
  t.same(
    all(f.children[0]!, 'property').map((p) => [p.attrs.name, p.attrs.value]),
    [['requirement', REQ_NOT_FOUND], ['spec', '000 §7'], ['level', 'MUST'], ['title', failed.title]],
    'requirement ids, spec section, level and title (escaped and decoded back) as properties',
  );
  const failure = result(f);
  t.equal(failure.name, 'failure');
  t.equal(failure.attrs.message, failed.message.replace('\u0001', ''), 'message round-trips, control char stripped');
  t.match(failure.text, `expected: ${failed.expected}`);
  t.match(failure.text, `actual: ${failed.actual}`);
  t.match(failure.text, REQ_NOT_FOUND);
  t.match(failure.text, 'GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2 -> 200');
  t.match(failure.text, '<script>alert(1)</script> & \\u0007 done', 'response body included (decoded)');
  t.notOk(/[\u0001\u0007]/.test(xml), 'no control characters in the XML');

  t.equal(result(byName(errored.id)).name, 'error');
  t.equal(result(byName(skipped.id)).attrs.message, 'feature gate Foo is off');
  const k = result(byName(known.id));
  t.equal(k.name, 'skipped');
  t.equal(k.attrs.message, 'known failure: upstream bug #123');
  const u = result(byName(unexpected.id));
  t.equal(u.name, 'failure');
  t.equal(u.attrs.type, 'unexpected-pass');
  t.equal(u.attrs.message, unexpected.message);
  t.same(byName(passed.id).children.map((x) => x.name), ['properties'], 'a pass has its properties only');

  const cleanup = cases.find((c) => c.attrs.name === 'run: cleanup')!;
  t.equal(cleanup.children[0]!.name, 'failure');
  t.match(cleanup.children[0]!.text, report.leaks[0]!);
});

t.test('junit: interruption and leaks fail the run, so CI is not green', async (t) => {
  const clean: RunReport = {
    ...report,
    cases: [passed, skipped, known],
    summary: { total: 3, passed: 1, failed: 0, warned: 0, skipped: 1, errored: 0, interrupted: 0, knownFailures: 1, unexpectedPasses: 0 },
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
  t.ok(lines.includes('1..7'), 'the plan counts the cleanup test point');
  const points = lines.filter((l) => /^(not )?ok \d+ /.test(l));
  t.equal(points.length, 7);
  t.equal(points[6], 'not ok 7 - run: cleanup left objects behind', 'a leak is a failing test point after the cases');
  t.match(tap, /not ok 7 - run: cleanup left objects behind\n {2}---\n[\s\S]*leaked-<1>[\s\S]*\n {2}\.\.\./);
  t.match(tap, '# 1 passed, 1 failed, 1 errored, 1 skipped, 1 known failure, 1 unexpected pass; 6 total in 4.3s');
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

function checkAuditorReport(t: T, text: string, headings: RegExp, doc000: (text: string) => string): void {
  // Section headings of doc 000 appear in numeric order: every catalogue section, and 2.10 that only a case names.
  const order = [...doc000(text).matchAll(headings)].map((m) => m[1]!);
  t.same(order, [...order].sort(compareSections), 'sections in numeric order');
  const catalogue = [...new Set(REQUIREMENTS.filter((r) => r.doc === '000').map((r) => r.section))];
  t.same([...order].sort(compareSections), [...new Set([...catalogue, '2.10'])].sort(compareSections), 'every catalogue section, and the one only a case names');
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
  checkAuditorReport(t, md, /^### ([\d.]+)/gm, (x) => x.slice(x.indexOf('## 000:'), x.indexOf('## 001:')));
  t.match(md, /^## 000: Control-plane resource API$/m);
  t.match(md, /^# Conformance report: [^\n]*\n\n\*\*Verdict: FAIL\*\*: 2 cases failed or errored, 1 known failure passed, 1 object left behind; [^\n]*requirements not checked[^\n]*\n/, 'opens with the verdict and what was checked');
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
  checkAuditorReport(t, html, /<h3 id="[^"]*">([\d.]+)/g, (x) => x.slice(x.indexOf('id="doc-000"'), x.indexOf('id="doc-001"')));
  t.ok(html.startsWith('<!DOCTYPE html>'));
  t.doesNotThrow(() => parseXml(html), 'balanced, properly escaped markup');
  // One script, the report's own (the filter), and a CSP that lets only it run (see report-browser.test.ts).
  t.equal((html.match(/<script/gi) ?? []).length, 1, 'no script element from data, only the report\'s own');
  t.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-[^"]+; script-src &#39;sha256-[A-Za-z0-9+\/=]+&#39;; /);
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
  t.match(text, '\n1 passed, 1 failed, 1 errored, 1 skipped, 1 known failure, 1 unexpected pass; 6 total in 4.3s\n', 'each bucket once, adding up to the total');
  t.notMatch(text, 'not counted');
  t.match(text, `expected: ${failed.expected}`);
  t.match(text, `actual:   ${failed.actual}`);
  t.match(text, `requirements: ${REQ_NOT_FOUND}; spec 000 §7`);
  t.match(text, 'last exchange: GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing?a=<1>&b=2 -> 200 (3ms)');
  t.match(text, 'last exchange: POST http://127.0.0.1:8080/apis/storage.orch.io/v1/storageclasses -> no response: ECONNREFUSED');
  t.match(text, /Known failures \(listed in the expect file; they do not fail the run\):\n.*api\.status\.known: upstream bug #123/);
  t.match(text, /Unexpected passes.*\n.*api\.quota\.fixed/);
  t.match(text, 'leaked-<1>');
  t.match(text, 'FAIL');
  // The known failure is not listed among the failures.
  const failures = text.slice(text.indexOf('Failures:'), text.indexOf('Known failures'));
  t.notMatch(failures, known.id);

  const interrupted = await drive(new Capture(false), { ...report, interrupted: true });
  t.match(interrupted, 'Interrupted');
  t.equal(renderConsole(report), renderReport('console', report));
  t.match(renderConsole(report), '1 passed, 1 failed');
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
  t.strictSame(JSON.parse(await readFile(path, 'utf8')), JSON.parse(renderJson(report)));
  t.equal(stdout.data, '', 'nothing on stdout when writing a file');

  const out = new Capture();
  await createReporter('tap', { stdout: out }).end(report);
  t.equal(out.data, renderTap(report));
  for (const name of REPORTER_NAMES) t.type(renderReport(name, report), 'string');
});

// ---------------------------------------------------------------------------------------------
// Selection, coverage, warnings and partial runs.

t.test('coverage: per section, the worst result of the cases naming each requirement', async (t) => {
  const req = (id: string, section: string): Requirement => ({ id, doc: '000', section, sectionTitle: `S${section}`, level: 'MUST', source: 'spec', text: id });
  const catalogue = [req('a', '1'), req('b', '1'), req('c', '1'), req('d', '2'), req('e', '2'), req('f', '10'), req('g', '2')];
  // The kit: cases naming a..f; nothing names g.
  const kit = [{ requirements: ['a', 'b'] }, { requirements: ['c'] }, { requirements: ['d', 'e', 'f'] }];
  const results = [
    kase({ id: 'x1', status: 'passed', requirements: ['a'] }),
    kase({ id: 'x2', status: 'warned', requirements: ['a', 'b'] }), // a: passed + warned -> warned
    kase({ id: 'x3', status: 'skipped', requirements: ['b'] }), // b: warned (the skip checked nothing)
    kase({ id: 'x4', status: 'skipped', requirements: ['c'] }), // c: skipped, its only case
    kase({ id: 'x5', status: 'passed', requirements: ['d', 'not-in-catalogue'] }),
    kase({ id: 'x6', status: 'failed', requirements: ['d'], knownFailure: { reason: 'r' } }), // d: a known failure, counted apart from failed
  ];
  const cov = computeCoverage(results, catalogue, kit);
  t.same(cov.sections.map((s) => s.section), ['1', '2', '10'], 'numeric section order');
  t.match(cov.sections[0], { doc: '000', title: 'S1', requirements: 3, covered: 3, passed: 0, warned: 2, skipped: 1, failed: 0, notRun: 0, notCovered: 0 });
  t.match(cov.sections[1], { requirements: 3, covered: 2, failed: 0, knownFailures: 1, notRun: 1, notCovered: 1, notRunIds: ['e'], notCoveredIds: ['g'] });
  t.match(cov.sections[2], { requirements: 1, covered: 1, notRun: 1, notRunIds: ['f'] });
  t.same(cov.total, { requirements: 7, covered: 6, passed: 0, failed: 0, errored: 0, warned: 2, interrupted: 0, skipped: 1, notRun: 2, notCovered: 1, knownFailures: 1 });
  const buckets = ['passed', 'failed', 'errored', 'warned', 'interrupted', 'skipped', 'notRun', 'notCovered', 'knownFailures'] as const;
  t.equal(buckets.reduce((n, k) => n + (cov.total[k] ?? 0), 0), cov.total.requirements, 'every requirement in exactly one bucket');
  // Against the real catalogue and kit: what CONFORMANCE.md counts.
  const real = computeCoverage([]);
  t.equal(real.total.requirements, REQUIREMENTS.length);
  t.equal(real.total.notRun + real.total.notCovered, REQUIREMENTS.length, 'no results: everything is not run or not covered');
  t.equal(real.total.covered, real.total.notRun);
});

t.test('selection: what the operator asked for, and whether it is partial', async (t) => {
  const all = ALL_CASES;
  const some = all.filter((c) => c.suite === all[0]!.suite);
  const sel = buildRunSelection({
    focus: 'x', suite: ['a,b', ' c'], level: 'MUST', gates: { ...Object.fromEntries(Object.entries((await import('../runner/gates.js')).defaultGates())), ShardedListAndWatch: true },
    facts: { continueTtlSeconds: 300, corruptObjects: ['/p/1', '/p/2'], failingHealthCheck: { endpoint: 'readyz', check: 'etcd' }, authentication: true },
    expectFile: 'known.yaml', expectations: new Map([['id1', 'why']]), strict: true, selected: some, all,
  });
  t.same(sel, {
    focus: 'x', level: 'MUST', suites: ['a', 'b', 'c'], gates: { ShardedListAndWatch: true },
    facts: [
      { fact: 'continueTtl', flag: '--continue-ttl', value: '300s' },
      { fact: 'corruptObject', flag: '--corrupt-object', value: '/p/1' },
      { fact: 'corruptObject', flag: '--corrupt-object', value: '/p/2' },
      { fact: 'failingHealthCheck', flag: '--failing-health-check', value: 'readyz/etcd' },
      { fact: 'authentication', flag: '--token' },
    ],
    expect: { file: 'known.yaml', entries: { id1: 'why' } },
    strict: true, selectedCases: some.length, totalCases: all.length, partial: true,
  }, 'the token itself is never recorded; gates are those set against the defaults');
  const full = buildRunSelection({ selected: all, all });
  t.same(full, { suites: [], facts: [], strict: false, selectedCases: all.length, totalCases: all.length, partial: false });
});

t.test('console: warnings with expected vs actual, counted apart, named on the last line', async (t) => {
  const r = passingWithWarning();
  const text = await drive(new Capture(false), r);
  t.match(text, /Warnings \(SHOULD rules not met; --strict makes them failures\):\n.*api\.status\.should-message/);
  t.match(text, `expected: ${warned.expected}`);
  t.match(text, `actual:   ${warned.actual}`);
  t.notMatch(text, 'Failures:', 'a warning is not a failure');
  t.match(text, '\n1 passed, 0 failed, 0 errored, 1 skipped, 1 warning; 3 total in 4.3s\n');
  const cov = computeCoverage(r.cases).total;
  t.match(text, `\nRequirements: ${cov.covered} of ${cov.requirements} covered by cases; in this run 1 passed, 1 warned, ${cov.notRun} not run, ${cov.notCovered} not covered\n`,
    'the coverage line: REQ_DEFAULT passed and skipped, REQ_NOT_FOUND warned (worst), the rest not run or not covered');
  const last = text.trimEnd().split('\n').at(-1)!;
  const notChecked = cov.requirements - cov.passed - cov.warned;
  t.equal(last, `PASS with 1 warning (partial run: 3 of 700 cases selected): 1 passed, 1 skipped, 1 warning; ${notChecked} of ${cov.requirements} requirements not checked (${cov.notRun} not selected); 1 SHOULD rule not met (--strict makes it a failure)`);
  const full = renderConsole({ ...r, selection: { ...r.selection!, partial: false, selectedCases: 700 } });
  t.match(full.trimEnd().split('\n').at(-1)!, /^PASS with 1 warning: /, 'no "partial run" when every case was selected');
  t.notMatch(full, 'partial');
});

t.test('console: interrupted cases are reported as interrupted, never as failures', async (t) => {
  const cases = [passed, interrupted];
  const r: RunReport = { ...report, cases, leaks: [], interrupted: true, summary: { total: 2, passed: 1, failed: 0, warned: 0, skipped: 0, errored: 0, interrupted: 1, knownFailures: 0, unexpectedPasses: 0 } };
  const text = renderConsole(r);
  t.match(text, /Interrupted \(stopped with the run; no verdict on the target\):\n.*api\.storageclass\.slow/);
  t.notMatch(text, 'Failures:');
  t.match(text, '1 passed, 0 failed, 0 errored, 0 skipped, 1 interrupted; 2 total');
  t.match(text.trimEnd().split('\n').at(-1)!, /^INCOMPLETE: /);
  t.notMatch(renderMarkdown(r), 'Failures and errors');
  t.match(renderTap(r), /ok 2 - api\.storageclass\.slow: [^\n]*# SKIP interrupted/);
});

t.test('markdown and html open with the per-section matrix, linked to the sections', async (t) => {
  const r = passingWithWarning();
  const coverage = computeCoverage(r.cases);
  const md = renderMarkdown(r);
  const html = renderHtml(r);
  for (const [name, text, firstSection] of [['markdown', md, '<a id="doc-000">'], ['html', html, 'id="doc-000"']] as const) {
    const m = text.indexOf('Coverage by spec section');
    t.ok(m > 0 && m < text.indexOf(firstSection) && m < text.indexOf('Run id'), `${name}: the matrix comes first, after the verdict`);
    t.match(text, 'partial run: 3 of 700 cases selected', `${name}: the verdict says partial run`);
    t.match(text, '3 of 700 cases (partial run): focus /storageclass', `${name}: the selection is shown`);
    t.match(text, '--continue-ttl 300s', `${name}: stated facts shown`);
    t.match(text, 'known.yaml (1 entry)', `${name}: expect file shown`);
    t.match(text, 'Warnings (SHOULD rules not met)', `${name}: a warnings section`);
    t.match(text, 'no case of the kit checks them', `${name}: rules nothing checks are listed`);
  }
  // One matrix row per catalogue section, each linking to an anchor that exists.
  const rows = [...md.matchAll(/^\| \[([^\]]+)\]\(#([^)]+)\) \|/gm)];
  t.equal(rows.length, coverage.sections.length, 'markdown: a row per section');
  for (const [, , id] of rows) t.ok(md.includes(`<a id="${id}"></a>`), `markdown anchor ${id} exists`);
  const s22 = coverage.sections.find((s) => s.doc === '000' && s.section === '2.2')!;
  t.match(md, `| [000 §2.2 StorageClass](#sec-000-2.2) | ${s22.requirements} | ${s22.covered} | 1 | 0 | 0 | 0 | 0 | ${s22.notRun} | **${s22.notCovered}** |`);
  const s7 = coverage.sections.find((s) => s.doc === '000' && s.section === '7')!;
  t.equal(s7.warned, 1);
  t.match(md, new RegExp(`\\| \\[000 §7 Errors\\]\\(#sec-000-7\\) \\| ${s7.requirements} \\| ${s7.covered} \\| 0 \\| 0 \\| 0 \\| \\*\\*1\\*\\* \\|`));
  const htmlRows = [...html.matchAll(/<tr class="section" data-doc="(\d+)" data-section="([^"]+)"><td><a href="#([^"]+)">/g)];
  t.equal(htmlRows.length, coverage.sections.length, 'html: a row per section');
  for (const [, , , id] of htmlRows) t.ok(html.includes(`id="${id}"`), `html anchor ${id} exists`);
  t.match(html, /<tr class="section" data-doc="000" data-section="7">.*<td class="n n-warned">1<\/td>/);
  t.doesNotThrow(() => parseXml(html), 'still well-formed');
  // Every requirement of the catalogue appears once in the details: checked by cases, not run or not covered.
  const outline = specOutline(r);
  const shown = outline.flatMap((d) => d.sections.flatMap((s) => [...s.requirements.map((g) => g.id), ...s.notRun.map((q) => q.id), ...s.notCovered.map((q) => q.id)]));
  t.same(new Set(shown.filter((id) => requirementById(id))).size, REQUIREMENTS.length);
});

t.test('junit and tap carry warnings with expected vs actual, counted apart', async (t) => {
  const r = passingWithWarning();
  const root = parseXml(renderJunit(r));
  t.match(root.attrs, { tests: '3', failures: '0', errors: '0', skipped: '1' }, 'a warning does not turn CI red');
  const w = all(root, 'testcase').find((c) => c.attrs.name === warned.id)!;
  const out = w.children.find((c) => c.name === 'system-out')!;
  t.match(out.text, 'WARNING (SHOULD)');
  t.match(out.text, `expected: ${warned.expected}`);
  t.match(out.text, `actual: ${warned.actual}`);
  const props = Object.fromEntries(all(root, 'property').map((p) => [p.attrs.name, p.attrs.value]));
  t.equal(props.warnings, '1');
  t.equal(props['selection.partial'], 'true');
  const tap = renderTap(r);
  t.match(tap, /^ok 3 - api\.status\.should-message: [^\n]*\n {2}---\n {2}message: "warning \(SHOULD rule not met\)/m);
  t.match(tap, `\n  actual: ${warned.actual}\n`);
  t.match(tap, '# 1 passed, 0 failed, 0 errored, 1 skipped, 1 warning; 3 total');
  t.match(tap, '# PASS with 1 warning (partial run: 3 of 700 cases selected)');
});

t.test('every report stays usable at 1,000 failures: Markdown under 1 MiB, evidence cut with the JSON named', async (t) => {
  // 1,000 failures, each with 20 exchanges of 5,000-character bodies (about 200 MB of evidence).
  const r = manyFailures(REQUIREMENTS);
  const MiB = 1024 * 1024;
  const md = renderMarkdown(r);
  t.ok(Buffer.byteLength(md) <= MARKDOWN_LIMIT && MARKDOWN_LIMIT < MiB, `markdown ${Buffer.byteLength(md)} bytes, under 1 MiB (a GitHub job summary)`);
  t.match(md, /^\*\*Verdict: FAIL\*\*/m, 'the verdict is still there');
  t.match(md, '## Coverage by spec section', 'and the matrix');
  for (const c of r.cases.filter((c) => c.status === 'failed' || c.status === 'flaky')) {
    if (!md.includes(`<a id="case-${c.id}"></a>`)) t.fail(`markdown: ${c.id} has no entry`);
  }
  t.match(md, 'details left out to keep this report under its size; the full text is in the JSON report', 'cases beyond the budget say where their evidence is');
  t.match(md, /#### Exchanges \(20\)\n/, 'the first cases keep their exchanges');
  t.match(md, /… 17 exchanges left out here; the JSON report has every exchange/, 'at most a few exchanges a case');
  t.match(md, /… \(truncated: \d+ more characters in the JSON report\)/, 'bodies cut, saying where the rest is');
  t.match(md, '## Flaky cases (passed on a retry)', 'a thousand failures do not push the flaky case out');
  t.match(md, 'status mismatch on the first attempt', 'with its failed attempt');

  const html = renderHtml(r);
  t.ok(Buffer.byteLength(html) < 8 * MiB, `html ${Buffer.byteLength(html)} bytes, under 8 MiB (was 4.9 MB for 32 failures)`);
  t.match(html, /each case shows at most 3 exchanges and bodies are cut at 256 characters; the full text is in the JSON report/);
  t.equal((html.match(/ data-status="failed"/g) ?? []).length, 2000, 'every failure filterable: its row and its details');

  const xml = renderJunit(r);
  t.ok(Buffer.byteLength(xml) < 5 * MiB, `junit ${Buffer.byteLength(xml)} bytes, under 5 MiB (was 2.1 MB for 32 failures)`);
  const root = parseXml(xml);
  t.match(root.attrs, { tests: '1003', failures: '1000' });
  t.equal(Number(root.attrs.time), 99.7, 'wall time');

  const tap = renderTap(r);
  t.ok(Buffer.byteLength(tap) < 3 * MiB, `tap ${Buffer.byteLength(tap)} bytes, under 3 MiB`);
  t.notMatch(tap, /\n {6}- "13\. /, 'tap lists at most 12 exchanges a case');
});

t.test('flaky cases in every report, with each failed attempt\'s evidence; JUnit in surefire\'s convention', async (t) => {
  // A case that failed every attempt: its last attempt is the failure, the earlier ones reruns.
  const stubborn = kase({
    id: 'api.status.stubborn', status: 'failed', suite: 'status', message: 'failed on the last attempt too',
    attempts: [
      { status: 'errored', durationMs: 5, message: 'connection reset on attempt 1', exchanges: [] },
      { status: 'failed', durationMs: 5, message: 'failed on the last attempt too', exchanges: [] },
    ],
  });
  const cases = [passed, flaky, stubborn];
  const r: RunReport = { ...report, cases, summary: summarise(cases), leaks: [] };

  const root = parseXml(renderJunit(r));
  t.match(root.attrs, { tests: '3', failures: '1', errors: '0' }, 'a flaky case is a pass in CI');
  const byName = (id: string) => all(root, 'testcase').find((c) => c.attrs.name === id)!;
  const f = byName(flaky.id);
  t.same(f.children.map((c) => c.name), ['properties', 'flakyFailure', 'system-out'], 'surefire: <flakyFailure> per failed attempt in a passing testcase');
  const ff = f.children[1]!;
  t.equal(ff.attrs.message, 'status mismatch on the first attempt');
  t.equal(ff.children[0]!.name, 'stackTrace');
  t.match(ff.children[0]!.text, 'attempt 1 of 2: FAILED');
  t.match(ff.children[0]!.text, '1. GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/flaky-first -> 500', 'with that attempt\'s exchanges');
  t.match(all(f, 'property').find((p) => p.attrs.name === 'attempts')!.attrs, { value: '2' });
  const s = byName(stubborn.id);
  t.same(s.children.map((c) => c.name), ['properties', 'failure', 'rerunError'], 'a case that never passed: its failure and a rerun element per earlier attempt');
  t.equal(s.children[2]!.attrs.message, 'connection reset on attempt 1');

  const tap = renderTap(r);
  t.match(tap, new RegExp(`^ok 2 - ${flaky.id.replace(/\./g, '\\.')}: [^\n]*\n {2}---\n {2}message: "flaky: failed, then passed on attempt 2"`, 'm'));
  t.match(tap, 'attempt: "attempt 1 of 2: FAILED (40ms): status mismatch on the first attempt"');
  t.match(tap, '1. GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/flaky-first -> 500');

  for (const [name, text] of [['markdown', renderMarkdown(r)], ['html', renderHtml(r)]] as const) {
    t.match(text, 'Flaky cases (passed on a retry)', `${name}: a section of its own`);
    t.match(text, 'status mismatch on the first attempt', `${name}: the failed attempt's message`);
    t.match(text, 'pods/flaky-first', `${name}: and its exchanges`);
    t.match(text, 'connection reset on attempt 1', `${name}: every attempt of a case that failed them all`);
    t.match(text, /Flaky \(failed, then passed on a retry\)/, `${name}: counted apart in the summary`);
    t.match(text, `#case-${flaky.id}`, `${name}: its row links to its details`);
  }
});

t.test('cases never started are worded so in every file report', async (t) => {
  const cases = [passed, unstarted];
  const r: RunReport = { ...report, cases, summary: summarise(cases), leaks: [], interrupted: true };
  const root = parseXml(renderJunit(r));
  const u = all(root, 'testcase').find((c) => c.attrs.name === unstarted.id)!;
  t.equal(u.children.find((c) => c.name === 'skipped')!.attrs.message, 'not started: the run was interrupted first');
  t.match(renderTap(r), `ok 2 - ${unstarted.id}: ${unstarted.title} # SKIP not started: the run was interrupted first`);
  for (const [name, text] of [['markdown', renderMarkdown(r)], ['html', renderHtml(r)]] as const) {
    t.match(text, /Not started \(the run was interrupted first\)/, `${name}: counted in the summary`);
    t.match(text, /listed as (_not started_|<em>not started<\/em>) and checked nothing/, `${name}: the interruption note says what not started means`);
    t.notMatch(text, 'cases that did not run are not listed', `${name}: no longer says they are not listed`);
  }
  t.match(renderJson(r), '"status": "unstarted"');
});

t.test('a long message in a table cell keeps its end: the flag a skip reason names', async (t) => {
  const long = kase({ id: 'api.storageclass.long-skip', status: 'skipped', message: `${'the target does not show this; '.repeat(30)}run with --gates Foo=true` });
  const cases = [passed, long];
  const r: RunReport = { ...report, cases, summary: summarise(cases), leaks: [] };
  for (const [name, text] of [['markdown', renderMarkdown(r)], ['html', renderHtml(r)]] as const) {
    t.match(text, /characters left out\) … [^|<]*run with --gates Foo=true/, `${name}: cut in the middle, the flag kept`);
  }
});

t.test('markdown lists at most 200 leaked paths, and says the JSON has the rest', async (t) => {
  const leaks = Array.from({ length: 250 }, (_, i) => `/api/v1/namespaces/left-${i}`);
  const md = renderMarkdown({ ...report, leaks });
  t.match(md, '`/api/v1/namespaces/left-199`');
  t.notMatch(md, 'left-200`');
  t.match(md, '- … 50 more: the JSON report lists them all');
});

t.test('JUnit fails what fails the run beyond the cases: nothing checked, a missed policy, a flaky case under --strict', async (t) => {
  const allSkipped: RunReport = { ...report, cases: [skipped], leaks: [], interrupted: false, summary: summarise([skipped]) };
  const xml = renderJunit(allSkipped);
  t.match(xml, /<testcase [^>]*name="run: nothing checked"[^>]*>\s*<failure [^>]*type="unchecked"/, 'a run in which every case skipped is a failing test');
  t.match(xml, /feature gate Foo is off/, 'with the skip reasons');
  t.match(xml, /<testsuites[^>]* failures="1"/);

  const oneRan = [passed, skipped];
  const missed: RunReport = { ...report, cases: oneRan, leaks: [], interrupted: false, summary: summarise(oneRan), policy: { failOnSkip: true } };
  t.match(renderJunit(missed), /name="run: policy"[^>]*>\s*<failure [^>]*message="1 selected case skipped \(--fail-on-skip\)"/, '--fail-on-skip missed: a failing test');
  t.notMatch(renderJunit({ ...missed, policy: undefined }), /run: policy/, 'without the policy, a skip fails nothing');

  const withFlaky: RunReport = { ...report, cases: [passed, flaky], leaks: [], interrupted: false, summary: summarise([passed, flaky]) };
  t.match(renderJunit(withFlaky), /<testsuites[^>]* failures="0"/, 'flaky passes without --strict');
  const strictXml = renderJunit({ ...withFlaky, strict: true });
  t.match(strictXml, /<failure [^>]*type="flaky"/, 'with --strict a flaky case is a failure');
  t.match(strictXml, /<testsuites[^>]* failures="1"/);
});
