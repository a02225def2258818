// Agent configuration (spec 001 §2.3, §5.1): strict decoding, drop-in merging rule by rule with the
// spec's examples, flags winning, defaults and /configz.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, decodeConfigFile } from '../../reference/agent/config/configuration.js';
import { durationMs, formatGoDuration, parseGoDuration } from '../../reference/agent/config/go-duration.js';
import { configzBody, dropInFiles, loadAgentConfig, mergeConfig } from '../../reference/agent/config/merge.js';

const HEAD = 'apiVersion: agent.config.orch.io/v1beta1\nkind: AgentConfiguration\n';

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('strict decoding', async (t) => {
  t.test('a YAML file and a JSON file decode alike', async (t) => {
    const y = decodeConfigFile('a.yaml', `${HEAD}port: 10251\nsyncFrequency: 30s\nfeatureGates:\n  ContainerCheckpoint: false\n`);
    const j = decodeConfigFile(
      'a.json',
      JSON.stringify({ apiVersion: 'agent.config.orch.io/v1beta1', kind: 'AgentConfiguration', port: 10251, syncFrequency: '30s', featureGates: { ContainerCheckpoint: false } }),
    );
    t.same(y, { port: 10251, syncFrequency: '30s', featureGates: { ContainerCheckpoint: false } });
    t.same(j, y);
  });

  t.test('durations are kept in Go form', async (t) => {
    t.same(decodeConfigFile('f', `${HEAD}syncFrequency: 60s\nnodeStatusUpdateFrequency: 1500ms\n`), {
      syncFrequency: '1m0s',
      nodeStatusUpdateFrequency: '1.5s',
    });
  });

  const refusals: Array<[string, string, RegExp]> = [
    ['unknown field', `${HEAD}prot: 1\n`, /^f\.yaml: strict decoding error: unknown field "prot"$/],
    ['unknown nested field', `${HEAD}authorization:\n  mode: Webhook\n  modes: x\n`, /unknown field "authorization\.modes"/],
    ['duplicate key (YAML)', `${HEAD}port: 1\nport: 2\n`, /strict decoding error: duplicate field "port"/],
    ['all problems listed', `${HEAD}a: 1\nport: 1\nport: 2\nb: 2\n`, /unknown field "a", unknown field "b", duplicate field "port"/],
    ['duplicate nested key', `${HEAD}featureGates:\n  A: true\n  A: false\n`, /duplicate field "featureGates\.A"/],
    ['wrong apiVersion', 'apiVersion: v1\nkind: AgentConfiguration\n', /field "apiVersion": unsupported version "v1"/],
    ['missing apiVersion', 'kind: AgentConfiguration\nport: 1\n', /field "apiVersion" is missing/],
    ['wrong kind', 'apiVersion: agent.config.orch.io/v1beta1\nkind: KubeletConfiguration\n', /field "kind": no kind "KubeletConfiguration"/],
    ['missing kind', 'apiVersion: agent.config.orch.io/v1beta1\n', /field "kind" is missing/],
    ['string for int', `${HEAD}port: "10250"\n`, /field "port": want an integer, got string "10250"/],
    ['int32 overflow', `${HEAD}maxPods: 4294967296\n`, /field "maxPods": want an integer that fits in 32 bits/],
    ['number for duration', `${HEAD}syncFrequency: 5\n`, /field "syncFrequency": want a duration string/],
    ['bad duration', `${HEAD}syncFrequency: 5d\n`, /field "syncFrequency": time: unknown unit "d" in duration "5d"/],
    ['duration without unit', `${HEAD}syncFrequency: "5"\n`, /time: missing unit in duration "5"/],
    ['map of bool', `${HEAD}featureGates:\n  A: "yes"\n`, /field "featureGates\[A\]": want true or false/],
    ['list where a map belongs', `${HEAD}evictionHard: [a]\n`, /field "evictionHard": want a mapping, got array/],
    ['map of lists', `${HEAD}staticPodURLHeader:\n  X: y\n`, /field "staticPodURLHeader\[X\]": want a list/],
    ['not a mapping', '- a\n- b\n', /want a mapping/],
    ['syntax error', `${HEAD}port: [\n`, /^f\.yaml: cannot parse/],
    ['empty', '  \n', /agent config file "f\.yaml" was empty/],
  ];
  for (const [name, text, want] of refusals) {
    t.test(name, async (t) => {
      t.throws(() => decodeConfigFile('f.yaml', text), { name: 'ConfigError', message: want });
    });
  }

  t.test('JSON duplicate keys are refused too (JSON.parse would hide them)', async (t) => {
    const text = '{"apiVersion":"agent.config.orch.io/v1beta1","kind":"AgentConfiguration","port":1,"port":2}';
    t.throws(() => decodeConfigFile('c.json', text), /c\.json: strict decoding error: duplicate field "port"/);
  });

  t.test('null is kept (a drop-in removes the field with it)', async (t) => {
    t.same(decodeConfigFile('f', `${HEAD}clusterDNS: null\n`), { clusterDNS: null });
  });

  t.test('every error is a ConfigError', async (t) => {
    try {
      decodeConfigFile('x', 'port: 1\n');
      t.fail('decoded');
    } catch (err) {
      t.ok(err instanceof ConfigError);
    }
  });
});

