// Running against the embedded reference. Cases are grouped by the target they need: feature gates
// in another state than the 1.37 default, or target facts (runner/facts.ts) such as a short
// continue-token validity or a corrupt object. Each group gets a reference started so that its
// gates and facts hold, so every case runs (none is skipped for something the reference could
// simply have been configured to do).
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { AGENT_KINDS, type Case } from '../suites/case.js';
import { startReference, type ReferenceOptions, type RunningReference } from '../reference/server.js';
import { defaultGates } from './gates.js';
import { FeatureGates, GATES_1_37 } from '../reference/features.js';
import { generateSelfSigned, type SelfSigned } from '../reference/tls.js';
import { AGENT_CERT_FILES } from '../reference/agent/serving-cert.js';
import { runGroups, newRunId, RUN_LABEL, type NodeTargets, type RunOptions, type TargetGroup } from './run.js';
import { startBackgroundNodes, type BackgroundNodes } from './background-nodes.js';
import { loadMockCri, referenceAgentCommand } from './agent-exec.js';
import type { FactName, TargetFacts } from './facts.js';
import type { RunReport } from './results.js';
import { logLine, silentSink, type LogSink } from '../reference/log.js';

/** What one embedded reference must provide: gate overrides and the facts its cases need. */
export interface Profile {
  overrides: Record<string, boolean>;
  facts: FactName[];
}

/** The profile of a case: its gate needs against the defaults (or `fixed` gates), and its facts. */
export function profileOf(c: Case, fixed?: Record<string, boolean>): Profile {
  const defaults = defaultGates();
  const overrides = fixed ?? Object.fromEntries(Object.entries(c.gates ?? {}).filter(([k, v]) => defaults[k] !== v).sort(([a], [b]) => a.localeCompare(b)));
  return { overrides, facts: [...new Set(c.facts ?? [])].sort() };
}

/** Cases grouped by profile; the plain default profile first (it is what the report names as the target). */
export function groupByProfile(cases: readonly Case[], fixed?: Record<string, boolean>): Array<{ profile: Profile; cases: Case[] }> {
  const groups = new Map<string, { profile: Profile; cases: Case[] }>();
  for (const c of cases) {
    const profile = profileOf(c, fixed);
    const key = JSON.stringify(profile);
    if (!groups.has(key)) groups.set(key, { profile, cases: [] });
    groups.get(key)!.cases.push(c);
  }
  const weight = (p: Profile) => Object.keys(p.overrides).length + p.facts.length;
  return [...groups.values()].sort((a, b) => weight(a.profile) - weight(b.profile));
}

/**
 * The values the embedded reference is configured with for each fact: short enough that cases can
 * outwait them, long enough that ordinary requests of those cases do not trip over them.
 */
export const EMBEDDED_FACTS = {
  continueTtlSeconds: 2,
  compactionIntervalSeconds: 1,
  failingHealthCheck: { endpoint: 'readyz', check: 'informer-sync' },
  failingReason: 'informers not started (planted by the embedded conformance run)',
  /**
   * The controller manager of a reference whose cases need `nodeMonitorGracePeriod`: a 3 s grace
   * period checked every 250 ms, and NoExecute taints as fast as nodes go silent (upstream's limits,
   * 0.1 nodes/s per healthy zone and none in a small unhealthy one, would make cases wait minutes).
   */
  nodeMonitor: { nodeMonitorGracePeriodMs: 3_000, nodeMonitorPeriodMs: 250, nodeEvictionRate: 100, secondaryNodeEvictionRate: 100, largeClusterSizeThreshold: 0 },
} as const;

export interface EmbeddedTarget {
  group: Omit<TargetGroup, 'cases'>;
  /** What a node agent of this target needs for the reference's node proxy to reach it. */
  agentTls: EmbeddedAgentTls;
  close(): Promise<void>;
}

/**
 * The certificates between the reference's node proxy and the agents of an embedded run, wired both
 * ways as an operator would: the agents serve with `serving` (the reference verifies it with the CA,
 * upstream's --kubelet-certificate-authority) and accept the reference's client certificate with
 * `clientCaPem` (their `authentication.x509.clientCAFile`).
 */
export interface EmbeddedAgentTls {
  readonly serving: SelfSigned;
  readonly clientCaPem?: string;
}

