// Spec 001 §2.2 and §3, observed on an agent: what it publishes in its Node's status (addresses,
// conditions, capacity, allocatable, nodeInfo, declaredFeatures), its heartbeat Lease in `node-lease`,
// that cordoning stays in the spec, and the Ready and pressure conditions it reports. Read cases look
// at the shared agent's Node; node-wide changes (runtime not ready, cordoning) use an agent the case
// launches, with its own runtime.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { GATES_1_37 } from '../../runner/gates.js';
import { loadCriClient, type LaunchedAgent } from '../../runner/agent-exec.js';
import { expectTrue, fail, show } from '../verify.js';
import { agentCase, nodePath } from './agent-kit.js';
import { expectStarts } from './agent-exec-kit.js';
import { agentEndpointCases } from './agent-endpoints.js';
import { agentConditionCases } from './agent-3-conditions.js';
import { agentNode, condition, launchedReady, leasePath, nodeWhen, objectWhen, quantity, readyView, runtimeNotReady } from './agent-node-kit.js';

/** Upstream writes the HostName type as `Hostname` on the wire (001-2.2-address-types): both count. */
const isHostName = (a: any) => a?.type === 'HostName' || a?.type === 'Hostname';
const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;
const PRESSURES = [
  { type: 'MemoryPressure', req: '001-3-condition-memory-pressure', id: 'memory-pressure' },
  { type: 'DiskPressure', req: '001-3-condition-disk-pressure', id: 'disk-pressure' },
  { type: 'PIDPressure', req: '001-3-condition-pid-pressure', id: 'pid-pressure' },
] as const;
/** An in-development gate of the agent (beta, off by default in 1.37): the agent's pod and container stats from the runtime. */
const CRI_STATS_GATE = 'PodAndContainerStatsFromCRI';
const CONDITION_TYPES = ['Ready', ...PRESSURES.map((p) => p.type)];
const RESOURCES = ['cpu', 'memory', 'pods'];
/** The condition types of a Node, for failure messages. */
const types = (n: any) => (n?.status?.conditions ?? []).map((c: any) => c?.type);

/** Cordons a launched agent's Node, then makes its runtime not ready so that the agent must write its status again. */
async function cordonAndResync(ctx: CaseContext, launched: LaunchedAgent): Promise<any> {
  const nodeName = launched.nodeName;
  const res = await ctx.api.request('PATCH', nodePath(nodeName), { body: { spec: { unschedulable: true } }, headers: { 'content-type': 'application/merge-patch+json' } });
  if (res.status !== 200) fail('cordon the launched agent\'s Node (merge patch spec.unschedulable=true)', 'HTTP 200', `HTTP ${res.status} ${res.text.slice(0, 300)}`);
  // Ready False is a status write the agent made after the cordon.
  return runtimeNotReady(ctx, launched, 'after the cordon, the agent writes its status again (its runtime was made not ready)');
}

