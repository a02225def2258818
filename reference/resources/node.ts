// Node, core v1, cluster-scoped, with a status subresource: what the node agent publishes (spec 001
// §2.2: addresses, conditions, capacity, allocatable, info, declaredFeatures; spec.unschedulable for
// cordoning). Field rules follow upstream pkg/apis/core/validation ValidateNode/ValidateNodeUpdate,
// plus the value sets the spec names (condition status True/False/Unknown, address types).
// Also the timestamp helpers Pod and Lease share: metav1.Time (seconds) and MicroTime (microseconds).
import { fieldErrors, isQualifiedName, isValidLabelValue, path, type FieldError, type FieldPath } from '../apiserver/field-errors.js';
import { normalizeQuantity, parseQuantityJSON } from '../apiserver/quantity.js';
import { t, type Schema } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';

// ---- Timestamps ----

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function parseRFC3339(s: string): { ms: number; frac: string } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, frac = '', , sign, oh, om] = m;
  const fields = [y, mo, d, h, mi, se].map(Number) as [number, number, number, number, number, number];
  const [Y, M, D, H, Mi, S] = fields;
  if (M < 1 || M > 12 || D < 1 || D > 31 || H > 23 || Mi > 59 || S > 59) return undefined;
  let ms = Date.UTC(Y, M - 1, D, H, Mi, S);
  if (new Date(ms).getUTCDate() !== D) return undefined;
  if (sign) ms -= (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return { ms, frac };
}

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '');

/** metav1.Time as upstream writes it back: UTC, whole seconds. Unparsable values stay as sent. */
export function normalizeTime(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const p = parseRFC3339(v);
  return p ? `${isoSeconds(p.ms)}Z` : v;
}

/** metav1.MicroTime as upstream writes it back: UTC with six fractional digits. */
export function normalizeMicroTime(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const p = parseRFC3339(v);
  return p ? `${isoSeconds(p.ms)}.${(p.frac + '000000').slice(0, 6)}Z` : v;
}

export const TIME_FORMAT_ERROR = 'must be an RFC 3339 date-time, e.g. 2006-01-02T15:04:05Z';

/** A timestamp field that is set must parse (upstream fails the decode; here a 422 cause). */
export function validateTime(v: unknown, at: FieldPath | string): FieldError[] {
  return v === undefined || (typeof v === 'string' && parseRFC3339(v)) ? [] : [fieldErrors.invalid(at, v, TIME_FORMAT_ERROR)];
}

// ---- Quantities (reference/apiserver/quantity.ts does the parsing and printing) ----

/** The sign of a quantity (-1, 0, 1), or undefined when it does not parse. */
export function quantitySign(q: unknown): number | undefined {
  const r = parseQuantityJSON(q);
  return r.ok ? r.quantity.sign() : undefined;
}

/** The value of a quantity in thousandths (enough to compare requests with limits), or undefined. */
export function quantityMilli(q: unknown): bigint | undefined {
  const r = parseQuantityJSON(q);
  return r.ok ? r.quantity.milliValue() : undefined;
}

/** Upstream ValidateResourceQuantityValue (the non-negative part), plus the parse it implies. */
export function validateQuantityValue(q: unknown, at: FieldPath): FieldError[] {
  const r = parseQuantityJSON(q);
  if (!r.ok) return [fieldErrors.invalid(at, q, r.error)];
  return r.quantity.sign() < 0 ? [fieldErrors.invalid(at, r.quantity.toString(), 'must be greater than or equal to 0')] : [];
}

/** A resource list written back as upstream serializes it: every value a quantity string. */
export function normalizeResourceList(list: Record<string, unknown> | undefined): void {
  if (!list) return;
  for (const k of Object.keys(list)) {
    const q = normalizeQuantity(list[k]);
    if (q !== undefined) list[k] = q;
  }
}

export const resourceListSchema: Schema = t.map(t.any('A quantity.'), 'Amounts per resource name (quantities).');

// ---- Node ----

