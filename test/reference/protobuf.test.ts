// Protobuf (application/vnd.kubernetes.protobuf) for Namespace, ResourceQuota, Node and Pod: bodies
// in and answers out, lists, watches, Status errors, DeleteOptions, malformed bodies and the
// negotiation rules for kinds without protobuf. Bytes are checked with a wire reader and writer
// written here, independent of the codec, against upstream's field numbers.
import t from 'tap';
import fc from 'fast-check';
import { decodeObject, decodeWatchFrames, encodeObject } from '../../reference/apiserver/protobuf/codec.js';
import { protoFilesLoaded } from '../../reference/apiserver/protobuf/messages.js';
import { nodeStrategy } from '../../reference/resources/node.js';
import { podStrategy } from '../../reference/resources/pod.js';
import { bindingStrategy } from '../../reference/resources/pod-subresources.js';
import { resourceQuotaStrategy } from '../../reference/resources/resourcequota.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { propertyRuns } from '../helpers/property.js';
import { call, eventually, NS, SC, sc, startTestServer } from './helpers.js';

const PB = 'application/vnd.kubernetes.protobuf';
const ACCEPT = `${PB},application/json`;
const PODS = '/api/v1/namespaces/default/pods';
const NODES = '/api/v1/nodes';
const QUOTAS = '/api/v1/namespaces/default/resourcequotas';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

// ---- An independent wire writer and reader (varints and length-delimited fields only) ----

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

/** One field: a string or bytes (length-delimited) or a number (varint). */
function fld(id: number, v: string | Buffer | number): Buffer {
  if (typeof v === 'number') return Buffer.from([...varint(id * 8), ...varint(v)]);
  const payload = typeof v === 'string' ? Buffer.from(v) : v;
  return Buffer.concat([Buffer.from([...varint(id * 8 + 2), ...varint(payload.length)]), payload]);
}

const cat = (...parts: Buffer[]): Buffer => Buffer.concat(parts);

/** An enveloped body written by hand: magic, then Unknown {typeMeta {apiVersion, kind}, raw, "", ""}. */
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  cat(MAGIC, fld(1, cat(fld(1, apiVersion), fld(2, kind))), fld(2, raw), fld(3, ''), fld(4, ''));

type Fields = Map<number, Array<number | Buffer>>;

function read(buf: Buffer): Fields {
  const out: Fields = new Map();
  let i = 0;
  const next = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * mul;
      mul *= 0x80;
      if (!(b & 0x80)) return v;
    }
  };
  while (i < buf.length) {
    const tag = next();
    const id = Math.floor(tag / 8);
    let v: number | Buffer;
    if (tag % 8 === 0) v = next();
    else if (tag % 8 === 2) {
      const len = next();
      v = buf.subarray(i, i + len);
      i += len;
    } else throw new Error(`wire type ${tag % 8} not expected here`);
    out.set(id, [...(out.get(id) ?? []), v]);
  }
  return out;
}

const sub = (f: Fields, id: number, at = 0): Fields => read(f.get(id)![at] as Buffer);
const str = (f: Fields, id: number, at = 0): string => (f.get(id)![at] as Buffer).toString();
/** Map entries of field `id`: key (1) -> value (2) as text. */
const entries = (f: Fields, id: number): Record<string, string> =>
  Object.fromEntries((f.get(id) ?? []).map((e) => { const kv = read(e as Buffer); return [str(kv, 1), str(kv, 2)]; }));

/** The envelope of an answer: its typeMeta and the object's fields. */
function unwrap(body: Buffer): { apiVersion: string; kind: string; object: Fields } {
  if (!body.subarray(0, 4).equals(MAGIC)) throw new Error(`no protobuf magic: ${body.subarray(0, 16).toString('hex')}`);
  const unk = read(body.subarray(4));
  const tm = sub(unk, 1);
  return { apiVersion: str(tm, 1), kind: str(tm, 2), object: read(unk.get(2)![0] as Buffer) };
}

// ---- HTTP ----

interface PbReply {
  status: number;
  type: string;
  bytes: Buffer;
}

