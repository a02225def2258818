// Cost of an RBAC decision against the number of ClusterRoleBindings (issue 14 §2): a user outside
// system:masters, allowed by one RoleBinding, reads one Lease, first with 10 ClusterRoleBindings
// (naming other users) stored, then with `--bindings` of them. Timed two ways, against a reference
// API server in this process (memory storage, RBAC, plain HTTP on loopback): authorized GETs over
// HTTP, and the authorizer called directly (no HTTP: the decision alone). Also the first decision
// after a write to an unrelated ClusterRoleBinding, which is what a cache of the bindings pays for
// being current. Aim: each figure with many bindings at most twice the one with 10.
//
//   node dist/bench/authorizer.js [--requests 6000] [--decisions 5000] [--bindings 3000] [--writes 50]
import { parseArgs } from 'node:util';
import { startApiServer } from '../reference/apiserver/apiserver.js';
import { RbacAuthorizer } from '../reference/apiserver/auth/authorizer.js';
import { requestInfo } from '../reference/apiserver/auth/request-info.js';
import { ALL_AUTHENTICATED } from '../reference/apiserver/auth/user.js';
import { REFERENCE_RESOURCES } from '../reference/resources/index.js';
import { MemoryStorage } from '../reference/storage/memory.js';
import { positiveInt, printTable } from './report.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '6000' },
    decisions: { type: 'string', default: '5000' },
    bindings: { type: 'string', default: '3000' },
    writes: { type: 'string', default: '50' },
  },
});
const REQUESTS = positiveInt('authorizer', 'requests', args.requests!);
const DECISIONS = positiveInt('authorizer', 'decisions', args.decisions!);
const BINDINGS = positiveInt('authorizer', 'bindings', args.bindings!);
const WRITES = positiveInt('authorizer', 'writes', args.writes!);
const FEW = 10;
const CONNECTIONS = 8;
const AIM_RATIO = 2;

const G = 'rbac.authorization.orch.io';
const NS = 'bench';
const LEASE = `/apis/coordination.orch.io/v1/namespaces/${NS}/leases/held`;
const ADMIN = 'admin-token';
const ALICE = 'alice-token';
const alice = { name: 'alice', groups: [ALL_AUTHENTICATED] };

interface Figures {
  /** µs per authorized GET over HTTP, CONNECTIONS at once. */
  http: number;
  /** µs per direct decision. */
  direct: number;
  /** µs of the first decision after a binding write. */
  afterWrite: number;
}

async function main(): Promise<void> {
  const storage = new MemoryStorage();
  const api = await startApiServer({
    storage, strategies: REFERENCE_RESOURCES, log: (m, e) => console.error(m, e ?? ''),
    auth: { tokens: [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }, { token: ALICE, user: 'alice' }], authorizationMode: 'RBAC' },
  });
  const { Pool } = await import('undici');
  const pool = new Pool(api.url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    const rbac = (resource: string) => api.registry.byGroupResource(G, resource)!;
    const create = (group: string, resource: string, ns: string, body: Record<string, unknown>) => api.registry.byGroupResource(group, resource)!.create(ns, body);
    await create('', 'namespaces', '', { metadata: { name: NS } });
    await create('coordination.orch.io', 'leases', NS, { metadata: { name: 'held' }, spec: {} });
    await create(G, 'roles', NS, { metadata: { name: 'lease-reader' }, rules: [{ apiGroups: ['coordination.orch.io'], resources: ['leases'], verbs: ['get'] }] });
    await create(G, 'rolebindings', NS, {
      metadata: { name: 'alice-reads-leases' }, roleRef: { apiGroup: G, kind: 'Role', name: 'lease-reader' }, subjects: [{ kind: 'User', apiGroup: G, name: 'alice' }],
    });
    let stored = 0;
    const crb = (i: number) => ({
      metadata: { name: `other-${i}` }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'system:basic-user' },
      subjects: [{ kind: 'User', apiGroup: G, name: `user-${i}` }, { kind: 'Group', apiGroup: G, name: `group-${i}` }],
    });
    const fillTo = async (n: number) => {
      for (; stored < n; stored++) await rbac('clusterrolebindings').create('', crb(stored));
    };

    const authorizer = new RbacAuthorizer(api.registry);
    const attrs = { ...requestInfo('GET', LEASE), user: alice };
    const decide = async () => {
      if (!(await authorizer.authorize(attrs)).allowed) throw new Error('alice was refused');
    };
    const get = async () => {
      const res = await pool.request({ method: 'GET', path: LEASE, headers: { authorization: `Bearer ${ALICE}` } });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${LEASE}: ${res.statusCode}`);
    };
    /** µs per call of `n` calls of `once`, `parallel` at a time, after as many untimed (the JIT's warm-up). */
    const time = async (n: number, parallel: number, once: () => Promise<void>): Promise<number> => {
      const run = async () => {
        let left = n;
        const t0 = performance.now();
        await Promise.all(Array.from({ length: parallel }, async () => {
          while (left-- > 0) await once();
        }));
        return ((performance.now() - t0) * 1000) / n;
      };
      await run();
      return run();
    };
    /** µs of the first decision after each of WRITES writes (a label on one unrelated binding). */
    const afterWrite = async (): Promise<number> => {
      let total = 0;
      for (let i = 0; i < WRITES; i++) {
        await rbac('clusterrolebindings').guaranteedUpdate('', 'other-0', (o) => {
          o.metadata.labels = { round: String(i) };
        });
        const t0 = performance.now();
        await decide();
        total += performance.now() - t0;
      }
      return (total * 1000) / WRITES;
    };
    const measure = async (n: number): Promise<Figures> => {
      await fillTo(n);
      return { http: await time(REQUESTS, CONNECTIONS, get), direct: await time(DECISIONS, 1, decide), afterWrite: await afterWrite() };
    };

    const few = await measure(FEW);
    const many = await measure(BINDINGS);
    const us = (x: number) => x.toFixed(1);
    const ratio = (k: keyof Figures) => many[k] / few[k];
    const rows: Array<[string, keyof Figures]> = [
      [`authorized GET over HTTP (${CONNECTIONS} at once), µs`, 'http'],
      ['authorizer.authorize directly, µs', 'direct'],
      ['first decision after a binding write, µs', 'afterWrite'],
    ];
    console.log(`\nRBAC decision cost: ${FEW} vs ${BINDINGS} ClusterRoleBindings (aim: ratio <= ${AIM_RATIO})\n`);
    printTable(['', `${FEW} bindings`, `${BINDINGS} bindings`, 'ratio'], rows.map(([label, k]) => [label, us(few[k]), us(many[k]), `${ratio(k).toFixed(2)}x`]));
    const over = rows.filter(([, k]) => k !== 'afterWrite' && ratio(k) > AIM_RATIO);
    if (over.length) console.log(`\nabove the aim: ${over.map(([label]) => label).join('; ')}`);
  } finally {
    await pool.close();
    await api.close();
  }
}

await main();