// The spec writes `HostName`; upstream's wire value is `Hostname`: both are accepted.
export const NODE_ADDRESS_TYPES = ['Hostname', 'HostName', 'ExternalIP', 'InternalIP', 'InternalDNS', 'ExternalDNS'] as const;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string;
}

interface NodeCondition {
  type?: string;
  status?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface Node extends ApiObject {
  spec?: { podCIDR?: string; podCIDRs?: string[]; providerID?: string; unschedulable?: boolean; taints?: Taint[] };
  status?: {
    capacity?: Record<string, unknown>;
    allocatable?: Record<string, unknown>;
    conditions?: NodeCondition[];
    addresses?: Array<{ type?: string; address?: string }>;
    declaredFeatures?: string[];
  };
}

export const nodeStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Node',
  resource: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  // Upstream: metadata.name and spec.unschedulable (a bool, "false" when unset).
  fieldSelectors: { 'spec.unschedulable': fieldAt('spec.unschedulable', 'false') },
  hasStatus: true,
  // The node proxy (apiserver/node-proxy.ts), listed as upstream lists it: GET, POST, PUT, PATCH and
  // DELETE map to these verbs (HEAD and OPTIONS to get and create).
  connectSubresources: { proxy: { kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] } },
  // Upstream's node registry does not return the deleted object.
  deleteResponse: 'status',
  // Upstream core/v1 tags: podCIDRs merge as a set, conditions on type, addresses on type (atomic for apply).
  patchStrategies: {
    'spec.podCIDRs': { strategy: 'merge', listType: 'set' },
    'status.conditions': { strategy: 'merge', mergeKey: 'type' },
    'status.addresses': { strategy: 'merge', mergeKey: 'type', listType: 'atomic' },
  },
  description: 'A machine that runs pods, registered and kept up to date by its node agent (status and heartbeats).',
  schema: {
    spec: t.object(
      {
        podCIDR: t.string('IP range of the pods on the node; the first entry of podCIDRs.'),
        podCIDRs: t.array(t.string(), 'IP ranges of the pods on the node, at most one per IP family. Set once.'),
        providerID: t.string('ID of the node in its cloud provider (<provider>://<id>). Set once.'),
        unschedulable: t.boolean('Whether new pods are kept off the node: a cordoned node is marked unschedulable in its spec.'),
        taints: t.array(
          t.object(
            {
              key: t.string('Taint key (a qualified name).'),
              value: t.string('Taint value (a label value).'),
              effect: t.string('What happens to pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute.'),
              timeAdded: t.string('When a NoExecute taint was added.'),
            },
            'A taint: pods that do not tolerate it are kept off (or evicted from) the node.',
            ['key', 'effect'],
          ),
          'Taints of the node; no two share key and effect.',
        ),
        configSource: t.any('Deprecated: no longer used.'),
        externalID: t.string('Deprecated: no longer used.'),
      },
      'Desired state of the node.',
    ),
    status: t.object(
      {
        capacity: t.describe(resourceListSchema, 'Total resources of the node: CPU, memory, maximum number of pods.'),
        allocatable: t.describe(resourceListSchema, 'Amount available to ordinary pods. Defaults to capacity.'),
        phase: t.string('Deprecated: not set.'),
        conditions: t.array(
          t.object(
            {
              type: t.string('Ready, DiskPressure, MemoryPressure, PIDPressure or NetworkUnavailable.'),
              status: t.string('`True`, `False` or `Unknown`.'),
              lastHeartbeatTime: t.string('Last time the agent reported the condition (timestamp).'),
              lastTransitionTime: t.string('Last time the status changed (timestamp).'),
              reason: t.string('Machine-readable reason for the last transition.'),
              message: t.string('Human-readable details about the last transition.'),
            },
            'One condition of the node. Ready True means healthy and ready to accept pods; False unhealthy; Unknown that the node controller heard nothing from the node within node-monitor-grace-period (default 50 seconds). DiskPressure, MemoryPressure, PIDPressure and NetworkUnavailable are True when disk space, memory or process IDs run low or the network is misconfigured.',
            ['type', 'status'],
          ),
          'Array describing the conditions of the node (Ready, DiskPressure, MemoryPressure, PIDPressure, NetworkUnavailable). Merged on type.',
        ),
        addresses: t.array(
          t.object(
            {
              type: t.string('Hostname (also written HostName), ExternalIP, InternalIP, ExternalDNS or InternalDNS.'),
              address: t.string('The address.'),
            },
            'One address of the node.',
            ['type', 'address'],
          ),
          '`HostName` (reported by the node kernel; overridable with `--hostname-override`), `ExternalIP` (usually routable from outside the cluster), `InternalIP` (usually routable only inside the cluster); usage depends on cloud provider or hardware configuration.',
        ),
        daemonEndpoints: t.object(
          { agentEndpoint: t.object({ Port: t.integer('Port number.') }, 'Where the node agent listens.') },
          'Endpoints of the daemons on the node.',
        ),
        nodeInfo: t.object(
          {
            machineID: t.string('Machine ID of the node (/etc/machine-id).'),
            systemUUID: t.string('System UUID reported by the firmware.'),
            bootID: t.string('ID of the current boot; changes on every reboot.'),
            kernelVersion: t.string('Kernel version (uname -r).'),
            osImage: t.string('Operating system image (from /etc/os-release).'),
            containerRuntimeVersion: t.string('Container runtime name and version (<runtime>://<version>).'),
            agentVersion: t.string('Version of the node agent.'),
            kubeProxyVersion: t.string('Deprecated: version of the network proxy, not reliable.'),
            operatingSystem: t.string('Operating system (GOOS form, such as linux).'),
            architecture: t.string('CPU architecture (GOARCH form, such as amd64).'),
            swap: t.object({ capacity: t.integer('Total swap in bytes.') }, 'Swap memory of the node.'),
          },
          'General information: kernel version, service versions (agent and proxy), container runtime details, operating system; collected by the agent and published.',
        ),
        images: t.array(
          t.object(
            {
              names: t.array(t.string(), 'Names and digests the image is known by.'),
              sizeBytes: t.integer('Size of the image in bytes.'),
            },
            'One image on the node.',
          ),
          'Container images present on the node.',
        ),
        volumesInUse: t.array(t.string(), 'Volumes attached to and mounted on the node.'),
        volumesAttached: t.array(
          t.object(
            {
              name: t.string('Name of the attached volume.'),
              devicePath: t.string('Device path where the volume is available.'),
            },
            'One attached volume.',
          ),
          'Volumes attached to the node.',
        ),
        config: t.any('Status of the dynamic node configuration (deprecated).'),
        runtimeHandlers: t.array(t.any('One runtime handler and its features.'), 'Runtime handlers the container runtime offers.'),
        features: t.object(
          { supplementalGroupsPolicy: t.boolean('Whether the runtime supports the supplementalGroupsPolicy pod field.') },
          'Features the node supports.',
        ),
        declaredFeatures: t.array(
          t.string(),
          'Features under active development currently enabled through feature gates on the agent. Completed features (baseline) are not listed. Reflects service feature enablement, not the node\'s operating system or kernel.',
        ),
      },
      'Observed state of the node, published by its agent.',
    ),
  },

  defaults(o: ApiObject): void {
    const n = o as Node;
    const st = n.status;
    if (!st) return;
    normalizeResourceList(st.capacity);
    normalizeResourceList(st.allocatable);
    // Upstream defaults allocatable to capacity when the agent publishes none.
    if (st.capacity && !st.allocatable) st.allocatable = { ...st.capacity };
    for (const c of st.conditions ?? []) {
      if (c.lastHeartbeatTime !== undefined) c.lastHeartbeatTime = normalizeTime(c.lastHeartbeatTime) as string;
      if (c.lastTransitionTime !== undefined) c.lastTransitionTime = normalizeTime(c.lastTransitionTime) as string;
    }
    for (const taint of n.spec?.taints ?? []) if (taint.timeAdded !== undefined) taint.timeAdded = normalizeTime(taint.timeAdded) as string;
  },

  // The agent registers its node with status already filled in (upstream keeps it on create).
  prepareForCreate(): void {},

  validate(o: ApiObject): FieldError[] {
    const n = o as Node;
    const errs: FieldError[] = [];
    const taintsAt = path('spec').child('taints');
    const seen = new Set<string>();
    (n.spec?.taints ?? []).forEach((taint, i) => {
      const at = taintsAt.index(i);
      const key = taint.key ?? '';
      for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(at.child('key'), key, m));
      for (const m of isValidLabelValue(taint.value ?? '')) errs.push(fieldErrors.invalid(at.child('value'), taint.value, m));
      if (!taint.effect) errs.push(fieldErrors.required(at.child('effect')));
      else if (!(TAINT_EFFECTS as readonly string[]).includes(taint.effect)) errs.push(fieldErrors.notSupported(at.child('effect'), taint.effect, TAINT_EFFECTS));
      errs.push(...validateTime(taint.timeAdded, at.child('timeAdded')));
      const id = `${key}\u0000${taint.effect ?? ''}`;
      if (seen.has(id)) errs.push(fieldErrors.duplicate(at, { key, effect: taint.effect ?? '' }));
      seen.add(id);
    });
    const st = n.status ?? {};
    const statusAt = path('status');
    for (const [field, list] of [['capacity', st.capacity], ['allocatable', st.allocatable]] as const) {
      for (const [k, v] of Object.entries(list ?? {})) errs.push(...validateQuantityValue(v, statusAt.child(field).child(k)));
    }
    (st.addresses ?? []).forEach((a, i) => {
      const at = statusAt.child('addresses').index(i);
      if (!a.type) errs.push(fieldErrors.required(at.child('type')));
      else if (!(NODE_ADDRESS_TYPES as readonly string[]).includes(a.type)) errs.push(fieldErrors.notSupported(at.child('type'), a.type, NODE_ADDRESS_TYPES));
      if (!a.address) errs.push(fieldErrors.required(at.child('address')));
    });
    (st.conditions ?? []).forEach((c, i) => {
      const at = statusAt.child('conditions').index(i);
      if (!c.type) errs.push(fieldErrors.required(at.child('type')));
      if (!(CONDITION_STATUSES as readonly string[]).includes(c.status ?? '')) errs.push(fieldErrors.notSupported(at.child('status'), c.status ?? '', CONDITION_STATUSES));
      errs.push(...validateTime(c.lastHeartbeatTime, at.child('lastHeartbeatTime')));
      errs.push(...validateTime(c.lastTransitionTime, at.child('lastTransitionTime')));
    });
    const features = new Set<string>();
    (st.declaredFeatures ?? []).forEach((f, i) => {
      const at = statusAt.child('declaredFeatures').index(i);
      if (!f) errs.push(fieldErrors.required(at));
      else if (features.has(f)) errs.push(fieldErrors.duplicate(at, f));
      features.add(f);
    });
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const n = o as Node;
    const old = oldObj as Node;
    const errs: FieldError[] = [];
    // Upstream ValidateNodeUpdate: no duplicate addresses.
    const seen = new Set<string>();
    (n.status?.addresses ?? []).forEach((a, i) => {
      const id = `${a.type ?? ''}\u0000${a.address ?? ''}`;
      if (seen.has(id)) errs.push(fieldErrors.duplicate(path('status').child('addresses').index(i), { type: a.type ?? '', address: a.address ?? '' }));
      seen.add(id);
    });
    const oldCIDRs = old.spec?.podCIDRs ?? [];
    if (oldCIDRs.length > 0 && JSON.stringify(oldCIDRs) !== JSON.stringify(n.spec?.podCIDRs ?? [])) {
      errs.push(fieldErrors.forbidden(path('spec').child('podCIDRs'), 'node updates may not change podCIDR except from "" to valid'));
    }
    if (old.spec?.providerID && old.spec.providerID !== n.spec?.providerID) {
      errs.push(fieldErrors.forbidden(path('spec').child('providerID'), 'node updates may not change providerID except from "" to valid'));
    }
    return errs;
  },
});