async function pb(base: string, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<PbReply> {
  const res = await fetch(base + path, {
    method,
    headers: { accept: ACCEPT, ...(body ? { 'content-type': PB } : {}), ...headers },
    body: body as BodyInit | undefined,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A failed check's explanation: the Status message of a protobuf answer, else the text. */
function why(r: PbReply): string {
  try {
    const e = unwrap(r.bytes);
    return e.kind === 'Status' ? str(e.object, 3) : e.kind;
  } catch {
    return r.bytes.toString().slice(0, 300);
  }
}

/** An answer decoded with the codec, expecting `kind`. */
const decoded = (r: PbReply, kind: string): any => decodeObject(r.bytes, { apiVersion: 'v1', kind });

async function server(t: Parameters<typeof startTestServer>[0]) {
  return startTestServer(t, { strategies: [podStrategy, nodeStrategy, resourceQuotaStrategy, storageClassStrategy, bindingStrategy] });
}

/** What a JSON GET answers, without the list items' type meta (protobuf items have none). */
async function jsonGet(base: string, path: string): Promise<any> {
  const r = await call(base, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  if (Array.isArray(r.body.items)) for (const i of r.body.items) { delete i.kind; delete i.apiVersion; }
  return r.body;
}

const richPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web', 'orch.io/part': 'x' }, annotations: { note: '' } },
  spec: {
    containers: [{
      name: 'main',
      image: 'registry.orch.io/app:1.0',
      command: ['/bin/app', '--flag'],
      ports: [{ containerPort: 8080, name: 'http' }],
      env: [{ name: 'A', value: '1' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      resources: { limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '250m' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
      readinessProbe: { tcpSocket: { port: 'http' } },
      volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
      securityContext: { privileged: false, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
    }],
    volumes: [{ name: 'cfg', configMap: { name: 'app-config', defaultMode: 420 } }, { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
    terminationGracePeriodSeconds: 0,
    automountServiceAccountToken: false,
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
  },
});

t.test('requests in JSON load nothing of protobuf', async (t) => {
  const srv = await server(t);
  t.equal((await call(srv.url, 'POST', PODS, richPod('plain'))).status, 201);
  t.equal((await call(srv.url, 'GET', `${PODS}/plain`)).status, 200);
  t.equal((await call(srv.url, 'GET', PODS, undefined, { accept: 'application/json' })).status, 200);
  t.equal((await call(srv.url, 'GET', `${PODS}/none`)).status, 404);
  t.notOk(protoFilesLoaded(), 'the .proto files are read on the first protobuf body only');
  t.equal((await pb(srv.url, 'GET', `${PODS}/plain`)).status, 200);
  t.ok(protoFilesLoaded(), 'and then they are');
});

t.test('a Namespace written by hand in upstream wire format is created, and the answer reads back by field number', async (t) => {
  const srv = await server(t);
  // ObjectMeta: name (1), labels (11) as map entries; NamespaceSpec (2) empty, as Go writes it.
  const meta = cat(fld(1, 'pb-hand'), fld(11, cat(fld(1, 'team'), fld(2, 'a'))));
  const body = envelope('v1', 'Namespace', cat(fld(1, meta), fld(2, Buffer.alloc(0)), fld(3, Buffer.alloc(0))));
  const r = await pb(srv.url, 'POST', NS, body);
  t.equal(r.status, 201, why(r));
  t.equal(r.type, PB);
  const { apiVersion, kind, object } = unwrap(r.bytes);
  t.same([apiVersion, kind], ['v1', 'Namespace'], 'envelope typeMeta: apiVersion (1), kind (2)');
  const m = sub(object, 1);
  t.equal(str(m, 1), 'pb-hand', 'metadata.name is field 1 of ObjectMeta');
  t.match(str(m, 5), /^[0-9a-f-]{36}$/, 'metadata.uid is field 5');
  t.match(str(m, 6), /^\d+$/, 'metadata.resourceVersion is field 6');
  const created = sub(m, 8);
  t.ok(Math.abs((created.get(1)![0] as number) - Date.now() / 1000) < 60, 'creationTimestamp (8) is a Time: seconds (1)');
  t.same(entries(m, 11), { team: 'a', 'orch.io/metadata.name': 'pb-hand' }, 'labels (11), keys sorted as Go writes them');
  t.same(str(sub(object, 2), 1), 'kubernetes', 'spec.finalizers is NamespaceSpec field 1');
  t.equal(str(sub(object, 3), 1), 'Active', 'status.phase is NamespaceStatus field 1');
  // Labels are written in key order.
  const keys = (m.get(11) ?? []).map((e) => str(read(e as Buffer), 1));
  t.same(keys, [...keys].sort());
  // The JSON view of the same object agrees.
  const json = await jsonGet(srv.url, `${NS}/pb-hand`);
  t.same(decoded(await pb(srv.url, 'GET', `${NS}/pb-hand`), 'Namespace'), json);
});

t.test('Pod, Node and ResourceQuota: create, get, list and update in protobuf agree with JSON', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  const cases = [
    { path: PODS, kind: 'Pod', obj: richPod('rich') },
    {
      path: NODES,
      kind: 'Node',
      obj: {
        apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'orch.io/hostname': 'n1' } },
        spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'], taints: [{ key: 'gpu', effect: 'NoSchedule', timeAdded: '2026-01-02T03:04:05Z' }] },
        status: {
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-02T03:04:05Z', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'Ready', message: 'ok' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
          daemonEndpoints: { agentEndpoint: { Port: 10250 } },
          nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6', osImage: 'linux', containerRuntimeVersion: 'cri://1', agentVersion: 'v1.37.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
        },
      },
    },
    {
      path: QUOTAS,
      kind: 'ResourceQuota',
      obj: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '3', 'requests.cpu': '2' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } } },
    },
  ];
  for (const c of cases) {
    const name = (c.obj.metadata as { name: string }).name;
    const created = await pb(u, 'POST', c.path, encodeObject(c.obj));
    t.equal(created.status, 201, `${c.kind}: created (${why(created)})`);
    t.equal(created.type, PB, `${c.kind}: answered in protobuf`);
    const item = `${c.path}/${name}`;
    const json = await jsonGet(u, item);
    t.same(decoded(created, c.kind), json, `${c.kind}: the create's answer is the stored object`);
    t.same(decoded(await pb(u, 'GET', item), c.kind), json, `${c.kind}: GET in protobuf is GET in JSON`);
    const list = await pb(u, 'GET', c.path);
    t.equal(list.status, 200);
    t.equal(unwrap(list.bytes).kind, `${c.kind}List`);
    t.same(decoded(list, `${c.kind}List`), await jsonGet(u, c.path), `${c.kind}: the list agrees`);
    // Update: the decoded object, relabelled, sent back in protobuf.
    const changed = { ...json, metadata: { ...json.metadata, labels: { ...json.metadata.labels, changed: 'yes' } } };
    const updated = await pb(u, 'PUT', item, encodeObject(changed));
    t.equal(updated.status, 200, `${c.kind}: updated (${why(updated)})`);
    t.equal(decoded(updated, c.kind).metadata.labels.changed, 'yes');
    t.same(decoded(updated, c.kind), await jsonGet(u, item), `${c.kind}: the update's answer is the stored object`);
  }
  // Zero values that mean something survive: a pointer (terminationGracePeriodSeconds: 0,
  // automountServiceAccountToken: false) and a required field (containerPort) keep them.
  const pod = await jsonGet(u, `${PODS}/rich`);
  t.equal(pod.spec.terminationGracePeriodSeconds, 0);
  t.equal(pod.spec.automountServiceAccountToken, false);
  t.equal(pod.spec.containers[0].securityContext.privileged, false);
  t.equal(pod.spec.tolerations[0].tolerationSeconds, 0);
  t.equal(pod.spec.containers[0].readinessProbe.tcpSocket.port, 'http', 'an IntOrString name');
  t.equal(pod.spec.containers[0].livenessProbe.httpGet.port, 8080, 'an IntOrString number');
  t.same(pod.spec.volumes[0], { name: 'cfg', configMap: { name: 'app-config', defaultMode: 420 } }, 'an embedded struct flattened');
  // The status subresource in protobuf.
  const node = await jsonGet(u, `${NODES}/n1`);
  node.status.conditions[0].message = 'still ok';
  const st = await pb(u, 'PUT', `${NODES}/n1/status`, encodeObject(node));
  t.equal(st.status, 200, why(st));
  t.equal(decoded(st, 'Node').status.conditions[0].message, 'still ok');
});

t.test('what a Go client writes for zero values reads as the JSON a JSON client sends', async (t) => {
  const srv = await server(t);
  // Go writes every non-pointer field, zero or not: empty strings, zero numbers, false, empty
  // structs and an empty Time. Written here for a pod as client-go would.
  const time0 = Buffer.alloc(0);
  const meta = cat(fld(1, 'zeros'), fld(2, ''), fld(3, ''), fld(4, ''), fld(5, ''), fld(6, ''), fld(7, 0), fld(8, time0));
  const container = cat(
    fld(1, 'main'), fld(2, 'app:1'), fld(5, ''), fld(6, cat(fld(1, ''), fld(2, 0), fld(3, 80), fld(4, ''), fld(5, ''))),
    fld(8, Buffer.alloc(0)), fld(13, ''), fld(14, ''), fld(16, 0), fld(17, 0), fld(18, 0), fld(20, ''),
  );
  const spec = cat(fld(2, container), fld(3, ''), fld(6, ''), fld(8, ''), fld(9, ''), fld(10, ''), fld(11, 0), fld(12, 0), fld(13, 0), fld(16, ''), fld(17, ''), fld(19, ''), fld(24, ''));
  const r = await pb(srv.url, 'POST', PODS, envelope('v1', 'Pod', cat(fld(1, meta), fld(2, spec), fld(3, Buffer.alloc(0)))));
  t.equal(r.status, 201, why(r));
  const pod = decoded(r, 'Pod') as any;
  const c = pod.spec.containers[0];
  // Defaults applied as for a JSON body without those fields.
  t.equal(pod.spec.restartPolicy, 'Always');
  t.equal(pod.spec.dnsPolicy, 'ClusterFirst');
  t.equal(c.imagePullPolicy, 'IfNotPresent');
  t.equal(c.terminationMessagePath, '/dev/termination-log');
  t.same(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  t.notOk('stdin' in c, 'false of an omitempty field is left out');
  t.notOk('generateName' in pod.metadata);
  t.ok(pod.metadata.creationTimestamp, 'the server set the creation time');
});

t.test('Status answers, malformed bodies, fieldValidation and DeleteOptions', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  const status = (r: PbReply) => {
    t.equal(r.type, PB, 'a Status in protobuf');
    const env = unwrap(r.bytes);
    t.same([env.apiVersion, env.kind], ['v1', 'Status']);
    // Status: status (2), message (3), reason (4), code (6).
    t.equal(str(env.object, 2), 'Failure');
    t.equal(env.object.get(6)![0], r.status, 'code (6)');
    return { ...decodeObject(r.bytes, { apiVersion: 'v1', kind: 'Status' }), reason: str(env.object, 4) } as any;
  };
  const missing = status(await pb(u, 'GET', `${PODS}/nope`));
  t.equal(missing.reason, 'NotFound');
  t.equal(missing.message, 'pods "nope" not found');
  t.same(missing.details, { name: 'nope', kind: 'pods' });
  // A failure before the answer's format was chosen (the options are checked first).
  const badOption = status(await pb(u, 'POST', `${PODS}?fieldValidation=Bogus`, encodeObject(richPod('x'))));
  t.equal(badOption.reason, (await call(u, 'POST', `${PODS}?fieldValidation=Bogus`, richPod('x'))).body.reason, 'as in JSON');
  t.match(badOption.message, /fieldValidation/);
  // Invalid: causes travel too.
  const invalid = status(await pb(u, 'POST', PODS, encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [{ name: 'c' }] } })));
  t.equal(invalid.reason, 'Invalid');
  t.ok(invalid.details.causes.some((c: any) => c.field === 'spec.containers[0].image'), JSON.stringify(invalid.details));

  const malformed: Array<[string, Buffer, RegExp]> = [
    ['an empty body', Buffer.alloc(0), /^the object provided is unrecognized \(must be of type Pod\): empty data \(<empty>\)$/],
    ['JSON sent as protobuf', Buffer.from('{"kind":"Pod"}'), /^the object provided is unrecognized \(must be of type Pod\): provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\] \(\{"kind":"Pod"\}\)$/],
    ['the magic alone', MAGIC, /: empty body \(6b387300\)$/],
    ['a truncated envelope', cat(MAGIC, Buffer.from([0x0a, 0x10, 0x0a])), /: unexpected EOF \(6b3873000a100a\)$/],
    ['a wrong wire type', cat(MAGIC, Buffer.from([0x0b])), /: proto: wrong wireType = 3 for field TypeMeta/],
    ['a truncated object', envelope('v1', 'Pod', Buffer.from([0x0a, 0x05, 0x0a, 0x01])), /^Pod in version "v1" cannot be handled as a Pod: unexpected EOF$/],
    ['an illegal tag', envelope('v1', 'Pod', Buffer.from([0x00, 0x01])), /^Pod in version "v1" cannot be handled as a Pod: proto: Pod: illegal tag 0 \(wire type 0\)$/],
    ['an illegal wire type', envelope('v1', 'Pod', Buffer.from([0x7f])), /^Pod in version "v1" cannot be handled as a Pod: proto: illegal wireType 7$/],
    ['another kind for the endpoint', envelope('v1', 'Namespace', fld(1, fld(1, 'n'))), /^the kind in the data \(Namespace\) does not match the expected kind \(Pod\)$/],
    ['an unknown kind', envelope('v1', 'Frobnicator', Buffer.alloc(0)), /^the kind in the data \(Frobnicator\) does not match the expected kind \(Pod\)$/],
    ['another version', envelope('v2', 'Pod', Buffer.alloc(0)), /^the API version in the data \(v2\) does not match the expected API version \(v1\)$/],
    // The bound JSON and YAML bodies have (body-bounds.ts): 3,000 empty containers are 6,000 values.
    ['too many values', envelope('v1', 'Pod', fld(2, Buffer.concat(Array.from({ length: 3000 }, () => fld(2, Buffer.alloc(0)))))), /^Pod in version "v1" cannot be handled as a Pod: too many values: more than 5000 collections and entries$/],
  ];
  for (const [what, body, message] of malformed) {
    const r = await pb(u, 'POST', PODS, body);
    t.equal(r.status, 400, what);
    const s = status(r);
    t.equal(s.reason, 'BadRequest', what);
    t.match(s.message, message, what);
    // And in JSON to a JSON client.
    const j = await call(u, 'POST', PODS, body, { 'content-type': PB });
    t.equal(j.status, 400, `${what} (JSON answer)`);
    t.equal(j.body.kind, 'Status');
  }

  // An envelope without kind or apiVersion takes the endpoint's, as upstream.
  const podRaw = cat(fld(1, fld(1, 'bare')), fld(2, fld(2, cat(fld(1, 'main'), fld(2, 'app:1')))));
  const bare = await pb(u, 'POST', PODS, cat(MAGIC, fld(1, Buffer.alloc(0)), fld(2, podRaw)));
  t.equal(bare.status, 201, why(bare));
  t.same(unwrap(bare.bytes).kind, 'Pod');

  // Unknown fields (a field number Pod does not have) are skipped, even under Strict: upstream's
  // strict decoding does not cover protobuf.
  const extra = Buffer.concat([encodeObject(richPod('extra'))!]);
  const unk = read(extra.subarray(4));
  const raw = cat(unk.get(2)![0] as Buffer, fld(99, 'surprise'));
  const strict = await pb(u, 'POST', `${PODS}?fieldValidation=Strict`, envelope('v1', 'Pod', raw));
  t.equal(strict.status, 201, why(strict));

  // DeleteOptions from a typed client: protobuf, preconditions (2) with uid (1).
  const pre = await pb(u, 'DELETE', `${PODS}/extra`, envelope('v1', 'DeleteOptions', fld(2, fld(1, 'not-the-uid'))));
  t.equal(pre.status, 409, 'a precondition in a protobuf DeleteOptions is honoured');
  t.match(status(pre).message, /the UID in the precondition \(not-the-uid\) does not match/);
  const gone = await pb(u, 'DELETE', `${PODS}/extra`, envelope('v1', 'DeleteOptions', fld(1, 0)));
  t.equal(gone.status, 200, why(gone));
  t.equal((await call(u, 'GET', `${PODS}/extra`)).status, 404, 'gracePeriodSeconds 0 (a pointer: kept) deleted it at once');
});

