// The worst request bodies under the byte limit (3 MiB), for test/reference/body-bounds.test.ts and
// bench/body-bounds.ts: each is all structure (or all text), in JSON or YAML, wrapped in a
// StorageClass so that it gets as far into the server as its shape lets it; and the largest ones
// within the bounds of reference/apiserver/body-bounds.ts, which must still be served.
import { MAX_DEPTH, MAX_NODES, MAX_YAML_ALIASES, MAX_YAML_TOKENS } from '../../reference/apiserver/body-bounds.js';
import { MAX_BODY_BYTES } from '../../reference/apiserver/negotiation.js';

export const SC = '/apis/storage.orch.io/v1/storageclasses';
export const PODS = '/api/v1/namespaces/default/pods';

export interface HostileBody {
  readonly label: string;
  /** The collection it is created in, and the name of the object it is applied to. */
  readonly collection: string;
  readonly name: string;
  readonly format: 'json' | 'yaml';
  readonly text: string;
  /** What the refusal names; none for a body within the bounds. */
  readonly refusal?: RegExp;
}

const DEPTH = /exceeded max depth: more than \d+ nested levels/;
const VALUES = /too many values: more than \d+ collections and entries/;
const YAML_WORK = /too much YAML: more than \d+ tokens/;
const ALIASES = /excessive aliasing/;
/** Any of the above. */
export const BOUNDS = /exceeded max depth|too many values|too much YAML|excessive aliasing/;

const FULL = MAX_BODY_BYTES - 1024;

/** `unit` repeated between `head` and `tail` to just under `size` bytes (ASCII only). */
const fill = (head: string, unit: string, tail = '', size = FULL): string =>
  head + unit.repeat(Math.floor((size - head.length - tail.length) / unit.length)) + tail;

/** `open` and `close` nested `levels` deep around `inner`. */
const nest = (open: string, inner: string, close: string, levels: number): string => open.repeat(levels) + inner + close.repeat(levels);

/** `open` and `close` nested as deep as fits after `head`, then `tail`. */
const nestFull = (head: string, open: string, inner: string, close: string, tail: string): string =>
  head + nest(open, inner, close, Math.floor((FULL - head.length - inner.length - tail.length) / (open.length + close.length))) + tail;

