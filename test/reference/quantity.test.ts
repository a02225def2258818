// Resource quantities: upstream resource.Quantity syntax, errors, values and serialized form.
import t from 'tap';
import {
  ERR_FORMAT_WRONG,
  ERR_NUMERIC,
  ERR_SUFFIX,
  normalizeQuantity,
  parseQuantity,
  parseQuantityJSON,
} from '../../reference/apiserver/quantity.js';

t.test('the format error quotes upstream\'s regular expression', async (t) => {
  t.equal(ERR_FORMAT_WRONG, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  t.equal(ERR_SUFFIX, "unable to parse quantity's suffix");
  t.equal(ERR_NUMERIC, 'unable to parse numeric part of quantity');
});

t.test('accepted forms and what is written back', async (t) => {
  // [input, serialized] — upstream keeps a client's text when its fast path finds it canonical in shape.
  const cases: Array<[string, string]> = [
    ['0', '0'],
    ['10', '10'],
    ['500m', '500m'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1025Mi', '1025Mi'],
    ['8Gi', '8Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['2e3', '2e3'],
    ['2e4', '20e3'],
    ['1E3', '1E3'],
    ['1.5', '1500m'],
    ['+1', '+1'],
    ['-1', '-1'],
    ['.5', '500m'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1000', '1k'],
    ['1k', '1k'],
    ['1M', '1M'],
    ['12Ki', '12Ki'],
    ['100n', '100n'],
    ['1u', '1u'],
    ['1.5n', '2n'], // rounded up to nanos
    ['0.1n', '1n'],
    ['1e-3', '1e-3'],
    ['1e-12', '1e-9'], // rounded up to nanos, still in exponent form
    ['3T', '3T'],
    ['1P', '1P'],
    ['1E', '1E'],
    ['1000E', '1e21'],
    ['1Ei', '1Ei'],
    ['8Ei', '9223372036854775807'], // binary quantities are capped at the int64 maximum
    ['-0', '0'],
    ['1.', '1.'],
    ['05', '05'],
    ['123456789012345678901', '123456789012345678901'],
    ['0.000000000000000000001', '1n'],
    ['100Ki', '100Ki'],
    ['0.1Ki', '102400m'],
  ];
  for (const [input, out] of cases) {
    const r = parseQuantity(input);
    t.ok(r.ok, `${input} parses`);
    if (r.ok) t.equal(r.quantity.toString(), out, `${input} is written back as ${out}`);
  }
});

t.test('canonical forms, as upstream prints a quantity it did not keep the text of', async (t) => {
  const canon = (s: string) => {
    const r = parseQuantity(s);
    if (!r.ok) throw new Error(r.error);
    return r.quantity.canonical();
  };
  t.equal(canon('+1'), '1');
  t.equal(canon('1E3'), '1e3');
  t.equal(canon('05'), '5');
  t.equal(canon('1500m'), '1500m');
  t.equal(canon('-1.5Gi'), '-1536Mi');
  t.equal(canon('1023'), '1023');
  t.equal(canon('2048Ki'), '2Mi');
  t.equal(canon('100Gi'), '100Gi');
});

t.test('rejected forms and their errors', async (t) => {
  const cases: Array<[string, string]> = [
    ['', ERR_FORMAT_WRONG],
    ['abc', ERR_FORMAT_WRONG],
    ['1.5.Gi', ERR_FORMAT_WRONG],
    ['1Gb', ERR_FORMAT_WRONG],
    ['1 Gi', ERR_FORMAT_WRONG],
    ['--1', ERR_SUFFIX],
    ['1e3x', ERR_FORMAT_WRONG],
    ['1i', ERR_SUFFIX],
    ['1e', ERR_SUFFIX],
    ['1ee', ERR_SUFFIX],
    ['1Kb', ERR_FORMAT_WRONG],
    ['1KiB', ERR_FORMAT_WRONG],
    ['1Mii', ERR_SUFFIX],
    ['Ei', ERR_NUMERIC],
  ];
  for (const [input, err] of cases) {
    const r = parseQuantity(input);
    t.notOk(r.ok, `${JSON.stringify(input)} is rejected`);
    if (!r.ok) t.equal(r.error, err, `${JSON.stringify(input)}: ${err}`);
  }
});

t.test('upstream oddities kept on purpose', async (t) => {
  // Upstream's scanner reads a bare suffix as zero of it.
  for (const s of ['k', 'Gi', '+k', '.']) {
    const r = parseQuantity(s);
    t.ok(r.ok && r.quantity.isZero(), `${s} parses as zero`);
  }
});

t.test('JSON values', async (t) => {
  t.equal(normalizeQuantity(10), '10', 'a JSON number is written back as a string');
  t.equal(normalizeQuantity(1.5), '1500m');
  t.equal(normalizeQuantity(0), '0');
  t.equal(normalizeQuantity(1e21), '1e+21', 'a number is read from its JavaScript rendering');
  t.equal(normalizeQuantity(null), '0', 'null is the zero quantity, as upstream decodes it');
  t.equal(normalizeQuantity(' 1Gi '), '1Gi', 'strings are trimmed, as upstream UnmarshalJSON does');
  for (const v of [true, {}, [], 'x']) {
    const r = parseQuantityJSON(v);
    t.notOk(r.ok, `${JSON.stringify(v)} is not a quantity`);
    if (!r.ok) t.equal(r.error, ERR_FORMAT_WRONG);
  }
});

t.test('sign and milli value', async (t) => {
  const q = (s: string) => {
    const r = parseQuantity(s);
    if (!r.ok) throw new Error(r.error);
    return r.quantity;
  };
  t.equal(q('-1').sign(), -1);
  t.equal(q('0').sign(), 0);
  t.equal(q('1n').sign(), 1);
  t.equal(q('1').milliValue(), 1000n);
  t.equal(q('1500m').milliValue(), 1500n);
  t.equal(q('1.0001').milliValue(), 1001n, 'rounded up');
  t.equal(q('1n').milliValue(), 1n);
  t.equal(q('1Ki').milliValue(), 1024000n);
  t.equal(q('2e3').milliValue(), 2000000n);
  t.equal(q('-1.5n').milliValue(), -1n, 'rounded away from zero');
});