export const agentNodeStatusCases: Case[] = [
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.addresses',
    title: 'The agent publishes a HostName address and an IP address (InternalIP or ExternalIP) in its Node\'s status',
    requirements: ['001-2.2-addresses'],
    async run(ctx) {
      const ok = (n: any) => {
        const a: any[] = n?.status?.addresses ?? [];
        return a.some((x) => isHostName(x) && nonEmpty(x.address)) && a.some((x) => (x?.type === 'InternalIP' || x?.type === 'ExternalIP') && nonEmpty(x.address));
      };
      await agentNode(ctx, ok, 'the agent\'s Node lists its addresses', 'status.addresses with a HostName entry and an InternalIP or ExternalIP entry, each with an address', (n) => n?.status?.addresses);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.hostname-override',
    title: 'An agent started with --hostname-override publishes that name as its HostName address',
    requirements: ['001-2.2-hostname-override'],
    async run(ctx) {
      // The launcher passes --hostname-override <node name>: a name unique to the case, not the machine's.
      const launched = await ctx.agents.launch();
      await nodeWhen(ctx, launched.nodeName, (n) => (n?.status?.addresses ?? []).some((a: any) => isHostName(a) && a.address === launched.nodeName),
        'the launched agent\'s HostName address is the --hostname-override value', `a HostName address ${show(launched.nodeName)}`, (n) => n?.status?.addresses, 15_000);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.conditions.types',
    title: 'The agent\'s Node status has the conditions Ready, MemoryPressure, DiskPressure and PIDPressure',
    requirements: ['001-2.2-conditions'],
    async run(ctx) {
      await agentNode(ctx, (n) => CONDITION_TYPES.every((t) => condition(n, t)), 'the agent publishes its node conditions', `status.conditions with the types ${CONDITION_TYPES.join(', ')}`, types);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.conditions.entry',
    title: 'Each node condition the agent publishes has type, status (True, False or Unknown), reason, message, lastHeartbeatTime and lastTransitionTime',
    requirements: ['001-2.2-condition-entry', '001-2.2-condition-status-values'],
    async run(ctx) {
      const node = await agentNode(ctx, (n) => (n?.status?.conditions ?? []).length > 0, 'the agent publishes node conditions', 'a non-empty status.conditions', (n) => n?.status?.conditions);
      const isTime = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
      for (const c of node.status.conditions) {
        const good = nonEmpty(c?.type) && ['True', 'False', 'Unknown'].includes(c?.status) && typeof c?.reason === 'string' && typeof c?.message === 'string'
          && isTime(c?.lastHeartbeatTime) && isTime(c?.lastTransitionTime);
        expectTrue(good, `node condition ${show(c?.type)} has every field of a condition entry`,
          'type, status True/False/Unknown, reason and message (strings), lastHeartbeatTime and lastTransitionTime (timestamps)', c);
      }
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.capacity',
    title: 'The agent publishes its node\'s capacity: cpu, memory and pods, as positive quantities',
    requirements: ['001-2.2-capacity'],
    async run(ctx) {
      const positive = (n: any) => RESOURCES.every((r) => (quantity(n?.status?.capacity?.[r]) ?? 0) > 0);
      await agentNode(ctx, positive, 'the agent publishes its capacity', `status.capacity with ${RESOURCES.join(', ')} each a quantity above 0`, (n) => n?.status?.capacity);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.allocatable',
    title: 'The agent publishes allocatable cpu, memory and pods, none above its capacity',
    requirements: ['001-2.2-allocatable'],
    async run(ctx) {
      const node = await agentNode(ctx, (n) => RESOURCES.every((r) => n?.status?.allocatable?.[r] !== undefined), 'the agent publishes its allocatable resources', `status.allocatable with ${RESOURCES.join(', ')}`, (n) => n?.status?.allocatable);
      const { capacity = {}, allocatable } = node.status;
      for (const [r, v] of Object.entries<unknown>(allocatable)) {
        const a = quantity(v);
        const c = quantity(capacity[r]);
        expectTrue(a !== undefined && a >= 0, `allocatable ${r} is a quantity`, 'a quantity not below 0', show(v));
        // What is available to ordinary pods is part of the total.
        if (c !== undefined) expectTrue(a! <= c, `allocatable ${r} is not above capacity ${r}`, `at most ${show(capacity[r])}`, show(v));
      }
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.info',
    title: 'The agent publishes nodeInfo: kernel version, OS image, operating system, architecture, agent version and container runtime version',
    requirements: ['001-2.2-info'],
    async run(ctx) {
      // The proxy version is not asked for: upstream leaves it empty (the proxy need not run).
      const fields = ['kernelVersion', 'osImage', 'operatingSystem', 'architecture', 'agentVersion', 'containerRuntimeVersion'];
      const node = await agentNode(ctx, (n) => n?.status?.nodeInfo !== undefined, 'the agent publishes nodeInfo', 'status.nodeInfo', (n) => n?.status);
      const missing = fields.filter((f) => !nonEmpty(node.status.nodeInfo[f]));
      expectTrue(missing.length === 0, 'status.nodeInfo has the general information the agent collects', `non-empty ${fields.join(', ')}`, `missing or empty: ${missing.join(', ')} in ${show(node.status.nodeInfo)}`);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.info.runtime-version',
    title: 'nodeInfo.containerRuntimeVersion names the runtime the agent uses and its version, as the runtime\'s CRI Version answers them',
    requirements: ['001-2.2-info'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      // Ask the launched runtime itself, as any CRI client would.
      const { criClient } = await loadCriClient();
      const cri = criClient(launched.cri.criUrl);
      const v: any = await cri.call('Version', {}, { deadlineMs: 5_000 }).finally(() => cri.close());
      const node = await nodeWhen(ctx, launched.nodeName, (n) => n?.status?.nodeInfo !== undefined, 'the launched agent publishes nodeInfo', 'status.nodeInfo', (n) => n?.status, 15_000);
      const got = node.status.nodeInfo.containerRuntimeVersion;
      // Upstream writes `<name>://<version>`; any text naming both is the runtime's details.
      expectTrue(typeof got === 'string' && got.includes(v.runtime_name) && got.includes(v.runtime_version),
        'nodeInfo.containerRuntimeVersion gives the runtime\'s name and version', `text with ${show(v.runtime_name)} and ${show(v.runtime_version)} (e.g. ${show(`${v.runtime_name}://${v.runtime_version}`)})`, show(got));
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.node.declared-features.no-baseline',
    title: 'status.declaredFeatures, when present, is a list of strings naming no completed (GA) feature',
    requirements: ['001-2.2-declared-features-no-baseline'],
    async run(ctx) {
      const node = await agentNode(ctx, (n) => n?.status?.nodeInfo !== undefined, 'the agent publishes its status', 'status.nodeInfo');
      const declared = node.status.declaredFeatures;
      if (declared === undefined) return; // no feature in development is enabled: nothing to list
      expectTrue(Array.isArray(declared) && declared.every((f: unknown) => typeof f === 'string'), 'status.declaredFeatures is a list of strings', 'an array of strings', declared);
      const ga = declared.filter((f: string) => GATES_1_37[f]?.stage === 'GA');
      expectTrue(ga.length === 0, 'status.declaredFeatures lists no completed (GA, baseline) feature', 'no GA feature of release 1.37', `GA features listed: ${show(ga)}`);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.declared-features.enabled-only',
    title: 'status.declaredFeatures lists only features enabled on the agent: none whose gate is off',
    requirements: ['001-2.2-declared-features'],
    async run(ctx) {
      // An agent of the case's own, started with the 1.37 defaults: a gate off by default is off there.
      const launched = await ctx.agents.launch();
      const node = await launchedReady(ctx, launched);
      const declared = node.status.declaredFeatures ?? [];
      expectTrue(Array.isArray(declared) && declared.every((f: unknown) => typeof f === 'string'), 'status.declaredFeatures is a list of strings', 'an array of strings', declared);
      // Names that are not gates may be feature names of the agent's own: only gate names can be judged.
      const off = declared.filter((f: string) => GATES_1_37[f] && !GATES_1_37[f]!.default);
      expectTrue(off.length === 0, 'status.declaredFeatures names only features enabled through the agent\'s feature gates', 'no feature whose gate is off (default false in 1.37, not set)', `listed with their gate off: ${show(off)}`);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.declared-features.enabled-listed',
    title: `status.declaredFeatures lists a feature in development once its gate is turned on: an agent given --feature-gates ${CRI_STATS_GATE}=true declares ${CRI_STATS_GATE}`,
    requirements: ['001-2.2-declared-features'],
    async run(ctx) {
      // A gate of the agent's own (spec 002: "enabled on the agent"), beta and off by default in 1.37.
      const launched = await ctx.agents.launch({ args: ['--feature-gates', `${CRI_STATS_GATE}=true`] });
      const node = await launchedReady(ctx, launched);
      const declared = node.status.declaredFeatures;
      expectTrue(Array.isArray(declared) && declared.includes(CRI_STATS_GATE), `status.declaredFeatures of an agent with ${CRI_STATS_GATE} on`,
        `a list naming ${show(CRI_STATS_GATE)} (a feature under active development, enabled through the agent's feature gates)`, show(declared ?? 'no declaredFeatures'));
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.declared-features.locked-gate-ignored',
    title: 'The NodeDeclaredFeatures gate is locked and ignored if set: an agent given NodeDeclaredFeatures=false starts and declares what one without it declares',
    requirements: ['001-2.2-declared-features-ga'],
    async run(ctx) {
      const plain = await ctx.agents.launch();
      const set = await expectStarts(ctx, { controlPlane: true, args: ['--feature-gates', 'NodeDeclaredFeatures=false'] }, 'an agent given --feature-gates NodeDeclaredFeatures=false (a locked gate)');
      const [a, b] = await Promise.all([launchedReady(ctx, plain), launchedReady(ctx, set)]);
      const sorted = (n: any) => [...(n?.status?.declaredFeatures ?? [])].sort();
      expectTrue(JSON.stringify(sorted(b)) === JSON.stringify(sorted(a)), 'the gate set against its lock changes nothing the agent declares',
        `status.declaredFeatures ${show(sorted(a))}, as without the gate set`, show(b?.status?.declaredFeatures ?? 'no declaredFeatures'));
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'read'),
    id: 'agent.lease.renewed',
    title: 'The agent keeps a Lease named after its node in namespace node-lease and renews it (renewTime advances within 22 s)',
    requirements: ['001-2.2-heartbeats', '001-2.2-agent-status-and-lease'],
    async run(ctx) {
      const path = leasePath(ctx.agent().nodeName);
      const first = await objectWhen(ctx, path, (l) => nonEmpty(l?.spec?.renewTime), 'the agent\'s Lease exists in node-lease', 'a Lease with spec.renewTime', (l) => l?.spec, 10_000);
      const t0 = first.spec.renewTime as string;
      // Renewal intervals are not in the spec; upstream renews every 10 s (a quarter of 40 s).
      await objectWhen(ctx, path, (l) => nonEmpty(l?.spec?.renewTime) && l.spec.renewTime !== t0 && Date.parse(l.spec.renewTime) >= Date.parse(t0),
        'the agent renews its Lease', `spec.renewTime later than ${t0}`, (l) => l?.spec, 22_000);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'SHOULD', 'read'),
    id: 'agent.lease.object',
    title: 'The node Lease holds the node\'s name as holderIdentity, a positive leaseDurationSeconds and a renewTime',
    requirements: ['001-2.2-lease-object'],
    async run(ctx) {
      const name = ctx.agent().nodeName;
      const lease = await objectWhen(ctx, leasePath(name), (l) => l?.spec !== undefined, 'the agent\'s Lease exists in node-lease', 'a Lease with a spec', (l) => l, 10_000);
      const s = lease.spec;
      expectTrue(s.holderIdentity === name && Number.isInteger(s.leaseDurationSeconds) && s.leaseDurationSeconds > 0 && nonEmpty(s.renewTime) && !Number.isNaN(Date.parse(s.renewTime)),
        'the node Lease\'s spec', `holderIdentity ${show(name)}, leaseDurationSeconds an integer above 0, renewTime a timestamp`, s);
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.cordon.no-scheduling-disabled-condition',
    title: 'A cordoned node gets no SchedulingDisabled condition from its agent',
    requirements: ['001-2.2-scheduling-disabled-not-condition'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      await launchedReady(ctx, launched);
      const node = await cordonAndResync(ctx, launched);
      const has = types(node);
      expectTrue(!has.includes('SchedulingDisabled'), 'the cordoned node\'s conditions after the agent wrote them', 'no SchedulingDisabled condition (it is a listing, not an API condition)', show(has));
    },
  }),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.cordon.stays-unschedulable',
    title: 'A cordoned node stays marked unschedulable in its spec while its agent updates its status',
    requirements: ['001-2.2-cordoned-unschedulable'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      await launchedReady(ctx, launched);
      await cordonAndResync(ctx, launched);
      const res = await ctx.api.get(nodePath(launched.nodeName));
      expectTrue(res.json?.spec?.unschedulable === true, 'the cordoned node\'s spec after its agent wrote its status', 'spec.unschedulable true', res.json?.spec);
    },
  }),
  defineCase({
    ...agentCase('3', 'MUST', 'read'),
    id: 'agent.conditions.ready-true',
    title: 'A healthy agent (its runtime ready) reports the node condition Ready True',
    requirements: ['001-3-condition-ready'],
    async run(ctx) {
      await agentNode(ctx, (n) => condition(n, 'Ready')?.status === 'True', 'the healthy agent reports its node ready', 'condition Ready with status True', readyView);
    },
  }),
  defineCase({
    ...agentCase('3', 'MUST', 'exec'),
    id: 'agent.conditions.ready-false-runtime-not-ready',
    title: 'When the runtime reports RuntimeReady false, the agent reports the node condition Ready False',
    requirements: ['001-3-condition-ready'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      await launchedReady(ctx, launched);
      await runtimeNotReady(ctx, launched, 'the agent reports its node not ready once the runtime is not');
    },
  }),
  // The machine's real pressure is unknown to the case, so only the states the spec allows are
  // checked: True or False, never Unknown ("n/a" in the table).
  ...PRESSURES.map((p) => defineCase({
    ...agentCase('3', 'MUST', 'read'),
    id: `agent.conditions.${p.id}`,
    title: `The agent reports the node condition ${p.type} as True or False (never Unknown)`,
    requirements: [p.req],
    async run(ctx: CaseContext) {
      const node = await agentNode(ctx, (n) => condition(n, p.type) !== undefined, `the agent reports ${p.type}`, `a ${p.type} condition`, types);
      const c = condition(node, p.type);
      expectTrue(c.status === 'True' || c.status === 'False', `the ${p.type} condition's status`, 'True or False', c);
    },
  })),
  defineCase({
    ...agentCase('3', 'MUST', 'read'),
    id: 'agent.conditions.network-unavailable',
    title: 'NetworkUnavailable, when the node has it, is True or False (never Unknown)',
    requirements: ['001-3-condition-network-unavailable'],
    async run(ctx) {
      // The network plugin or cloud provider usually sets it, not the agent: absent is fine.
      const node = await agentNode(ctx, (n) => condition(n, 'Ready') !== undefined, 'the agent publishes its node conditions', 'a Ready condition', types);
      const c = condition(node, 'NetworkUnavailable');
      if (c) expectTrue(c.status === 'True' || c.status === 'False', 'the NetworkUnavailable condition\'s status', 'True or False', c);
    },
  }),
  ...agentConditionCases,
  ...agentEndpointCases,
];