/** The bodies, naming a StorageClass `name` (which should exist) and Pods `<name>-pod-<n>` (which need not). */
export function hostileBodies(name: string): HostileBody[] {
  const json = `{"apiVersion":"storage.orch.io/v1","kind":"StorageClass","metadata":{"name":"${name}"},"provisioner":"example.orch.io/fast",`;
  const yaml = `apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: ${name}\nprovisioner: example.orch.io/fast\n`;
  const container = (i: number) => ({ name: `c${i}`, image: 'registry.orch.io/app:1.0' });
  const pod = (n: number, containers: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-pod-${n}` }, spec: { containers: Array.from({ length: containers }, (_, i) => container(i)) } });
  const podYaml = (n: number, containers: number) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}-pod-${n}\nspec:\n  containers:\n` + Array.from({ length: containers }, (_, i) => `  - name: c${i}\n    image: registry.orch.io/app:1.0\n`).join('');
  const bodies: Array<Omit<HostileBody, 'collection' | 'name'>> = [
    { label: 'JSON nested objects', format: 'json', text: nestFull(`${json}"parameters":`, '{"a":', '1', '}', '}'), refusal: DEPTH },
    { label: 'JSON nested arrays', format: 'json', text: nestFull(`${json}"x":`, '[', '', ']', '}'), refusal: DEPTH },
    { label: 'JSON flat array of {}', format: 'json', text: fill(`${json}"x":[`, '{},', '{}]}'), refusal: VALUES },
    { label: 'JSON many keys', format: 'json', text: fill(`${json}"parameters":{`, '"k":"",', '"k":""}}'), refusal: VALUES },
    { label: 'JSON long string', format: 'json', text: fill(`${json}"x":"`, 'x', '"}') },
    { label: 'YAML flow list of {}', format: 'yaml', text: fill('[', '{}, ', '{}]'), refusal: VALUES },
    { label: 'YAML flow list of {} in a mapping', format: 'yaml', text: fill(`${yaml}x: [`, '{}, ', '{}]'), refusal: YAML_WORK },
    { label: 'YAML block sequence', format: 'yaml', text: fill(`${yaml}x:\n`, '- a\n'), refusal: YAML_WORK },
    // A third of the byte limit: under the limit on text, so the lexer counts the tokens.
    { label: 'YAML block sequence, 1 MiB', format: 'yaml', text: fill(`${yaml}x:\n`, '- a\n', '', FULL / 3), refusal: YAML_WORK },
    { label: 'YAML flow list of {} in a mapping, 1 MiB', format: 'yaml', text: fill(`${yaml}x: [`, '{}, ', '{}]', FULL / 3), refusal: YAML_WORK },
    { label: 'YAML many keys', format: 'yaml', text: fill(`${yaml}parameters:\n`, '  k: v\n'), refusal: YAML_WORK },
    { label: 'YAML many anchors', format: 'yaml', text: fill(`${yaml}x:\n`, '- &a v\n'), refusal: YAML_WORK },
    { label: 'YAML blank lines', format: 'yaml', text: fill(`${yaml}x: a`, '\n'), refusal: YAML_WORK },
    { label: 'YAML comments', format: 'yaml', text: fill(`${yaml}x: a\n`, '#\n'), refusal: YAML_WORK },
    { label: 'YAML plain scalar', format: 'yaml', text: fill(`${yaml}x: `, 'x') , refusal: YAML_WORK },
    { label: 'YAML double-quoted scalar', format: 'yaml', text: fill(`${yaml}x: "`, 'x', '"'), refusal: YAML_WORK },
    // The two below used to abort the process, in this order (the yaml library's stack ran out).
    // (Deeper ones, up to the byte limit, are refused for their size before their depth is seen.)
    { label: 'YAML nested flow', format: 'yaml', text: `${yaml}x: ${nest('[', '', ']', 10_000)}\n`, refusal: DEPTH },
    { label: 'YAML nested block sequences', format: 'yaml', text: `${yaml}x:\n${'- '.repeat(10_000)}a\n`, refusal: DEPTH },
    { label: 'YAML nested block mappings', format: 'yaml', text: `${yaml}x:\n` + Array.from({ length: 300 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n') + ' 1\n', refusal: DEPTH },
    {
      label: 'YAML billion laughs',
      format: 'yaml',
      text: `${yaml}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n` +
        'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]\n`).join(''),
      refusal: ALIASES,
    },
    { label: 'YAML one anchor, many aliases', format: 'yaml', text: `${yaml}a: &a v\nx:\n` + '- *a\n'.repeat(MAX_YAML_ALIASES + 1), refusal: ALIASES },
    {
      label: 'YAML large anchor aliased',
      format: 'yaml',
      text: `${yaml}a: &a [${Array(MAX_NODES / 10).fill('1').join(',')}]\nx: [${Array(20).fill('*a').join(',')}]\n`,
      refusal: ALIASES,
    },
    // The largest within the bounds: served (or refused for what they are, never for their shape).
    { label: 'JSON at the depth limit', format: 'json', text: `${json}"x":${nest('[', '', ']', MAX_DEPTH - 1)}}` },
    { label: 'JSON at the value limit', format: 'json', text: `${json}"x":[${'{},'.repeat(MAX_NODES / 2 - 100)}{}]}` },
    { label: 'YAML at the depth limit', format: 'yaml', text: `${yaml}x: ${nest('[', '', ']', MAX_DEPTH - 1)}\n` },
    { label: 'YAML at the token limit', format: 'yaml', text: `${yaml}x:\n${'- a\n'.repeat(Math.floor(MAX_YAML_TOKENS / 5.2))}` },
  ];
  // Pods as large as the bounds let them be, in the costliest shape past parsing (keyed lists).
  const pods: HostileBody[] = [
    { label: 'JSON pod at the value limit', collection: PODS, name: `${name}-pod-1`, format: 'json', text: JSON.stringify(pod(1, Math.floor(MAX_NODES / 3) - 20)) },
    { label: 'YAML pod at the token limit', collection: PODS, name: `${name}-pod-2`, format: 'yaml', text: podYaml(2, Math.floor(MAX_YAML_TOKENS / 19) - 10) },
  ];
  return [...bodies.map((b) => ({ ...b, collection: SC, name })), ...pods];
}