t.test('Go durations', async (t) => {
  for (const [text, ns, form] of [
    ['0', 0, '0s'],
    ['10s', 10e9, '10s'],
    ['60s', 60e9, '1m0s'],
    ['5m', 300e9, '5m0s'],
    ['4h', 4 * 3600e9, '4h0m0s'],
    ['2m30.5s', 150.5e9, '2m30.5s'],
    ['300ms', 300e6, '300ms'],
    ['1.5us', 1500, '1.5µs'],
    ['100ns', 100, '100ns'],
    ['1h1s', 3601e9, '1h0m1s'],
    ['-1s', -1e9, '-1s'],
  ] as const) {
    t.equal(parseGoDuration(text), ns, text);
    t.equal(formatGoDuration(ns), form, `${text} formats as ${form}`);
  }
  t.same(parseGoDuration(''), { error: 'time: invalid duration ""' });
  t.same(parseGoDuration('.s'), { error: 'time: invalid duration ".s"' });
  t.equal(durationMs('1m0s'), 60000);
});

t.test('§5.1 merge rules with the spec\'s examples', async (t) => {
  t.test('1: a scalar in a drop-in replaces; fields not mentioned keep the main value', async (t) => {
    t.same(mergeConfig({ port: 10250, address: '0.0.0.0' }, { port: 10251 }), { port: 10251, address: '0.0.0.0' });
  });
  t.test('2: nested structures merge field by field (authorization.mode replaced, webhook kept)', async (t) => {
    const base = { authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } } };
    t.same(mergeConfig(base, { authorization: { mode: 'AlwaysAllow' } }), {
      authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    });
    t.same(mergeConfig(base, { authorization: { webhook: { cacheAuthorizedTTL: '1m0s' } } }), {
      authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '1m0s', cacheUnauthorizedTTL: '30s' } },
    }, 'recursively');
  });
  t.test('3: a list (clusterDNS) is replaced as a whole', async (t) => {
    t.same(mergeConfig({ clusterDNS: ['10.0.0.10', '10.0.0.11'] }, { clusterDNS: ['10.96.0.10'] }), { clusterDNS: ['10.96.0.10'] });
  });
  t.test('4: a map merges per key (featureGates)', async (t) => {
    t.same(mergeConfig({ featureGates: { A: true, B: true } }, { featureGates: { B: false, C: true } }), {
      featureGates: { A: true, B: false, C: true },
    });
  });
  t.test('4: a map of string to list replaces the list of a key; other keys stay (staticPodURLHeader)', async (t) => {
    t.same(
      mergeConfig({ staticPodURLHeader: { 'X-A': ['1', '2'], 'X-B': ['3'] } }, { staticPodURLHeader: { 'X-A': ['9'] } }),
      { staticPodURLHeader: { 'X-A': ['9'], 'X-B': ['3'] } },
    );
  });
  t.test('drop-ins apply in order; a later one wins', async (t) => {
    t.same(mergeConfig({ port: 1 }, { port: 2, maxPods: 5 }, { port: 3 }), { port: 3, maxPods: 5 });
  });
  t.test('null in a drop-in removes the field (JSON merge patch)', async (t) => {
    t.same(mergeConfig({ clusterDNS: ['a'], port: 1 }, { clusterDNS: null } as never), { port: 1 });
  });
  t.test('the inputs are not modified', async (t) => {
    const base = { featureGates: { A: true } };
    const dropIn = { featureGates: { B: true } };
    mergeConfig(base, dropIn);
    t.same(base, { featureGates: { A: true } });
    t.same(dropIn, { featureGates: { B: true } });
  });
});

