// Spec 001 §2.2 node status fields and heartbeats, as the control plane stores them: what the agent
// publishes in a Node's status (addresses, conditions, capacity, allocatable, nodeInfo,
// declaredFeatures), cordoning through spec.unschedulable, and the heartbeat Lease in `node-lease`.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectObject, expectTrue, SUCCESS, expectRefused } from '../verify.js';
import { createObject, itemPath, newObject, postObject } from '../000-control-plane/kinds.js';
import { LEASE, NODE, T0, T1, agentCommon, putEdited, putStatus } from './kinds.js';

const nodeCase = (level: 'MUST' | 'SHOULD') => ({ ...agentCommon(NODE, 'node-status'), level });
const leaseCase = (level: 'MUST' | 'SHOULD') => ({ ...agentCommon(LEASE, 'node-status'), level });

/** Creates a Node, writes `status` through /status and gives back the response. */
async function nodeWithStatus(ctx: CaseContext, status: unknown) {
  const node = await createObject(ctx, NODE, {}, 'node');
  return { node, res: await putStatus(ctx, NODE, node, status) };
}

/** Writes a valid `status` and returns what is read back from the Node afterwards. */
async function storedStatus(ctx: CaseContext, status: unknown, what: string): Promise<any> {
  const { node, res } = await nodeWithStatus(ctx, status);
  expectObject(res, SUCCESS.replace, 'Node', `PUT status with ${what}`);
  const got = expectObject(await ctx.api.get(itemPath(NODE, '', node.metadata.name)), [200], 'Node', 'read the Node back');
  return got.status ?? {};
}

const condition = (type: string, status: string) => ({ type, status, reason: `Conformance${type}`, message: `${type} is ${status}`, lastHeartbeatTime: T1, lastTransitionTime: T0 });