t.test('the pod subresources binding and eviction take protobuf bodies, as a scheduler and client-go send them', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  t.equal((await call(u, 'POST', NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })).status, 201);
  t.equal((await call(u, 'POST', PODS, richPod('b1'))).status, 201);
  // Binding: metadata (1) {name}, target (2) ObjectReference {kind (1), name (3)}.
  const bind = await pb(u, 'POST', `${PODS}/b1/binding`, envelope('v1', 'Binding', cat(fld(1, fld(1, 'b1')), fld(2, cat(fld(1, 'Node'), fld(3, 'n1'))))));
  t.equal(bind.status, 201, why(bind));
  const answer = unwrap(bind.bytes);
  t.same([answer.kind, str(answer.object, 2)], ['Status', 'Success'], 'a Success Status, in protobuf');
  t.equal((await jsonGet(u, `${PODS}/b1`)).spec.nodeName, 'n1', 'bound');
  // The legacy bindings collection too.
  t.equal((await call(u, 'POST', PODS, richPod('b2'))).status, 201);
  const legacy = await pb(u, 'POST', '/api/v1/namespaces/default/bindings', envelope('v1', 'Binding', cat(fld(1, fld(1, 'b2')), fld(2, cat(fld(1, 'Node'), fld(3, 'n1'))))));
  t.equal(legacy.status, 201, why(legacy));
  t.equal((await jsonGet(u, `${PODS}/b2`)).spec.nodeName, 'n1');
  // Eviction (policy/v1): metadata (1), deleteOptions (2) {gracePeriodSeconds (1): 0}.
  const evict = await pb(u, 'POST', `${PODS}/b1/eviction`, envelope('policy/v1', 'Eviction', cat(fld(1, fld(1, 'b1')), fld(2, fld(1, 0)))));
  t.equal(evict.status, 201, why(evict));
  t.equal(unwrap(evict.bytes).kind, 'Status');
  const evicted = await call(u, 'GET', `${PODS}/b1`);
  t.ok(evicted.status === 404 || evicted.body.metadata.deletionTimestamp, 'evicted');
});