t.test('loadAgentConfig: files, drop-ins, flags, defaults', async (t) => {
  t.test('main file overlaid by the *.conf drop-ins in lexical order, recursively', async (t) => {
    const dir = tempDir(t);
    const main = join(dir, 'config.yaml');
    writeFileSync(main, `${HEAD}port: 10250\nclusterDNS: [10.0.0.10]\nfeatureGates:\n  ContainerCheckpoint: true\nauthorization:\n  mode: Webhook\n  webhook:\n    cacheAuthorizedTTL: 1m\nstaticPodURLHeader:\n  X-A: ["1"]\n  X-B: ["2"]\n`);
    const d = join(dir, 'conf.d');
    mkdirSync(join(d, '20-sub'), { recursive: true });
    writeFileSync(join(d, '10-port.conf'), `${HEAD}port: 10260\n`);
    writeFileSync(join(d, '20-sub', 'a.conf'), `${HEAD}port: 10270\nclusterDNS: [10.96.0.10, 10.96.0.11]\n`);
    writeFileSync(join(d, '30-auth.conf'), `${HEAD}authorization:\n  mode: AlwaysAllow\nstaticPodURLHeader:\n  X-A: ["9", "8"]\n`);
    writeFileSync(join(d, '40-gates.conf'), `${HEAD}featureGates:\n  NativeHistograms: false\n`);
    writeFileSync(join(d, '50-ignored.yaml'), `${HEAD}port: 1\n`);
    writeFileSync(join(d, '60-empty.conf'), '');
    t.same(dropInFiles(d).map((f) => f.slice(d.length + 1)), ['10-port.conf', '20-sub/a.conf', '30-auth.conf', '40-gates.conf', '60-empty.conf']);
    const cfg = loadAgentConfig({ configFile: main, configDir: d, flags: {} });
    t.equal(cfg.port, 10270, 'scalars: the last drop-in wins');
    t.same(cfg.clusterDNS, ['10.96.0.10', '10.96.0.11'], 'lists replace whole');
    t.same(cfg.authorization, { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTTL: '1m0s', cacheUnauthorizedTTL: '30s' } }, 'structures merge, defaults fill the rest');
    t.same(cfg.featureGates, { ContainerCheckpoint: true, NativeHistograms: false }, 'maps merge per key');
    t.same(cfg.staticPodURLHeader, { 'X-A': ['9', '8'], 'X-B': ['2'] }, 'a map of lists replaces per key');
  });

  t.test('a bad drop-in is refused, naming the file and field', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'a.conf'), `${HEAD}portt: 1\n`);
    t.throws(() => loadAgentConfig({ configDir: dir, flags: {} }), { name: 'ConfigError', message: `${join(dir, 'a.conf')}: strict decoding error: unknown field "portt"` });
  });

  t.test('missing files and directories are clear errors', async (t) => {
    const dir = tempDir(t);
    t.throws(() => loadAgentConfig({ configFile: join(dir, 'nope.yaml'), flags: {} }), /cannot read agent config file ".*nope\.yaml"/);
    t.throws(() => loadAgentConfig({ configDir: join(dir, 'nope.d'), flags: {} }), /cannot read agent config directory ".*nope\.d"/);
  });

  t.test('flags win over the files; --feature-gates adds to the file\'s gates', async (t) => {
    const dir = tempDir(t);
    const main = join(dir, 'c.yaml');
    writeFileSync(main, `${HEAD}port: 10250\ncontainerRuntimeEndpoint: unix:///file.sock\nfeatureGates:\n  ContainerCheckpoint: false\n  NativeHistograms: false\nevictionHard:\n  memory.available: 1Gi\n  nodefs.available: 5%\n`);
    writeFileSync(join(dir, 'a.conf'), `${HEAD}port: 10251\n`);
    const cfg = loadAgentConfig({
      configFile: main,
      configDir: dir,
      flags: { port: 0, containerRuntimeEndpoint: 'unix:///flag.sock', featureGates: { NativeHistograms: true }, evictionHard: { 'memory.available': '2Gi' }, rootDir: '/tmp/r', address: undefined },
    });
    t.equal(cfg.port, 0);
    t.equal(cfg.containerRuntimeEndpoint, 'unix:///flag.sock');
    t.same(cfg.featureGates, { ContainerCheckpoint: false, NativeHistograms: true });
    t.same(cfg.evictionHard, { 'memory.available': '2Gi' }, 'a map flag replaces the map, as upstream\'s map flags do');
    t.equal(cfg.rootDir, '/tmp/r');
    t.equal(cfg.address, '0.0.0.0', 'an undefined flag is no flag');
  });

  t.test('flags are checked too', async (t) => {
    t.throws(() => loadAgentConfig({ flags: { port: 'x' as never } }), /command-line flags: field "port": want an integer/);
    t.throws(() => loadAgentConfig({ flags: { syncFrequency: 'soon' } }), /command-line flags: field "syncFrequency": time: invalid duration "soon"/);
  });

  t.test('defaults are upstream\'s', async (t) => {
    const cfg = loadAgentConfig({ flags: {} });
    t.equal(cfg.port, 10250);
    t.equal(cfg.address, '0.0.0.0');
    t.equal(cfg.syncFrequency, '1m0s');
    t.equal(cfg.nodeStatusUpdateFrequency, '10s');
    t.equal(cfg.nodeStatusReportFrequency, '5m0s');
    t.equal(cfg.nodeLeaseDurationSeconds, 40);
    t.equal(cfg.staticPodPath, '/etc/orch/manifests', 'the spec\'s default path');
    t.equal(cfg.seccompDefault, false);
    t.equal(cfg.serializeImagePulls, true);
    t.equal(cfg.maxPods, 110);
    t.same(cfg.evictionHard, { 'imagefs.available': '15%', 'imagefs.inodesFree': '5%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' });
    t.same(cfg.authorization, { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } });
    t.equal(cfg.imageServiceEndpoint, '');
  });

  t.test('the report frequency follows an explicit update frequency', async (t) => {
    const cfg = loadAgentConfig({ flags: { nodeStatusUpdateFrequency: '20s' } });
    t.equal(cfg.nodeStatusReportFrequency, '20s');
    t.equal(loadAgentConfig({ flags: { nodeStatusUpdateFrequency: '20s', nodeStatusReportFrequency: '1m' } }).nodeStatusReportFrequency, '1m0s');
  });

  t.test('validation', async (t) => {
    t.throws(() => loadAgentConfig({ flags: { nodeLeaseDurationSeconds: 0 } }), /invalid configuration: nodeLeaseDurationSeconds must be greater than 0/);
    t.throws(() => loadAgentConfig({ flags: { port: 70000 } }), /invalid configuration: port \(70000\) must be between 1 and 65535/);
    t.throws(() => loadAgentConfig({ flags: { syncFrequency: '0s' } }), /syncFrequency \(0s\) must be greater than 0/);
    t.throws(() => loadAgentConfig({ flags: { featureGates: { NoSuchGate: true } } }), /featureGates: unknown feature gate "NoSuchGate"/);
    t.throws(() => loadAgentConfig({ flags: { maxParallelImagePulls: 3, serializeImagePulls: true } }), /maxParallelImagePulls \(3\) must be 1 or unset/);
    t.equal(loadAgentConfig({ flags: { maxParallelImagePulls: 3 } }).serializeImagePulls, false, 'parallel pulls turn serialization off by default');
  });
});

t.test('/configz body', async (t) => {
  const cfg = loadAgentConfig({ flags: { port: 10255, rootDir: '/r', featureGates: { NativeHistograms: false } } });
  const body = configzBody(cfg);
  t.same(Object.keys(body), ['agentconfig']);
  const inner = body.agentconfig;
  t.equal(inner.port, 10255);
  t.notOk('kind' in inner || 'apiVersion' in inner, 'no TypeMeta, as upstream');
  t.notOk('rootDir' in inner, 'flag-only settings are not configuration');
  t.notOk('imageServiceEndpoint' in inner, 'empty imageServiceEndpoint is omitted (omitempty)');
  t.same(inner.featureGates, { NativeHistograms: false });
  const keys = Object.keys(inner);
  t.same(keys.slice(0, 4), ['enableServer', 'staticPodPath', 'podLogsDir', 'syncFrequency'], 'upstream\'s field order');
  t.ok(keys.indexOf('port') < keys.indexOf('featureGates'));
  t.same(JSON.parse(JSON.stringify(body)), body, 'plain JSON');
});
