// Label and field selectors of list, watch and delete collection, parsed and matched as upstream
// k8s.io/apimachinery/pkg/labels and pkg/fields do, with the same error texts; plus the per-kind
// field label rules (upstream's field label conversion functions) and `parseListSelectors`, which
// turns a request's labelSelector, fieldSelector and shardSelector into one predicate over objects.
import { badRequest } from './errors.js';
import { aggregate, fieldErrors, isQualifiedName, isValidLabelValue, FieldPath, type FieldError } from './field-errors.js';
import { parseShardSelector, type ShardSelector } from './shard-selector.js';
import type { ApiObject, ResourceStrategy } from './strategy.js';
import type { FeatureGates } from '../features.js';

// ---------------------------------------------------------------- label selectors

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and without duplicates, as upstream's string set. */
  readonly values: readonly string[];
}

type Token =
  | 'error'
  | 'end'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const STRING_TO_TOKEN: Readonly<Record<string, Token>> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch);

interface Scanned {
  readonly tok: Token;
  readonly lit: string;
}

/** Upstream's lexer: identifiers run up to whitespace or a special symbol; operators are greedy. */
function lex(s: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      out.push({ tok: 'end', lit: '' });
      return out;
    }
    if (isSpecialSymbol(s[pos]!)) {
      let buffer = '';
      let last: Scanned | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos]!)) {
        buffer += s[pos];
        const tok = STRING_TO_TOKEN[buffer];
        if (tok) {
          last = { tok, lit: buffer };
        } else if (last) {
          break;
        }
        pos++;
      }
      out.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let buffer = '';
    while (pos < s.length && !isSpecialSymbol(s[pos]!) && !isWhitespace(s[pos]!)) buffer += s[pos++];
    out.push({ tok: STRING_TO_TOKEN[buffer] ?? 'identifier', lit: buffer });
  }
}

class LabelParser {
  private position = 0;
  constructor(private readonly items: Scanned[]) {}