t.test('kinds without protobuf: JSON for clients that take it, 406 and 415 for those that do not', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  t.equal((await call(u, 'POST', SC, sc('fast'))).status, 201);
  const either = await call(u, 'GET', `${SC}/fast`, undefined, { accept: ACCEPT });
  t.equal(either.status, 200);
  t.match(either.headers.get('content-type'), /^application\/json/, 'JSON, which the client accepts too');
  t.equal(either.body.metadata.name, 'fast');
  const only = await call(u, 'GET', `${SC}/fast`, undefined, { accept: PB });
  t.equal(only.status, 406);
  t.equal(only.body.reason, 'NotAcceptable');
  t.equal(only.body.message, 'only the following media types are accepted: application/json, application/yaml');
  const sent = await call(u, 'POST', SC, Buffer.concat([MAGIC, Buffer.from([0x0a, 0x00])]), { 'content-type': PB });
  t.equal(sent.status, 415);
  t.equal(sent.body.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  // The protobuf kinds list protobuf among what they accept.
  const weird = await call(u, 'POST', PODS, 'x', { 'content-type': 'application/cbor' });
  t.equal(weird.status, 415);
  t.equal(weird.body.message, `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PB}`);
  const none = await call(u, 'GET', PODS, undefined, { accept: 'text/html' });
  t.equal(none.status, 406);
  t.equal(none.body.message, `only the following media types are accepted: application/json, application/yaml, ${PB}`);
  // Accept order and q decide: JSON first, or protobuf at a lower q, is JSON.
  for (const accept of [`application/json,${PB}`, `${PB};q=0.5,application/json`]) {
    const r = await call(u, 'GET', `${NS}/default`, undefined, { accept });
    t.match(r.headers.get('content-type'), /^application\/json/, accept);
  }
});

