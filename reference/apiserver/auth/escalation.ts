// RBAC privilege escalation prevention (upstream pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased and pkg/registry/rbac/validation): whoever may write roles and
// bindings may still grant only what he holds. A Role or ClusterRole is written when the requester
// is in system:masters, is allowed `escalate` on it, changes only what the garbage collector needs
// (updates), or already holds every permission of its rules in its namespace (a ClusterRole:
// cluster-wide); an aggregationRule also needs full authority. A RoleBinding or ClusterRoleBinding
// likewise, with `bind` on the referenced role instead of `escalate` and the referenced role's rules,
// held in the binding's namespace. Refusals are upstream's 403s, word for word.
//
// This is a validating admission plug-in rather than a wrapper of the four stores: the store runs it
// on the final object of every create, update, patch and server-side apply, dry runs included,
// after defaults and validation (upstream checks ahead of validation, so an invalid object that also
// escalates answers 422 here, 403 there). It asks the server's own authorizer for `escalate` and
// `bind`, as upstream does, so an AlwaysAllow server allows every write as before; the rules a
// requester holds always come from the RBAC bindings (upstream's rule resolver).
import { forbidden } from '../errors.js';
import { deepEqual } from '../field-errors.js';
import type { Registry } from '../registry.js';
import type { Admission, ResourceStore } from '../store.js';
import type { ApiObject } from '../strategy.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule } from '../../resources/rbac.js';
import { aggregateMessages, RbacAuthorizer, type Authorizer, type RoleRef } from './authorizer.js';
import { ruleAllows } from './policy.js';
import type { RequestInfo } from './request-info.js';
import { SUPERUSER_GROUP, type UserInfo } from './user.js';

/** Upstream clusterrole policybased fullAuthority: what using an aggregationRule takes. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/**
 * The plug-in. `authorizer` is read at each write: the server's authorizer is made after its
 * registry, and so after the admission chain.
 */
