// Resource quantities, as upstream k8s.io/apimachinery/pkg/api/resource.Quantity parses and prints
// them: `10`, `500m`, `1.5`, `1Gi`, `2e3`... The value is kept exact (a bigint times a power of ten),
// rounded up to nanos like upstream, and printed in upstream's canonical form — or, where upstream
// keeps the text a client sent (a "fast path" quantity already in canonical shape, such as `+1`),
// as that text.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** The pattern upstream's format error quotes (its scanner is stricter in places than the regex). */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_PATTERN}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const DECIMAL_SUFFIXES = new Map<string, number>([
  ['n', -9], ['u', -6], ['m', -3], ['', 0], ['k', 3], ['M', 6], ['G', 9], ['T', 12], ['P', 15], ['E', 18],
]);
const BINARY_SUFFIXES = new Map<string, number>([['Ki', 10], ['Mi', 20], ['Gi', 30], ['Ti', 40], ['Pi', 50], ['Ei', 60]]);
const DECIMAL_BY_EXPONENT = new Map([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map([...BINARY_SUFFIXES].map(([s, e]) => [e, s]));

const NANO = -9;
/** Upstream maxInt64Factors: decimal digits that surely fit an int64. */
const MAX_INT64_FACTORS = 18;
const MAX_INT64 = (1n << 63n) - 1n;
const SUFFIX_CHARS = 'eEinumkKMGTP';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);

export class Quantity {
  /**
   * value = unscaled × 10^scale. `text` is what upstream would print instead of the canonical form
   * (it keeps a client's string when that string is already canonical in shape).
   */
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
    readonly format: QuantityFormat,
    private readonly text?: string,
  ) {}

  sign(): -1 | 0 | 1 {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /** The value in thousandths, rounded away from zero (upstream MilliValue, without its int64 wrap). */
  milliValue(): bigint {
    const s = this.scale + 3;
    if (s >= 0) return this.unscaled * pow10(s);
    const d = pow10(-s);
    const q = this.unscaled / d;
    if (this.unscaled % d === 0n) return q;
    return this.unscaled < 0n ? q - 1n : q + 1n;
  }

  /** What upstream serializes: the kept text, or the canonical form. */
  toString(): string {
    return this.text ?? this.canonical();
  }

  /** Upstream CanonicalizeBytes. */
  canonical(): string {
    if (this.unscaled === 0n) return '0';
    let format = this.format;
    let integer: bigint | undefined;
    if (format === 'BinarySI') {
      // Only scale <= 0 reaches here: binary quantities carry no positive decimal exponent.
      const unit = pow10(-this.scale);
      if (abs(this.unscaled) < 1024n * unit) format = 'DecimalSI';
      else if (this.unscaled % unit !== 0n) format = 'DecimalSI'; // not exact at scale 0
      else integer = this.unscaled / unit;
    }
    if (format === 'BinarySI' && integer !== undefined) {
      let exponent = 0;
      while (integer % 1024n === 0n && exponent < 6) {
        integer /= 1024n;
        exponent++;
      }
      return `${integer}${BINARY_BY_EXPONENT.get(exponent * 10) ?? ''}`;
    }
    // Move factors of ten into the exponent, then make the exponent a multiple of three.
    let mantissa = this.unscaled;
    let exponent = this.scale;
    while (mantissa % 10n === 0n) {
      mantissa /= 10n;
      exponent++;
    }
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent--;
    }
    if (format === 'DecimalSI') {
      const suffix = DECIMAL_BY_EXPONENT.get(exponent);
      // DecimalSI has suffixes up to E (10^18); beyond, upstream falls back to an exponent.
      if (suffix !== undefined) return `${mantissa}${suffix}`;
    }
    return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  }
}

export type ParseResult = { readonly ok: true; readonly quantity: Quantity } | { readonly ok: false; readonly error: string };

const bad = (error: string): ParseResult => ({ ok: false, error });
const good = (quantity: Quantity): ParseResult => ({ ok: true, quantity });