t.test('watch in protobuf: length-prefixed WatchEvent frames of enveloped objects', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const res = await fetch(`${u}${PODS}?watch=1`, { headers: { accept: ACCEPT }, signal: ac.signal });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), `${PB};stream=watch`);
  const reader = res.body!.getReader();
  let buf = Buffer.alloc(0);
  t.equal((await call(u, 'POST', PODS, richPod('w1'))).status, 201);
  t.equal((await call(u, 'DELETE', `${PODS}/w1?gracePeriodSeconds=0`)).status, 200);
  const frames = await eventually<Buffer | undefined>(async () => {
    const chunk = await reader.read();
    if (chunk.value) buf = Buffer.concat([buf, chunk.value]);
    // Whole frames only: a 4-byte big-endian length, then that many bytes.
    let pos = 0;
    let n = 0;
    while (pos + 4 <= buf.length && pos + 4 + buf.readUInt32BE(pos) <= buf.length) {
      pos += 4 + buf.readUInt32BE(pos);
      n++;
    }
    return n >= 2 ? buf.subarray(0, pos) : undefined;
  }, 5000);
  // The first frame by hand: WatchEvent {type (1), object (2) RawExtension {raw (1)}}, no magic.
  if (!frames) throw new Error('no frames');
  const first = read(frames.subarray(4, 4 + frames.readUInt32BE(0)));
  t.equal(str(first, 1), 'ADDED');
  const inner = unwrap(sub(first, 2).get(1)![0] as Buffer);
  t.same([inner.apiVersion, inner.kind], ['v1', 'Pod'], 'the object is itself enveloped');
  t.equal(str(sub(inner.object, 1), 1), 'w1');
  const events = decodeWatchFrames(frames, { apiVersion: 'v1', kind: 'Pod' });
  t.same(events.map((e) => e.type), ['ADDED', 'DELETED']);
  t.equal((events[1]!.object as any).metadata.name, 'w1');
});