let agentServing: SelfSigned | undefined;

/** One serving pair for every embedded agent of the process (they all listen on 127.0.0.1). */
function embeddedAgentServing(): SelfSigned {
  return (agentServing ??= generateSelfSigned('127.0.0.1'));
}

/**
 * Starts a reference for a profile. `corruptObjects` is how many corrupt objects to plant (one per
 * case that needs one); they are storage classes named after the run, so nothing else is touched.
 * `auth` turns authentication on as the 'authentication' fact does (the run's token, RBAC), without
 * stating the fact: a node agent checks the callers of its endpoints with TokenReview against this
 * server, which must therefore know the token the run sends the agent.
 */
export async function startEmbeddedTarget(
  profile: Profile,
  opts: {
    runId: string;
    corruptObjects?: number;
    auth?: boolean;
    breaks?: ReadonlySet<string>;
    /** Where the reference keeps its objects; default memory (the project's tests also prove the cases on etcd). */
    storage?: Pick<ReferenceOptions, 'storage' | 'etcd'>;
    /** Where its components log (`run --verbose`: standard error); default nowhere, as its cases provoke errors on purpose. */
    log?: LogSink;
  },
): Promise<EmbeddedTarget> {
  const needs = new Set(profile.facts);
  // HTTPS, as every component serves (spec 002 §1), with a certificate the run trusts.
  // Its agents listen on 127.0.0.1: the node proxy may reach loopback addresses (never its own).
  const serving = embeddedAgentServing();
  const ref: ReferenceOptions = { host: '127.0.0.1', port: 0, featureGates: profile.overrides, tls: 'self-signed', agentCaPem: serving.caPem, nodeProxyAllowLoopback: true, log: opts.log ?? silentSink, ...opts.storage };
  const facts: { -readonly [K in keyof TargetFacts]: TargetFacts[K] } = {};
  if (needs.has('continueTtl')) facts.continueTtlSeconds = ref.continueTtlSeconds = EMBEDDED_FACTS.continueTtlSeconds;
  if (needs.has('compaction')) facts.compactionIntervalSeconds = ref.compactionIntervalSeconds = EMBEDDED_FACTS.compactionIntervalSeconds;
  if (needs.has('corruptObject')) {
    const n = Math.max(1, opts.corruptObjects ?? 1);
    facts.corruptObjects = ref.debugPlantCorrupt = Array.from({ length: n }, (_, i) => `/apis/storage.orch.io/v1/storageclasses/oc-${opts.runId}-corrupt-${i}`);
  }
  if (needs.has('nodeMonitorGracePeriod')) {
    facts.nodeMonitorGracePeriodSeconds = EMBEDDED_FACTS.nodeMonitor.nodeMonitorGracePeriodMs / 1000;
    ref.controllerManager = { settings: EMBEDDED_FACTS.nodeMonitor };
  }
  if (needs.has('failingHealthCheck')) {
    facts.failingHealthCheck = EMBEDDED_FACTS.failingHealthCheck;
    ref.healthFaults = new Map([[EMBEDDED_FACTS.failingHealthCheck.check, EMBEDDED_FACTS.failingReason]]);
  }
  let token: string | undefined;
  if (needs.has('authentication') || opts.auth) {
    token = randomBytes(24).toString('base64url');
    ref.auth = { tokens: [{ token, user: 'orch-conformance', groups: ['system:masters'] }], authorizationMode: 'RBAC' };
    if (needs.has('authentication')) facts.authentication = true;
  }
  // Test-only: the project's proofs break one controller rule (test/proof/controllers.ts).
  if (opts.breaks?.size) {
    ref.controllerManager = { ...(ref.controllerManager || {}), breaks: opts.breaks };
    ref.scheduler = { breaks: opts.breaks };
  }
  const running: RunningReference = await startReference(ref);
  const conn = { baseUrl: running.url, token, caPem: running.caPem };
  // The companions' endpoints (spec 002 on every component); their certificates come from the same
  // process CA as the API server's.
  // `apiserver` is left to the runner, which reads it at `conn`: a proxy put in front of conn (the
  // legal variants) then stands for the API server's endpoints too.
  const components: Record<string, TargetGroup['conn']> = {};
  const { controllerManager: cm, scheduler } = running.components;
  if (cm) components['controller-manager'] = { baseUrl: cm.url, token, caPem: cm.caPem };
  if (scheduler) components['scheduler'] = { baseUrl: scheduler.url, token, caPem: scheduler.caPem };
  return {
    // The run knows the gates it started the reference with: it need not read them back.
    group: { conn, components, gates: { ...defaultGates(), ...profile.overrides }, statedGates: Object.keys(profile.overrides), facts },
    agentTls: { serving, clientCaPem: running.agentClientCaPem },
    close: () => running.close(),
  };
}