interface Scanned {
  positive: boolean;
  /** The numeric text (sign, digits, dot) upstream hands to inf.Dec on its slow path. */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** Upstream parseQuantityString, character for character. */
function scan(str: string): Scanned | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') {
      pos++;
    }
  }
  // Leading zeros.
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[i] !== '0') break;
    pos++;
  }
  let num = '';
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
    if (!isDigit(str[i])) {
      num = str.slice(pos, i);
      pos = i;
      break;
    }
  }
  if (num.length === 0) num = '0';
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    for (let i = pos; ; i++) {
      if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: '' };
      if (!isDigit(str[i])) {
        denom = str.slice(pos, i);
        pos = i;
        break;
      }
    }
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!SUFFIX_CHARS.includes(str[i]!)) {
      pos = i;
      break;
    }
  }
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!isDigit(str[i])) break;
  }
  return ERR_FORMAT_WRONG;
}

/** Upstream suffixHandler.interpret: base, exponent and format of a suffix. */
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'E' || suffix[0] === 'e')) {
    // strconv.ParseInt(s, 10, 64), then int32(...) as upstream does (which wraps).
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (parsed > MAX_INT64 || parsed < -MAX_INT64 - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** Upstream ParseQuantity. */
export function parseQuantity(str: string): ParseResult {
  if (str.length === 0) return bad(ERR_FORMAT_WRONG);
  if (str === '0') return good(new Quantity(0n, 0, 'DecimalSI', '0'));
  const scanned = scan(str);
  if (typeof scanned === 'string') return bad(scanned);
  const { positive, value, num, denom, suffix } = scanned;
  const suf = interpret(suffix);
  if (!suf) return bad(ERR_SUFFIX);
  const { base, exponent } = suf;
  let format = suf.format;

  // The fast path (int64 arithmetic) decides only whether the client's text is kept.
  let precision: number;
  let scale: number;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    scale = 0;
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      const product = v * mantissa;
      if (product <= MAX_INT64) {
        const result = positive ? product : -product;
        const keep =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (v & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return good(new Quantity(result, scale, format, keep ? str : undefined));
      }
    }
  }

  // The slow path (arbitrary precision): exact value, rounded up to nanos, binary capped at int64.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[2]! + (m[3] ?? '')).length === 0) return bad(ERR_NUMERIC);
  const fraction = m[3] ?? '';
  let digits = (m[2]! + fraction).replace(/^0+(?=.)/, '');
  let exp = -fraction.length;
  let amount: bigint;
  if (base === 10) {
    exp += exponent;
    if (exp < NANO) {
      // Round away from zero to nanos, on the digits (no huge powers of ten).
      const drop = NANO - exp;
      const kept = drop >= digits.length ? '' : digits.slice(0, digits.length - drop);
      const dropped = drop >= digits.length ? digits : digits.slice(digits.length - drop);
      digits = kept || '0';
      amount = BigInt(digits) + (/[1-9]/.test(dropped) ? 1n : 0n);
      exp = NANO;
    } else {
      amount = BigInt(digits);
    }
  } else {
    amount = BigInt(digits) << BigInt(exponent);
    if (exp < NANO) {
      const d = pow10(NANO - exp);
      amount = amount / d + (amount % d === 0n ? 0n : 1n);
      exp = NANO;
    }
  }
  if (format === 'BinarySI') {
    if (amount > MAX_INT64 * pow10(-exp)) {
      amount = MAX_INT64;
      exp = 0;
    }
    if (amount > 0n && amount < pow10(-exp)) format = 'DecimalSI';
  }
  const negative = m[1] === '-';
  return good(new Quantity(negative ? -amount : amount, exp, format));
}

/**
 * A quantity as it arrives in JSON: a string (trimmed, as upstream's UnmarshalJSON does) or a
 * number (upstream parses the number's own text; here its shortest JavaScript rendering).
 */
export function parseQuantityJSON(v: unknown): ParseResult {
  if (typeof v === 'string') return parseQuantity(v.trim());
  if (typeof v === 'number' && Number.isFinite(v)) return parseQuantity(String(v));
  // JSON null decodes to the zero quantity.
  if (v === null) return good(new Quantity(0n, 0, 'DecimalSI'));
  // Anything else is not quantity text at all.
  return bad(ERR_FORMAT_WRONG);
}

/** Parses and prints back in upstream's serialized form; undefined when it does not parse. */
export function normalizeQuantity(v: unknown): string | undefined {
  const r = parseQuantityJSON(v);
  return r.ok ? r.quantity.toString() : undefined;
}