// ---- Round trip: JSON -> protobuf -> JSON is the identity on objects in canonical form ----

const text = fc.string({ minLength: 1, maxLength: 8 });
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const time = fc.integer({ min: 0, max: 4102444800 }).map((s) => `${new Date(s * 1000).toISOString().slice(0, 19)}Z`);
const quantity = fc.constantFrom('0', '1', '250m', '1Gi', '64Mi', '1500m', '2');
const mapOf = (v: fc.Arbitrary<string>) => fc.dictionary(fc.oneof(text, fc.constant('__proto__')), v, { minKeys: 1, maxKeys: 3 });
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Drops the undefined properties fc.record with optional keys leaves out anyway. */
const clean = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o));

const metaArb = fc.record({
  name,
  namespace: opt(name),
  uid: opt(fc.uuid()),
  resourceVersion: opt(fc.integer({ min: 1, max: 1e6 }).map(String)),
  generation: opt(fc.integer({ min: 1, max: 1e6 })),
  creationTimestamp: opt(time),
  deletionTimestamp: opt(time),
  deletionGracePeriodSeconds: opt(fc.integer({ min: 0, max: 100 })),
  labels: opt(mapOf(fc.string({ maxLength: 5 }))),
  annotations: opt(mapOf(fc.string({ maxLength: 20 }))),
  ownerReferences: opt(fc.array(fc.record({ apiVersion: fc.constant('v1'), kind: text, name, uid: fc.uuid(), controller: opt(fc.boolean()), blockOwnerDeletion: opt(fc.boolean()) }), { minLength: 1, maxLength: 2 })),
  finalizers: opt(fc.array(text, { minLength: 1, maxLength: 2 })),
  managedFields: opt(fc.array(fc.record({ manager: text, operation: fc.constantFrom('Update', 'Apply'), apiVersion: fc.constant('v1'), time, fieldsType: fc.constant('FieldsV1'), fieldsV1: fc.constant({ 'f:metadata': { 'f:labels': { '.': {} } } }) }), { minLength: 1, maxLength: 2 })),
}, { requiredKeys: ['name'] });