export const nodeStatusCases: Case[] = [
  // ---- Node
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.addresses.round-trip',
    title: 'Node status addresses of type HostName, ExternalIP and InternalIP are stored',
    requirements: ['001-2.2-addresses'],
    async run(ctx) {
      const addresses = [
        { type: 'InternalIP', address: '10.0.0.7' },
        { type: 'ExternalIP', address: '203.0.113.7' },
        { type: 'HostName', address: 'worker-7' },
      ];
      const st = await storedStatus(ctx, { addresses }, 'three addresses');
      expectEqual(st.addresses, addresses, 'status.addresses read back');
    },
  }),
  defineCase({
    ...nodeCase('SHOULD'),
    id: 'api.node.status.addresses.type-unsupported',
    title: 'A node address of an unknown type is rejected',
    requirements: ['001-2.2-address-types'],
    async run(ctx) {
      const { res } = await nodeWithStatus(ctx, { addresses: [{ type: 'PublicIP', address: '203.0.113.7' }] });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.addresses[0].type', reason: 'FieldValueNotSupported' }] }, 'PUT status with address type PublicIP');
    },
  }),
  defineCase({
    ...nodeCase('SHOULD'),
    id: 'api.node.status.addresses.duplicate',
    title: 'A node status listing the same address twice is rejected',
    requirements: ['001-2.2-address-unique'],
    async run(ctx) {
      const a = { type: 'InternalIP', address: '10.0.0.7' };
      const { res } = await nodeWithStatus(ctx, { addresses: [a, { ...a }] });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.addresses[1]', reason: 'FieldValueDuplicate' }] }, 'PUT status with a repeated address');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.conditions.round-trip',
    title: 'Node conditions keep type, status, reason, message, lastHeartbeatTime and lastTransitionTime',
    requirements: ['001-2.2-conditions', '001-2.2-condition-entry'],
    async run(ctx) {
      const conditions = [
        condition('Ready', 'True'),
        condition('DiskPressure', 'False'),
        condition('MemoryPressure', 'False'),
        condition('PIDPressure', 'False'),
        condition('NetworkUnavailable', 'False'),
      ];
      const st = await storedStatus(ctx, { conditions }, 'the five conditions');
      expectEqual(st.conditions, conditions, 'status.conditions read back');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.conditions.status-values',
    title: 'A node condition status may be True, False or Unknown',
    requirements: ['001-2.2-condition-status-values'],
    async run(ctx) {
      const conditions = [condition('Ready', 'Unknown'), condition('DiskPressure', 'True'), condition('MemoryPressure', 'False')];
      const st = await storedStatus(ctx, { conditions }, 'statuses Unknown, True and False');
      expectEqual((st.conditions ?? []).map((c: any) => c?.status), ['Unknown', 'True', 'False'], 'condition statuses read back');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.conditions.status-unsupported',
    upstreamShape: true,
    title: 'A node condition status other than True, False, Unknown is rejected',
    requirements: ['001-2.2-condition-status-values'],
    async run(ctx) {
      const { res } = await nodeWithStatus(ctx, { conditions: [condition('Ready', 'Maybe')] });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.conditions[0].status', reason: 'FieldValueNotSupported' }] }, 'PUT status with condition status "Maybe"');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.capacity-allocatable.round-trip',
    title: 'Node capacity and allocatable (cpu, memory, pods) are stored as quantities',
    requirements: ['001-2.2-capacity', '001-2.2-allocatable'],
    async run(ctx) {
      const capacity = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
      const allocatable = { cpu: '7500m', memory: '30Gi', pods: '110', 'ephemeral-storage': '90Gi' };
      const st = await storedStatus(ctx, { capacity, allocatable }, 'capacity and allocatable');
      expectEqual(st.capacity, capacity, 'status.capacity read back');
      expectEqual(st.allocatable, allocatable, 'status.allocatable read back');
    },
  }),
  defineCase({
    ...nodeCase('SHOULD'),
    id: 'api.node.status.capacity.negative',
    title: 'A negative node capacity is rejected',
    requirements: ['001-2.2-resources-non-negative'],
    async run(ctx) {
      const { res } = await nodeWithStatus(ctx, { capacity: { cpu: '4', memory: '-1Gi' }, allocatable: { cpu: '4', memory: '1Gi' } });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.capacity.memory', reason: 'FieldValueInvalid' }] }, 'PUT status with capacity memory -1Gi');
    },
  }),
  defineCase({
    ...nodeCase('SHOULD'),
    id: 'api.node.status.allocatable.negative',
    title: 'A negative node allocatable is rejected',
    requirements: ['001-2.2-resources-non-negative'],
    async run(ctx) {
      const { res } = await nodeWithStatus(ctx, { capacity: { cpu: '4' }, allocatable: { cpu: '-500m' } });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.allocatable.cpu', reason: 'FieldValueInvalid' }] }, 'PUT status with allocatable cpu -500m');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.node-info.round-trip',
    title: 'Node info (kernel, agent and proxy versions, runtime, operating system) is stored',
    requirements: ['001-2.2-info'],
    async run(ctx) {
      const nodeInfo = {
        machineID: 'b7a0f1e2c3d4', systemUUID: '4c4c4544-0042-3010-8052-b4c04f4e4a32', bootID: '2f1e0d9c-8b7a-4655-9443-322110ffeedd',
        kernelVersion: '6.8.0-45-generic', osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://2.0.0',
        agentVersion: 'v1.37.0', kubeProxyVersion: 'v1.37.0', operatingSystem: 'linux', architecture: 'amd64',
      };
      const st = await storedStatus(ctx, { nodeInfo }, 'nodeInfo');
      expectEqual(st.nodeInfo, nodeInfo, 'status.nodeInfo read back');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.status.declared-features.round-trip',
    title: 'status.declaredFeatures is a list of strings, stored as given',
    requirements: ['001-2.2-declared-features'],
    async run(ctx) {
      const declaredFeatures = ['GuaranteedQoSPodCPUResize', 'PodLevelResources'];
      const st = await storedStatus(ctx, { declaredFeatures }, 'declaredFeatures');
      expectEqual(st.declaredFeatures, declaredFeatures, 'status.declaredFeatures read back');
    },
  }),
  defineCase({
    ...nodeCase('MUST'),
    id: 'api.node.spec.unschedulable.cordon',
    title: 'Cordoning marks spec.unschedulable, not a SchedulingDisabled condition',
    requirements: ['001-2.2-cordoned-unschedulable', '001-2.2-scheduling-disabled-not-condition'],
    async run(ctx) {
      const node = await createObject(ctx, NODE, { spec: { taints: [{ key: 'conformance.orch.io/not-a-node', effect: 'NoSchedule' }] } });
      expectTrue(node.spec?.unschedulable !== true, 'a Node created without spec.unschedulable is schedulable', 'unschedulable absent or false', node.spec);
      const cordoned = { ...node, spec: { ...node.spec, unschedulable: true } };
      const put = expectObject(await ctx.api.put(itemPath(NODE, '', node.metadata.name), cordoned), SUCCESS.replace, 'Node', 'PUT with spec.unschedulable true');
      expectEqual(put.spec?.unschedulable, true, 'spec.unschedulable after cordoning');
      const got = expectObject(await ctx.api.get(itemPath(NODE, '', node.metadata.name)), [200], 'Node', 'read back');
      expectEqual(got.spec?.unschedulable, true, 'spec.unschedulable read back');
      const types = (got.status?.conditions ?? []).map((c: any) => c?.type);
      expectTrue(!types.includes('SchedulingDisabled'), 'no SchedulingDisabled condition in the API', 'no condition of type SchedulingDisabled', types);
    },
  }),
  defineCase({
    ...nodeCase('SHOULD'),
    id: 'api.node.status.subresource',
    title: 'Node status is written through /status (spec kept there); the main resource keeps the status; a created Node keeps its status',
    requirements: ['001-2.2-node-status-subresource'],
    async run(ctx) {
      const initial = NODE.status!(ctx);
      const node = expectObject(await postObject(ctx, NODE, newObject(ctx, NODE, { status: initial })), SUCCESS.create, 'Node', 'create a Node with status (as the agent registers it)');
      expectEqual(node.status?.capacity, initial['capacity'], 'status.capacity of the created Node');
      // Built from the latest read: the node lifecycle controller may taint the new Node meanwhile.
      const item = itemPath(NODE, '', node.metadata.name);
      const viaStatus = (o: any) => ({ ...o, spec: { ...o.spec, unschedulable: false }, status: { ...o.status, declaredFeatures: ['ViaStatus'] } });
      const s = expectObject(await putEdited(ctx, item, `${item}/status`, node, viaStatus), SUCCESS.replace, 'Node', 'PUT /status changing status and spec');
      expectEqual(s.status?.declaredFeatures, ['ViaStatus'], 'status changed through /status');
      expectEqual(s.spec?.unschedulable, true, 'spec.unschedulable after a /status write that tried to change it');
      const viaMain = (o: any) => ({ ...o, status: { ...o.status, declaredFeatures: ['ViaMain'] } });
      const m = expectObject(await putEdited(ctx, item, item, s, viaMain), SUCCESS.replace, 'Node', 'PUT to the main resource changing status');
      expectEqual(m.status?.declaredFeatures, ['ViaStatus'], 'status after a main-resource write that tried to change it');
    },
  }),

  // ---- Lease
  defineCase({
    ...leaseCase('MUST'),
    id: 'api.lease.node-lease.heartbeat',
    title: 'The node-lease namespace exists and holds a node\'s Lease, whose renewTime a heartbeat updates',
    requirements: ['001-2.2-heartbeats'],
    async run(ctx) {
      expectObject(await ctx.api.get('/api/v1/namespaces/node-lease'), [200], 'Namespace', 'GET the node-lease namespace');
      const node = ctx.uniqueName('node');
      const body = { ...newObject(ctx, LEASE), metadata: { name: node, namespace: 'node-lease', labels: { ...ctx.labels } } };
      body.spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: '2025-01-01T00:00:00.000000Z' };
      const path = itemPath(LEASE, 'node-lease', node);
      ctx.track(path);
      const lease = expectObject(await ctx.api.post(path.slice(0, path.lastIndexOf('/')), body), SUCCESS.create, 'Lease', 'create the node\'s Lease in node-lease');
      const renewed = { ...lease, spec: { ...lease.spec, renewTime: '2025-01-01T00:00:10.000000Z' } };
      expectObject(await ctx.api.put(path, renewed), SUCCESS.replace, 'Lease', 'renew the Lease');
      const got = expectObject(await ctx.api.get(path), [200], 'Lease', 'read the Lease back');
      expectEqual(got.spec?.renewTime, '2025-01-01T00:00:10.000000Z', 'spec.renewTime after the heartbeat');
      expectEqual(got.spec?.holderIdentity, node, 'spec.holderIdentity');
    },
  }),
  defineCase({
    ...leaseCase('SHOULD'),
    id: 'api.lease.spec.round-trip',
    title: 'Lease spec fields are stored; acquireTime and renewTime keep microseconds',
    requirements: ['001-2.2-lease-object'],
    async run(ctx) {
      const spec = {
        holderIdentity: 'worker-7', leaseDurationSeconds: 40, acquireTime: '2025-01-01T00:00:00.123456Z',
        renewTime: '2025-01-01T00:00:30.654321Z', leaseTransitions: 3, strategy: 'OldestEmulationVersion', preferredHolder: 'worker-8',
      };
      const lease = await createObject(ctx, LEASE, { spec });
      const got = expectObject(await ctx.api.get(itemPath(LEASE, ctx.namespace, lease.metadata.name)), [200], 'Lease', 'read back');
      expectEqual(got.spec, spec, 'spec read back');
    },
  }),
  defineCase({
    ...leaseCase('SHOULD'),
    id: 'api.lease.lease-duration.positive',
    title: 'A leaseDurationSeconds of 0 is rejected',
    requirements: ['001-2.2-lease-duration-positive'],
    async run(ctx) {
      const res = await postObject(ctx, LEASE, newObject(ctx, LEASE, { spec: { holderIdentity: 'worker-7', leaseDurationSeconds: 0 } }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec.leaseDurationSeconds', reason: 'FieldValueInvalid' }] }, 'create with leaseDurationSeconds 0');
    },
  }),
  defineCase({
    ...leaseCase('SHOULD'),
    id: 'api.lease.lease-transitions.non-negative',
    title: 'A negative leaseTransitions is rejected',
    requirements: ['001-2.2-lease-transitions-non-negative'],
    async run(ctx) {
      const res = await postObject(ctx, LEASE, newObject(ctx, LEASE, { spec: { holderIdentity: 'worker-7', leaseTransitions: -1 } }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec.leaseTransitions', reason: 'FieldValueInvalid' }] }, 'create with leaseTransitions -1');
    },
  }),
  defineCase({
    ...leaseCase('SHOULD'),
    id: 'api.lease.strategy.unsupported',
    title: 'An unknown bare lease strategy is rejected',
    requirements: ['001-2.2-lease-strategy'],
    async run(ctx) {
      const res = await postObject(ctx, LEASE, newObject(ctx, LEASE, { spec: { holderIdentity: 'worker-7', strategy: 'NewestFirst' } }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec.strategy', reason: 'FieldValueNotSupported' }] }, 'create with strategy NewestFirst');
    },
  }),
  defineCase({
    ...leaseCase('SHOULD'),
    id: 'api.lease.preferred-holder.needs-strategy',
    title: 'preferredHolder without strategy is rejected',
    requirements: ['001-2.2-lease-strategy'],
    async run(ctx) {
      const res = await postObject(ctx, LEASE, newObject(ctx, LEASE, { spec: { holderIdentity: 'worker-7', preferredHolder: 'worker-8' } }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec.preferredHolder', reason: 'FieldValueForbidden' }] }, 'create with preferredHolder and no strategy');
    },
  }),
];