/**
 * Starts the references a selection needs (one per profile; `gates`, when the user gave them, fixes
 * the gates for all), runs the cases as one run and stops the references.
 */
export async function runEmbedded(cases: readonly Case[], opts: Omit<RunOptions, 'conn' | 'gates' | 'statedGates' | 'readGates' | 'facts' | 'cases' | 'embedded' | 'background'> & { gates?: Record<string, boolean>; statedGates?: readonly string[]; log?: LogSink; backgroundNodes?: number }): Promise<RunReport> {
  const runId = opts.runId ?? newRunId();
  // `--background-nodes`: against the reference the report names as the target (the first group's,
  // with the 1.37 defaults when the selection has such cases), with the run's credentials, started
  // as soon as it is up: the nodes get Ready while the other references start.
  let pending: Promise<BackgroundNodes> | undefined;
  const onTarget = (group: Omit<TargetGroup, 'cases'>, index: number) => {
    if (index !== 0 || !opts.backgroundNodes) return;
    pending = startBackgroundNodes(group.conn, { count: opts.backgroundNodes, runId, runLabel: `${RUN_LABEL}=${runId}`, interrupt: opts.interrupt });
    // Awaited below; a failure while the other references start is not unhandled meanwhile.
    pending.catch(() => undefined);
  };
  let started;
  try {
    started = await startEmbeddedGroups(cases, { runId, gates: opts.gates, statedGates: opts.statedGates, node: true, log: opts.log, onTarget });
  } catch (err) {
    await pending?.then((b) => b.stop(), () => undefined);
    throw err;
  }
  let background: BackgroundNodes | undefined;
  try {
    background = await pending;
    return await runGroups(started.groups, { ...opts, runId, embedded: true, background });
  } finally {
    // Before the references go: the nodes delete their Nodes on the way out.
    await background?.stop();
    await started.close();
  }
}

/**
 * The target groups of an embedded run of `cases`: one reference per profile, started (see
 * runEmbedded), with the cases each serves. Tests that put something in front of the references
 * (the legal variants) start them with this.
 */