export function rbacEscalationCheck(registry: () => Registry, authorizer: () => Authorizer): Admission {
  // Upstream's rule resolver: the RBAC bindings, whatever the server authorizes with.
  let cached: RbacAuthorizer | undefined;
  const resolver = () => (cached ??= new RbacAuthorizer(registry()));

  const check = async (store: ResourceStore, namespace: string, obj: ApiObject, old: ApiObject | undefined, user: UserInfo | undefined): Promise<void> => {
    const resource = store.strategy.resource;
    // Without a user the write is the server's own (no request asked for it): nothing to check.
    if (store.strategy.group !== RBAC_GROUP || !user) return;
    // Upstream EscalationAllowed; IsOnlyMutatingGCFields.
    if (user.groups.includes(SUPERUSER_GROUP) || (old && onlyGcFieldsChanged(obj, old))) return;
    const name = obj.metadata.name ?? '';
    const allowed = async (verb: string, on: string, onName: string) =>
      (await authorizer().authorize({ user, verb, resourceRequest: true, path: '', apiGroup: RBAC_GROUP, apiVersion: '*', namespace, resource: on, subresource: '', name: onName })).allowed;
    const refuse = (why: string) => forbidden({ group: RBAC_GROUP, resource }, name, why);
    // Upstream ConfirmNoEscalation: the requester's rules in the namespace must cover `wanted`.
    const held = async () => resolver().rulesFor(user, namespace);
    const confirmNoEscalation = async (wanted: readonly PolicyRule[]): Promise<void> => {
      const { rules: own, errors } = await held();
      const missing = uncovered(own, wanted);
      if (!missing.length) return;
      const why = `user ${quote(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${describe(missing)}`;
      throw refuse(errors.length ? `${why}; resolution errors: [${aggregateMessages(errors)}]` : why);
    };

    if (resource === 'roles' || resource === 'clusterroles') {
      if (await allowed('escalate', resource, name)) return;
      const role = obj as ClusterRole;
      await confirmNoEscalation(role.rules ?? []);
      // An aggregationRule gathers anything, and removing one could keep rules from tightening.
      if ((role.aggregationRule || (old as ClusterRole | undefined)?.aggregationRule) && uncovered((await held()).rules, FULL_AUTHORITY).length) {
        throw refuse('must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    if (resource === 'rolebindings' || resource === 'clusterrolebindings') {
      // Upstream BindingAuthorized: `bind` on the referenced role (validation made roleRef one), in the binding's namespace.
      const ref = (obj['roleRef'] ?? {}) as RoleRef;
      if (await allowed('bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', ref.name ?? '')) return;
      // A referenced role that does not exist fails here with the registry's 404, as upstream.
      await confirmNoEscalation(await resolver().roleReferenceRules(ref, namespace));
    }
  };

  return {
    validateCreate: (store, namespace, obj, { user }) => check(store, namespace, obj, undefined, user),
    validateUpdate: (store, namespace, obj, old, { user }) => check(store, namespace, obj, old, user),
  };
}

/** Upstream IsOnlyMutatingGCFields: nothing differs but ownerReferences and finalizers (and what no one writes). */
function onlyGcFieldsChanged(obj: ApiObject, old: ApiObject): boolean {
  const strip = (o: ApiObject): ApiObject => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, managedFields: _m, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  return deepEqual(strip(obj), strip(old));
}

// ---- Covers (upstream component-helpers/auth/rbac/validation policy_comparator.go)

/**
 * The parts of `wanted` that `held` does not cover (none: covered). Each wanted rule is broken down
 * into atoms (one verb of one resource of one group, with at most one name; or one verb of one
 * non-resource URL), and each atom must be allowed by some held rule, matched as a request would
 * be: `*` in an atom is then matched by a held `*` only, as upstream.
 */
export function uncovered(held: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((atom) => !held.some((rule) => ruleAllows(asRequest(atom), rule)));
}

/** Upstream BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const atoms: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length) for (const name of names) atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of verbs) atoms.push({ nonResourceURLs: [url], verbs: [verb] });
  return atoms;
}

/** An atom as the request it stands for (`x/sub` is resource x, subresource sub). */
function asRequest(atom: PolicyRule): RequestInfo {
  const none = { path: '', apiGroup: '', apiVersion: '*', namespace: '', resource: '', subresource: '', name: '' };
  const verb = atom.verbs![0]!;
  if (atom.nonResourceURLs) return { ...none, verb, resourceRequest: false, path: atom.nonResourceURLs[0]! };
  const combined = atom.resources![0]!;
  const slash = combined.indexOf('/');
  return {
    ...none, verb, resourceRequest: true, apiGroup: atom.apiGroups![0]!, name: atom.resourceNames?.[0] ?? '',
    resource: slash < 0 ? combined : combined.slice(0, slash), subresource: slash < 0 ? '' : combined.slice(slash + 1),
  };
}

/** The missing rules as upstream's message lists them: compacted, one CompactString a line, sorted, no repeats. */
function describe(missing: readonly PolicyRule[]): string {
  return [...new Set(compactRules(missing).map(compactString))].sort().join('\n');
}

/** Upstream CompactRules: rules of one group, one resource and at most one name merge their verbs. */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const complex: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    if (r.apiGroups?.length !== 1 || r.resources?.length !== 1 || names.length > 1 || r.nonResourceURLs?.length) {
      complex.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], names.length ? names[0] : null]);
    const seen = simple.get(key);
    if (!seen) simple.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
    else for (const v of r.verbs ?? []) if (!seen.verbs!.includes(v)) seen.verbs!.push(v);
  }
  return [...complex, ...simple.values()];
}

/** Upstream rbacv1helpers.CompactString: `{APIGroups:["" "apps"], Resources:["pods"], Verbs:["get"]}`, empty fields left out. */
export function compactString(r: PolicyRule): string {
  const fields: Array<[string, string[] | undefined]> = [
    ['APIGroups', r.apiGroups], ['Resources', r.resources], ['NonResourceURLs', r.nonResourceURLs], ['ResourceNames', r.resourceNames], ['Verbs', r.verbs],
  ];
  return `{${fields.filter(([, v]) => v?.length).map(([k, v]) => `${k}:${quoteList(v!)}`).join(', ')}}`;
}

/** Go's %q of a string (JSON's quoting, which agrees for all but control characters). */
const quote = (s: string): string => JSON.stringify(s);
/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (xs: readonly string[]): string => `[${xs.map(quote).join(' ')}]`;