const containerArb = fc.record({
  name,
  image: opt(text),
  args: opt(fc.array(fc.string(), { minLength: 1, maxLength: 3 })),
  ports: opt(fc.array(fc.record({ containerPort: fc.integer({ min: 0, max: 65535 }), hostPort: opt(fc.integer({ min: 1, max: 65535 })), protocol: opt(fc.constantFrom('TCP', 'UDP')) }, { requiredKeys: ['containerPort'] }), { minLength: 1, maxLength: 2 })),
  env: opt(fc.array(fc.record({ name: fc.string(), value: opt(text) }, { requiredKeys: ['name'] }), { minLength: 1, maxLength: 2 })),
  resources: opt(fc.record({ limits: opt(mapOf(quantity)), requests: opt(mapOf(quantity)) })),
  livenessProbe: opt(fc.record({ httpGet: fc.record({ port: fc.oneof(fc.integer({ min: 0, max: 65535 }), text), path: opt(text) }, { requiredKeys: ['port'] }), periodSeconds: opt(fc.integer({ min: 1, max: 60 })), terminationGracePeriodSeconds: opt(fc.integer({ min: 0, max: 60 })) }, { requiredKeys: ['httpGet'] })),
  securityContext: opt(fc.record({ privileged: opt(fc.boolean()), runAsUser: opt(fc.integer({ min: 0, max: 65535 })), capabilities: opt(fc.record({ drop: fc.array(text, { minLength: 1, maxLength: 2 }) })) })),
  stdin: opt(fc.constant(true)),
}, { requiredKeys: ['name'] });

const podArb = fc.record({
  metadata: metaArb,
  spec: fc.record({
    containers: fc.array(containerArb, { minLength: 1, maxLength: 2 }),
    ephemeralContainers: opt(fc.array(fc.record({ name, image: text, targetContainerName: opt(name) }, { requiredKeys: ['name', 'image'] }), { minLength: 1, maxLength: 1 })),
    volumes: opt(fc.array(fc.oneof(
      fc.record({ name, configMap: fc.record({ name: opt(name), defaultMode: opt(fc.integer({ min: 0, max: 511 })), optional: opt(fc.boolean()) }) }),
      fc.record({ name, emptyDir: fc.record({ medium: opt(fc.constant('Memory')), sizeLimit: opt(quantity) }) }),
      fc.record({ name, hostPath: fc.record({ path: fc.string(), type: opt(fc.string()) }, { requiredKeys: ['path'] }) }),
    ), { minLength: 1, maxLength: 2 })),
    terminationGracePeriodSeconds: opt(fc.integer({ min: 0, max: 100 })),
    automountServiceAccountToken: opt(fc.boolean()),
    nodeName: opt(name),
    hostNetwork: opt(fc.constant(true)),
    nodeSelector: opt(mapOf(text)),
    priority: opt(fc.integer({ min: -100, max: 100 })),
    tolerations: opt(fc.array(fc.record({ key: opt(text), operator: opt(fc.constantFrom('Exists', 'Equal')), effect: opt(fc.constantFrom('NoSchedule', 'NoExecute')), tolerationSeconds: opt(fc.integer({ min: 0, max: 300 })) }), { minLength: 1, maxLength: 2 })),
    schedulingGroup: opt(fc.record({ podGroupName: fc.string() })),
  }, { requiredKeys: ['containers'] }),
  status: opt(fc.record({
    phase: opt(fc.constantFrom('Pending', 'Running')),
    conditions: opt(fc.array(fc.record({ type: text, status: fc.constantFrom('True', 'False', ''), lastTransitionTime: opt(time), observedGeneration: opt(fc.integer({ min: 1, max: 9 })) }, { requiredKeys: ['type', 'status'] }), { minLength: 1, maxLength: 2 })),
    podIPs: opt(fc.array(fc.record({ ip: fc.string() }), { minLength: 1, maxLength: 2 })),
    startTime: opt(time),
    containerStatuses: opt(fc.array(fc.record({
      name, ready: fc.boolean(), restartCount: fc.integer({ min: 0, max: 9 }), image: fc.string(), imageID: fc.string(),
      started: opt(fc.boolean()),
      state: fc.oneof(fc.constant({}), fc.record({ running: fc.record({ startedAt: opt(time) }) }), fc.record({ terminated: fc.record({ exitCode: fc.integer({ min: 0, max: 255 }), reason: opt(text), finishedAt: opt(time) }, { requiredKeys: ['exitCode'] }) })),
      lastState: fc.constant({}),
    }), { minLength: 1, maxLength: 2 })),
  })),
}, { requiredKeys: ['metadata', 'spec'] }).map((p) => clean({ apiVersion: 'v1', kind: 'Pod', ...p }));

