// Issue 27, bench/scale.ts: the command lines it refuses (before it starts anything), and the reading
// of the API server's latency histogram it reports API call p99 from. The bench itself runs in
// `npm run bench`, not here: it takes minutes and a whole machine.
import t from 'tap';
import { execaNode } from 'execa';
import { parseScaleArgs } from '../../bench/scale-args.js';
import { bucketQuantile, diffBuckets, parseRequestDurations } from '../../bench/scale-metrics.js';

const SCALE = new URL('../../bench/scale.js', import.meta.url).pathname;

t.test('bench/scale refuses bad flags', async (t) => {
  for (const [argv, why] of [
    [['--nodes', '10'], /Unknown option '--nodes'/],
    [['extra'], /Unexpected argument 'extra'/],
    [['--target', 'sqlite'], /--target "sqlite": want memory, etcd or both/],
    [['--heartbeat', 'soon'], /--heartbeat "soon"/],
    [['--heartbeat', '50ms'], /at least 100ms/],
    [['--window-seconds', '0'], /--window-seconds "0"/],
    [['--window-seconds', '1.5'], /positive whole number/],
    [['--window-seconds', '15'], /shorter than two --heartbeat intervals/],
  ] as const) {
    const o = parseScaleArgs(argv);
    t.ok('error' in o && why.test(o.error), `${argv.join(' ')}: ${'error' in o ? o.error : 'accepted'}`);
  }
  // From the command line: exit 2 and the usage, before any server or etcd is started.
  const r = await execaNode(SCALE, ['--target', 'both', '--bogus'], { reject: false, timeout: 30_000 });
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /bench\/scale: Unknown option '--bogus'[\s\S]*usage: node dist\/bench\/scale\.js/);
  t.equal(r.stdout, '');
});

t.test('bench/scale sizes', async (t) => {
  const short = parseScaleArgs([]);
  const full = parseScaleArgs(['--full', '--target', 'etcd', '--skip-watch']);
  t.match(short, { size: 'short', targets: ['memory', 'etcd'], nodeCounts: [100], heartbeatMs: 10_000, windowSeconds: 30, startup: [{ perSecond: 50, pods: 300 }], watch: true });
  t.match(full, { size: 'full', targets: ['etcd'], nodeCounts: [100, 1000], windowSeconds: 60, startup: [{ perSecond: 20, pods: 3000 }, { perSecond: 50, pods: 3000 }, { perSecond: 100, pods: 3000 }], watch: false });
});

t.test('API call p99 from two scrapes of apiserver_request_duration_seconds', async (t) => {
  const scrape = (post: number[], get: number[]): string => {
    const les = ['0.005', '0.025', '0.1', '1', '+Inf'];
    const lines = (verb: string, counts: number[], resource: string) => les.map((le, i) =>
      `apiserver_request_duration_seconds_bucket{verb="${verb}",group="",version="v1",resource="${resource}",subresource="",scope="namespace",component="apiserver",code="201",le="${le}"} ${counts[i]}`);
    return ['# TYPE apiserver_request_duration_seconds histogram', ...lines('POST', post, 'pods'), ...lines('POST', post, 'configmaps'), ...lines('GET', get, 'pods'), 'apiserver_request_total{verb="POST"} 9'].join('\n');
  };
  const before = parseRequestDurations(scrape([10, 10, 10, 10, 10], [0, 0, 0, 0, 0]));
  // 100 more POSTs per resource: 90 under 5 ms, 9 between 25 and 100 ms, 1 between 0.1 and 1 s.
  const after = parseRequestDurations(scrape([100, 100, 109, 110, 110], [0, 4, 4, 4, 4]));
  const during = diffBuckets(after, before);
  t.same([...during.get('POST')!.values()], [180, 180, 198, 200, 200], 'summed over resources, minus the first scrape');
  // Rank 198 of 200 is the top of the 25-100 ms bucket: 100 ms.
  t.equal(Math.round(bucketQuantile(during.get('POST')!, 0.99) * 1000), 100);
  // Rank 199 lies halfway into the 0.1-1 s bucket.
  t.equal(Math.round(bucketQuantile(during.get('POST')!, 0.995) * 1000), 550);
  t.ok(bucketQuantile(during.get('GET')!, 0.99) > 0.005 && bucketQuantile(during.get('GET')!, 0.99) <= 0.025);
  t.ok(Number.isNaN(bucketQuantile(new Map([[Infinity, 0]]), 0.99)), 'nothing counted: no figure');
});
