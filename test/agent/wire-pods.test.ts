// Items 3 and 4 in-process: root dir records (allocated on admission, actuated once containers
// start, removed when the pod goes) and seccomp in CreateContainer (Localhost resolved under
// <root>/seccomp; the runtime's refusal of a missing profile surfaces as CreateContainerError). A bad
// seccomp field (CreateContainerConfigError) cannot reach the agent through this API server, which
// validates the same fields; that path waits for static pods.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { parsePodResourcesState } from '../../reference/agent/root-dir.js';
import { until } from './helpers.js';

t.test('records, seccomp', async (t) => {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-pods-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'root');
  const cri = await startMockCri({ socket: join(dir, 'cri.sock'), seccompDir: join(root, 'seccomp') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const agent = await startAgent({ api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: root, nodeName: 'n1', relistPeriodMs: 100, backoffBaseMs: 200, backoffMaxMs: 1000, log: () => {} });
  t.teardown(() => agent.close());
  t.equal(statSync(join(root, 'seccomp')).mode & 0o777, 0o700, 'root dir prepared with private dirs');
  const records = (name: string) => parsePodResourcesState(readFileSync(join(root, name), 'utf8')) ?? {};
  const mk = (name: string, spec: object) => api.create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', ...spec } });
  const pod = (name: string) => api.get(`/api/v1/namespaces/default/pods/${name}`);

  const p1 = await mk('p1', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [
    { name: 'c', image: 'busybox', command: ['sleep', '3600'], resources: { requests: { cpu: '100m' } } },
    { name: 'own', image: 'busybox', command: ['sleep', '3600'], securityContext: { seccompProfile: { type: 'Unconfined' } } },
  ] });
  await until('p1 running', async () => ((await pod('p1')).status?.phase === 'Running' ? true : undefined));
  const uid = p1.metadata.uid;
  t.ok(records('allocated_pods_state')[uid], 'allocated record');
  t.ok(records('actuated_pods_state')[uid], 'actuated record');
  t.equal(statSync(join(root, 'allocated_pods_state')).mode & 0o777, 0o600);
  const creates = cri.control.calls.list({ rpc: 'CreateContainer' }) as any[];
  const profileOf = (name: string) => creates.find((c: any) => c.request.config.metadata.name === name)?.request.config.linux.security_context.seccomp;
  t.same(profileOf('c'), { profile_type: 'RuntimeDefault', localhost_ref: '' }, 'pod-level profile inherited');
  t.same(profileOf('own'), { profile_type: 'Unconfined', localhost_ref: '' }, "the container's own wins");

  await mk('p2', { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'missing.json' } } }] });
  const p2 = await until('p2 CreateContainerError', async () => {
    const s = (await pod('p2')).status?.containerStatuses?.[0]?.state?.waiting;
    return s?.reason === 'CreateContainerError' ? s : undefined;
  });
  t.ok(p2.message, `the runtime's refusal: ${p2.message}`);
  const local = (cri.control.calls.list({ rpc: 'CreateContainer' }) as any[]).find((c: any) => c.request.config.linux.security_context.seccomp.profile_type === 'Localhost');
  t.equal(local?.request.config.linux.security_context.seccomp.localhost_ref, join(root, 'seccomp', 'missing.json'), 'Localhost resolves under <root>/seccomp');

  await api.delete('/api/v1/namespaces/default/pods/p1');
  await until('p1 records removed', () => (!records('allocated_pods_state')[uid] && !records('actuated_pods_state')[uid] ? true : undefined));
  t.pass('records removed when the pod goes');
});