  /** In the Values context `in` and `notin` are plain identifiers (`x in (in)`). */
  private lookahead(values: boolean): Scanned {
    const it = this.items[this.position]!;
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'identifier', lit: it.lit } : it;
  }

  private consume(values: boolean): Scanned {
    const it = this.lookahead(values);
    this.position++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case 'identifier':
        case '!': {
          let r: LabelRequirement;
          try {
            r = this.requirement();
          } catch (err) {
            throw new Error(`unable to parse requirement: ${(err as Error).message}`);
          }
          reqs.push(r);
          const next = this.consume(true);
          if (next.tok === 'end') return reqs;
          if (next.tok === ',') {
            const after = this.lookahead(true);
            if (after.tok !== 'identifier' && after.tok !== '!') throw new Error(`found '${after.lit}', expected: identifier after ','`);
            break;
          }
          throw new Error(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case 'end':
          return reqs;
        default:
          throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let { tok, lit } = this.consume(true);
    if (tok === '!') {
      operator = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'identifier') throw new Error(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isQualifiedName(key);
    // Upstream validates the key here with a nil field path, which prints as "<nil>".
    if (keyErrs.length) throw new Error(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const ahead = this.lookahead(true).tok;
    if (ahead === 'end' || ahead === ',') return newRequirement(key, operator ?? 'exists', []);
    if (operator === '!') return newRequirement(key, '!', []);
    const op = this.consume(false);
    let binary: LabelOperator;
    switch (op.tok) {
      case 'in':
        binary = 'in';
        break;
      case '=':
        binary = '=';
        break;
      case '==':
        binary = '==';
        break;
      case '>':
        binary = 'gt';
        break;
      case '<':
        binary = 'lt';
        break;
      case 'notin':
        binary = 'notin';
        break;
      case '!=':
        binary = '!=';
        break;
      default:
        throw new Error(`found '${op.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
    const values = binary === 'in' || binary === 'notin' ? this.values() : this.exactValue();
    return newRequirement(key, binary, [...new Set(values)].sort());
  }

  private values(): string[] {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    switch (tok) {
      case 'identifier':
      case ',': {
        const s = this.identifiers();
        if (this.consume(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
        return s;
      }
      case ')':
        this.consume(true);
        return [''];
      default:
        throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private identifiers(): string[] {
    const s: string[] = [];
    for (;;) {
      const { tok, lit } = this.consume(true);
      switch (tok) {
        case 'identifier': {
          s.push(lit);
          const next = this.lookahead(true);
          if (next.tok === ',') continue;
          if (next.tok === ')') return s;
          throw new Error(`found '${next.lit}', expected: ',' or ')'`);
        }
        case ',': {
          if (s.length === 0) s.push('');
          const next = this.lookahead(true).tok;
          if (next === ')') {
            s.push('');
            return s;
          }
          if (next === ',') {
            this.consume(true);
            s.push('');
          }
          break;
        }
        default:
          throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string[] {
    const ahead = this.lookahead(true).tok;
    if (ahead === 'end' || ahead === ',') return [''];
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return [lit];
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** Upstream labels.NewRequirement: validates the key and values. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(fieldErrors.invalid('key', key, keyErrs.join('; ')));
  const valuePath = FieldPath.root('values');
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
        errs.push(fieldErrors.invalid(valuePath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    });
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(fieldErrors.invalid(valuePath.index(i).key(key), v, valueErrs.join('; ')));
  });
  if (errs.length) throw new Error(aggregate(errs));
  return { key, operator, values };
}

/** Parses a label selector (`a=b,c!=d,e in (f,g),!h,i`); throws with upstream's message. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const reqs = new LabelParser(lex(selector)).parse();
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function matchesLabelRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels![r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value) || r.values.length !== 1) return false;
      const lv = BigInt(value);
      const rv = BigInt(r.values[0]!);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

export function matchesLabels(reqs: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  return reqs.every((r) => matchesLabelRequirement(r, labels));
}

// ---------------------------------------------------------------- field selectors

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

/** Terms split on unescaped commas (the backslash stays, for unescaping later). */
function splitTerms(selector: string): string[] {
  if (!selector) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the rune as a number (%v of a rune).
    else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Parses a field selector (`metadata.name=x,metadata.namespace!=y`); throws with upstream's message. */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const parts = splitTerms(selector).sort();
  const out: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    let found: FieldRequirement | undefined;
    for (let i = 0; i < part.length && !found; i++) {
      for (const op of TERM_OPERATORS) {
        if (part.startsWith(op, i)) {
          found = { field: part.slice(0, i), operator: op, value: unescapeValue(part.slice(i + op.length)) };
          break;
        }
      }
    }
    if (!found) throw new Error(`invalid selector: '${selector}'; can't understand '${part}'`);
    out.push(found);
  }
  return out;
}

/** The value of a selectable field of an object, as upstream's fields.Set holds it ("" when unset). */
export type FieldGetter = (obj: ApiObject) => string;

/**
 * A kind's field selectors beyond metadata (upstream: the field label conversion function of the
 * kind and its registry's ToSelectableFields). A kind with a table accepts metadata.name, and
 * metadata.namespace only when namespaced, plus the table's labels, and refuses anything else with
 * `field label not supported: <label>`. A kind without one accepts exactly metadata.name and
 * metadata.namespace (upstream DefaultMetaV1FieldSelectorConversion).
 */
export type FieldSelectorTable = Readonly<Record<string, FieldGetter>>;

const nameOf: FieldGetter = (o) => o.metadata?.name ?? '';
const namespaceOf: FieldGetter = (o) => o.metadata?.namespace ?? '';

/** Reads a dotted path as a selectable string: strings as they are, booleans and numbers printed. */
export function fieldAt(path: string, fallback = ''): FieldGetter {
  const parts = path.split('.');
  return (o) => {
    let v: unknown = o;
    for (const p of parts) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return fallback;
  };
}

type FieldSelectorKind = Pick<ResourceStrategy, 'namespaced'> & { readonly fieldSelectors?: FieldSelectorTable };

/** The getter of a field label for a kind, or a 400-worthy error naming the unsupported label. */
function getterFor(kind: FieldSelectorKind, label: string): FieldGetter {
  const table = kind.fieldSelectors;
  if (!table) {
    if (label === 'metadata.name') return nameOf;
    if (label === 'metadata.namespace') return namespaceOf;
    throw new Error(`${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
  if (label === 'metadata.name') return nameOf;
  if (label === 'metadata.namespace' && kind.namespaced) return namespaceOf;
  const getter = Object.prototype.hasOwnProperty.call(table, label) ? table[label] : undefined;
  if (!getter) throw new Error(`field label not supported: ${label}`);
  return getter;
}

export interface CompiledFieldRequirement extends FieldRequirement {
  readonly get: FieldGetter;
}

/** Parses a field selector and checks its labels against what the kind supports. */
export function compileFieldSelector(selector: string, kind: FieldSelectorKind): CompiledFieldRequirement[] {
  return parseFieldSelector(selector).map((r) => ({ ...r, get: getterFor(kind, r.field) }));
}

export function matchesFields(reqs: readonly CompiledFieldRequirement[], obj: ApiObject): boolean {
  return reqs.every((r) => (r.operator === '!=' ? r.get(obj) !== r.value : r.get(obj) === r.value));
}

// ---------------------------------------------------------------- all of a request's selectors

/**
 * A predicate over objects built from a request's selectors. Call it with an object; `empty` says
 * no selector restricts anything (lists may then report remainingItemCount); `shardInfo` is set
 * when a shardSelector was honoured (the list answers it in metadata.shardInfo).
 */
export interface ListPredicate {
  (obj: ApiObject): boolean;
  readonly empty: boolean;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly CompiledFieldRequirement[];
  readonly shard?: ShardSelector;
  readonly shardInfo?: { readonly selector: string };
}

/** What `parseListSelectors` needs of a resource. */
export type SelectorKind = FieldSelectorKind;

/**
 * The labelSelector, fieldSelector and (with the ShardedListAndWatch gate on; ignored otherwise, as
 * upstream) shardSelector of a list, watch or delete-collection request, as one predicate.
 * Malformed label or field selectors throw 400 BadRequest with upstream's message; a malformed
 * shard selector throws 422 Invalid (`ListOptions.meta.orch.io "" is invalid: shardSelector: ...`).
 */
export function parseListSelectors(query: URLSearchParams, kind: SelectorKind, gates?: FeatureGates): ListPredicate {
  const labelText = query.get('labelSelector') ?? '';
  const fieldText = query.get('fieldSelector') ?? '';
  let labels: LabelRequirement[];
  let fields: CompiledFieldRequirement[];
  try {
    labels = parseLabelSelector(labelText);
    fields = compileFieldSelector(fieldText, kind);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  const shardText = query.get('shardSelector') ?? '';
  const shard = shardText && gates?.enabled('ShardedListAndWatch') ? parseShardSelector(shardText) : undefined;
  const fn = (obj: ApiObject): boolean =>
    matchesLabels(labels, obj.metadata?.labels) && matchesFields(fields, obj) && (!shard || shard.matches(obj));
  return Object.assign(fn, {
    empty: labels.length === 0 && fields.length === 0 && !shard,
    labels,
    fields,
    ...(shard ? { shard, shardInfo: { selector: shardText } } : {}),
  });
}
