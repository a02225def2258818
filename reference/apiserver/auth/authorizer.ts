// Authorization modes: AlwaysAllow, and RBAC (upstream plugin/pkg/auth/authorizer/rbac) over the
// roles and bindings in this server's own storage plus the built-in bootstrap policy, with the
// `system:masters` group allowed everything ahead of it (upstream's privileged-group authorizer).
// A decision reads only the bindings naming its requester, from an index the bindings' own watches
// keep current (binding-index.ts: a grant or revocation takes effect on the very next request),
// and the roles those bindings refer to, from storage.
import { RBAC_GROUP, type PolicyRule } from '../../resources/rbac.js';
import type { Registry } from '../registry.js';
import { isStatusError, notFound } from '../errors.js';
import { BindingIndex, type RoleRef } from './binding-index.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, ruleAllows } from './policy.js';
import type { Attributes } from './request-info.js';
import { SUPERUSER_GROUP, type UserInfo } from './user.js';

export type { RoleRef } from './binding-index.js';

export type AuthorizationMode = 'AlwaysAllow' | 'RBAC';

export interface Decision {
  readonly allowed: boolean;
  /** Why not, when the authorizer can say (upstream: `RBAC: <errors>` for roles it could not find). */
  readonly reason: string;
}

export interface Authorizer {
  authorize(a: Attributes): Promise<Decision>;
}

export const alwaysAllow: Authorizer = { authorize: async () => ({ allowed: true, reason: '' }) };

export class RbacAuthorizer implements Authorizer {
  private readonly bindings: BindingIndex;

  constructor(private readonly registry: Registry) {
    this.bindings = BindingIndex.of(registry);
  }

  async authorize(a: Attributes): Promise<Decision> {
    if (a.user.groups.includes(SUPERUSER_GROUP)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    if (await this.visitRulesFor(a.user, a.namespace, (rules) => rules.some((r) => ruleAllows(a, r)), errors)) return { allowed: true, reason: '' };
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregateMessages(errors)}` : '' };
  }

  /**
   * Upstream RulesFor: every rule the user holds in `namespace` ('' = cluster-wide only), and the
   * messages of the roles that could not be found (the rules are then incomplete, never too many).
   * `system:masters` holds no rules of its own here: callers check it first, as upstream does.
   */
  async rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    await this.visitRulesFor(user, namespace, (found) => {
      rules.push(...found);
      return false;
    }, errors);
    return { rules, errors };
  }

  /**
   * Upstream GetRoleReferenceRules as the escalation check resolves it, through the registry: a
   * missing role is the registry's 404 (`roles.<group> "x" not found`).
   */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): Promise<readonly PolicyRule[]> {
    return this.roleRules(ref, bindingNamespace, 'registry');
  }

  /**
   * Upstream VisitRulesFor, the one binding walk: the built-in bindings, the ClusterRoleBindings and,
   * in a namespace (a RoleBinding grants only inside its own), that namespace's RoleBindings, each in
   * storage order. `visit` gets the rules of each binding naming the user and ends the walk by
   * returning true (as then does this). Roles that cannot be resolved are skipped, their messages
   * added to `errors`.
   */
  private async visitRulesFor(user: UserInfo, namespace: string, visit: (rules: readonly PolicyRule[]) => boolean, errors: string[]): Promise<boolean> {
    for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
      if (b.groups.some((g) => user.groups.includes(g)) && visit((await this.clusterRoleRules(b.role)) ?? [])) return true;
    }
    const index = await this.bindings.current();
    const walk = async (bindingNamespace: string): Promise<boolean> => {
      for (const b of index.naming(user, bindingNamespace)) {
        let rules: readonly PolicyRule[];
        try {
          rules = await this.roleRules(b.roleRef ?? {}, bindingNamespace, 'lister');
        } catch (err) {
          errors.push((err as Error).message);
          continue;
        }
        if (visit(rules)) return true;
      }
      return false;
    };
    if (await walk('')) return true;
    return !!namespace && (await walk(namespace));
  }

  /**
   * The rules a roleRef points at. A missing role is a 404 named as upstream names it: by its lister
   * (`role.<group>`) in the authorizer's reasons, by the registry (`roles.<group>`) in the escalation check.
   */
  private async roleRules(ref: RoleRef, bindingNamespace: string, names: 'lister' | 'registry'): Promise<readonly PolicyRule[]> {
    const missing = (kind: 'role' | 'clusterrole') => notFound({ group: RBAC_GROUP, resource: names === 'lister' ? kind : `${kind}s` }, ref.name ?? '');
    if (ref.kind === 'Role' && bindingNamespace) {
      const role = await this.getOrUndefined('roles', bindingNamespace, ref.name ?? '');
      if (!role) throw missing('role');
      return (role as { rules?: PolicyRule[] }).rules ?? [];
    }
    if (ref.kind === 'ClusterRole') {
      const rules = await this.clusterRoleRules(ref.name ?? '');
      if (!rules) throw missing('clusterrole');
      return rules;
    }
    throw new Error(`unsupported role reference kind: "${ref.kind ?? ''}"`);
  }

  /** A stored ClusterRole's rules, else a built-in one's, else undefined. */
  private async clusterRoleRules(name: string): Promise<readonly PolicyRule[] | undefined> {
    const stored = await this.getOrUndefined('clusterroles', '', name);
    if (stored) return (stored as { rules?: PolicyRule[] }).rules ?? [];
    return BOOTSTRAP_CLUSTER_ROLES.get(name);
  }

  private async getOrUndefined(resource: string, namespace: string, name: string): Promise<unknown> {
    const store = this.registry.byGroupResource(RBAC_GROUP, resource);
    if (!store || !name) return undefined;
    try {
      return await store.get(namespace, name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  }
}

/** Several errors as upstream's utilerrors aggregate prints them: one alone, more as `[a, b]`. */
export function aggregateMessages(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