export async function startEmbeddedGroups(cases: readonly Case[], opts: { runId: string; gates?: Record<string, boolean>; statedGates?: readonly string[]; node?: boolean; log?: LogSink; onTarget?: (group: Omit<TargetGroup, 'cases'>, index: number) => void }): Promise<{ groups: TargetGroup[]; close(): Promise<void> }> {
  const defaults = defaultGates();
  const fixed = opts.gates ? Object.fromEntries(Object.entries(opts.gates).filter(([k, v]) => defaults[k] !== v)) : undefined;
  const targets: Array<{ close(): Promise<void> }> = [];
  const close = async () => { await Promise.all(targets.map((t) => t.close())); };
  try {
    const groups: TargetGroup[] = [];
    for (const g of groupByProfile(cases, fixed)) {
      const corruptObjects = g.cases.filter((c) => c.facts?.includes('corruptObject')).length;
      const withNode = !!opts.node && g.cases.some((c) => c.needs.some((k) => AGENT_KINDS.has(k)));
      const target = await startEmbeddedTarget(g.profile, { runId: opts.runId, corruptObjects, auth: withNode, log: opts.log });
      targets.push(target);
      opts.onTarget?.(target.group, groups.length);
      let node: NodeTargets | undefined;
      if (withNode) {
        const started = await startEmbeddedNode(target.group, opts.runId, target.agentTls, opts.log);
        targets.push(started);
        node = started.node;
      }
      // Gates the user stated at their default are stated all the same.
      const statedGates = [...new Set([...(target.group.statedGates ?? []), ...(opts.statedGates ?? [])])];
      groups.push({ ...target.group, statedGates, node, cases: g.cases });
    }
    return { groups, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The node side of an embedded run: a mock CRI runtime (with its control socket) and the reference
 * agent on it, registered with the group's reference as node `oc-<runId>-node`; agent-exec cases
 * start the reference agent through this package's own CLI. With `agentTls` (the target's), the agent
 * serves with the certificate the reference verifies and accepts the reference's client certificate.
 */
export async function startEmbeddedNode(group: Omit<TargetGroup, 'cases'>, runId: string, agentTls?: EmbeddedAgentTls, log: LogSink = silentSink): Promise<{ node: NodeTargets; close(): Promise<void> }> {
  const [{ startMockCri }, { startAgent }, { DEFAULT_AUTH_SETTINGS }] = await Promise.all([loadMockCri(), import('../reference/agent/agent.js'), import('../reference/agent/auth/settings.js')]);
  const dir = await mkdtemp(join(tmpdir(), 'oc-node-'));
  const tlsFiles = agentTls ? await writeAgentTls(dir, agentTls) : undefined;
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), control: join(dir, 'cri', 'control.sock'), root: join(dir, 'cri-state'), seccompDir: join(dir, 'root', 'seccomp') });
  let agent;
  try {
    agent = await startAgent({
      api: { url: group.conn.baseUrl, token: group.conn.token, caPem: group.conn.caPem },
      criEndpoint: cri.criUrl,
      nodeName: `oc-${runId}-node`,
      // The agent has the group's gates, as every component of the reference does.
      featureGates: new FeatureGates(Object.fromEntries(Object.entries(group.gates).filter(([k, v]) => GATES_1_37[k]?.default !== v))),
      hostnameOverride: `oc-${runId}-node`,
      // Where it serves: the API server's node proxy reaches it there.
      nodeIP: '127.0.0.1',
      rootDir: join(dir, 'root'),
      serve: { address: '127.0.0.1', port: 0, certDir: tlsFiles?.certDir },
      ...(tlsFiles?.clientCaFile ? { auth: { ...DEFAULT_AUTH_SETTINGS, clientCaFile: tlsFiles.clientCaFile } } : {}),
      log: (m) => log(logLine('agent', m)),
    });
  } catch (err) {
    await cri.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const caPem = agentTls?.serving.caPem ?? (agent.caFile ? readFileSync(agent.caFile, 'utf8') : undefined);
  return {
    node: {
      agent: { conn: { baseUrl: agent.url!, caPem, token: group.conn.token }, nodeName: agent.nodeName },
      criControl: cri.controlPath,
      agentExec: referenceAgentCommand(),
      agentPodSocket: join(dir, 'root', 'pods', 'agent.sock'),
    },
    close: async () => {
      await agent.close();
      await cri.close();
      // The node registered for the run goes with it (its Lease follows by owner reference).
      await fetchDelete(group.conn, `/api/v1/nodes/${agent.nodeName}`);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes the agent's side of `tls` under `dir`: a cert-dir the agent reuses (agent.crt, agent.key,
 * agent-ca.crt; owner-only, as the agent keeps its own) and the client CA file, when known.
 */
export async function writeAgentTls(dir: string, tls: EmbeddedAgentTls): Promise<{ certDir: string; clientCaFile?: string }> {
  const certDir = join(dir, 'agent-pki');
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  await writeFile(join(certDir, AGENT_CERT_FILES.key), tls.serving.keyPem, { mode: 0o600 });
  await writeFile(join(certDir, AGENT_CERT_FILES.cert), tls.serving.certPem, { mode: 0o644 });
  await writeFile(join(certDir, AGENT_CERT_FILES.ca), tls.serving.caPem, { mode: 0o644 });
  if (!tls.clientCaPem) return { certDir };
  const clientCaFile = join(dir, 'agent-client-ca.crt');
  await writeFile(clientCaFile, tls.clientCaPem, { mode: 0o644 });
  return { certDir, clientCaFile };
}

async function fetchDelete(conn: TargetGroup['conn'], path: string): Promise<void> {
  const { ApiClient, createDispatcher } = await import('./client.js');
  const d = createDispatcher(conn);
  try {
    await new ApiClient(conn, d).delete(path, { timeoutMs: 5_000 }).catch(() => undefined);
  } finally {
    await d.close().catch(() => undefined);
  }
}