const nodeArb = fc.record({
  metadata: metaArb,
  spec: opt(fc.record({ podCIDRs: opt(fc.array(text, { minLength: 1, maxLength: 2 })), unschedulable: opt(fc.constant(true)), taints: opt(fc.array(fc.record({ key: fc.string(), value: opt(text), effect: fc.constantFrom('NoSchedule', ''), timeAdded: opt(time) }, { requiredKeys: ['key', 'effect'] }), { minLength: 1, maxLength: 2 })) })),
  status: opt(fc.record({
    capacity: opt(mapOf(quantity)),
    allocatable: opt(mapOf(quantity)),
    conditions: opt(fc.array(fc.record({ type: text, status: fc.constantFrom('True', 'Unknown'), lastHeartbeatTime: opt(time), reason: opt(text) }, { requiredKeys: ['type', 'status'] }), { minLength: 1, maxLength: 3 })),
    addresses: opt(fc.array(fc.record({ type: fc.constantFrom('InternalIP', 'Hostname'), address: fc.string() }), { minLength: 1, maxLength: 2 })),
    daemonEndpoints: opt(fc.record({ agentEndpoint: fc.record({ Port: fc.integer({ min: 0, max: 65535 }) }) })),
    nodeInfo: opt(fc.record({ machineID: fc.string(), systemUUID: fc.string(), bootID: fc.string(), kernelVersion: fc.string(), osImage: fc.string(), containerRuntimeVersion: fc.string(), agentVersion: fc.string(), kubeProxyVersion: fc.string(), operatingSystem: fc.string(), architecture: fc.string() })),
    images: opt(fc.array(fc.record({ names: fc.array(text, { minLength: 1, maxLength: 2 }), sizeBytes: opt(fc.integer({ min: 1, max: 2 ** 40 })) }), { minLength: 1, maxLength: 2 })),
    features: opt(fc.record({ supplementalGroupsPolicy: fc.boolean() })),
    declaredFeatures: opt(fc.array(text, { minLength: 1, maxLength: 2 })),
  })),
}, { requiredKeys: ['metadata'] }).map((n) => clean({ apiVersion: 'v1', kind: 'Node', ...n }));

const quotaArb = fc.record({
  metadata: metaArb,
  spec: fc.record({ hard: opt(mapOf(quantity)), scopes: opt(fc.array(text, { minLength: 1, maxLength: 2 })) }),
  status: opt(fc.record({ hard: opt(mapOf(quantity)), used: opt(mapOf(quantity)) })),
}, { requiredKeys: ['metadata', 'spec'] }).map((q) => clean({ apiVersion: 'v1', kind: 'ResourceQuota', ...q }));

t.test('JSON -> protobuf -> JSON is the identity for pods, nodes, quotas and namespaces', async (t) => {
  const namespaceArb = fc.record({ metadata: metaArb, spec: opt(fc.record({ finalizers: opt(fc.array(text, { minLength: 1, maxLength: 2 })) })), status: opt(fc.record({ phase: opt(fc.constant('Active')) })) })
    .map((n) => clean({ apiVersion: 'v1', kind: 'Namespace', ...n }));
  for (const [kind, arb] of [['Pod', podArb], ['Node', nodeArb], ['ResourceQuota', quotaArb], ['Namespace', namespaceArb]] as const) {
    fc.assert(
      fc.property(arb as fc.Arbitrary<Record<string, unknown>>, (obj) => {
        t.same(decodeObject(encodeObject(obj)!, { apiVersion: 'v1', kind }), obj);
      }),
      propertyRuns(150),
    );
  }
});

t.test('any bytes decode to an object or a 400, never another failure', async (t) => {
  const wire = fc.uint8Array({ maxLength: 200 });
  let refused = 0;
  const check = (bytes: Uint8Array, kind: string) => {
    try {
      decodeObject(bytes, { apiVersion: 'v1', kind });
    } catch (err) {
      refused++;
      if ((err as { status?: { code?: number } }).status?.code !== 400) throw err;
    }
  };
  fc.assert(
    fc.property(wire, fc.constantFrom('Pod', 'Node', 'Namespace', 'ResourceQuota', 'DeleteOptions'), (b, kind) => {
      check(Uint8Array.from([...MAGIC, ...b]), kind);
      // A sound envelope around random object bytes.
      check(envelope('v1', kind, Buffer.from(b)), kind);
    }),
    propertyRuns(2000),
  );
  // Mutations of a real body: every byte position flipped.
  const real = encodeObject(richPod('m'))!;
  for (let i = 0; i < real.length; i++) {
    const copy = Buffer.from(real);
    copy[i] = copy[i]! ^ 0xff;
    check(copy, 'Pod');
    check(real.subarray(0, i), 'Pod');
  }
  t.ok(refused > 0, `${refused} refused with a 400, the rest decoded`);
});

t.test('every stored pod and node reads the same in protobuf as in JSON', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  let i = 0;
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(fc.oneof(podArb.map((p) => ['pods', p] as const), nodeArb.map((n) => ['nodes', n] as const)), async ([resource, obj]) => {
      // Written to storage as it stands (whatever validation would have said of it), then read
      // through both encodings.
      const name = `${resource}-${i++}`;
      const pod = resource === 'pods';
      const stored = { ...obj, metadata: { ...(obj['metadata'] as object), name, ...(pod ? { namespace: 'default' } : { namespace: undefined }) } };
      await srv.storage.create(`/registry/core/${resource}/${pod ? 'default/' : ''}${name}`, JSON.stringify(stored));
      const item = `${pod ? PODS : NODES}/${name}`;
      const r = await pb(u, 'GET', item);
      t.equal(r.status, 200, why(r));
      t.same(decoded(r, pod ? 'Pod' : 'Node'), await jsonGet(u, item));
      checked++;
    }),
    propertyRuns(40),
  );
  t.equal(checked, 40);
});
