// The proofs hold on etcd too (issue 15): the cases whose rules the storage carries (lists and
// their chunks, watches, deletes, patches, apply, write parameters, metadata, errors) pass against a
// reference keeping its objects in a real etcd and fail against the same reference broken in their
// rule. It runs proof.test.ts with PROOF_ETCD_SERVERS and a focus, as a child.
import t from 'tap';
import { execaNode } from 'execa';
import { fileURLToPath } from 'node:url';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';

const PROOF = fileURLToPath(new URL('./proof.test.js', import.meta.url));
const STORAGE_CASES = '^api\\.(list|watch|delete|patch|apply|write-params|write|metadata|common|errors)\\.';

const unavailable = etcdUnavailable();
t.test('the storage-carried cases are proven against a reference on etcd', { skip: unavailable }, async (t) => {
  t.setTimeout(600_000);
  const etcd = await startEtcd(t);
  const r = await execaNode(PROOF, [], {
    env: { PROOF_ETCD_SERVERS: etcd.clientUrls.join(','), PROOF_FOCUS: STORAGE_CASES },
    reject: false,
    timeout: 540_000,
    all: true,
  });
  const failures = (r.all ?? '').split('\n').filter((l) => /^\s*not ok /.test(l));
  t.equal(r.exitCode, 0, `proof.test.js on etcd passed\n${failures.slice(0, 20).join('\n')}`);
  const passed = (r.all ?? '').split('\n').filter((l) => /^\s+ok \d+ - api\..* passes against the reference$/.test(l)).length;
  t.ok(passed > 100, `${passed} cases proven on etcd`);
});
