// Authorization modes: AlwaysAllow, and RBAC (upstream plugin/pkg/auth/authorizer/rbac) over the
// roles and bindings in this server's own storage plus the built-in bootstrap policy, with the
// `system:masters` group allowed everything ahead of it (upstream's privileged-group authorizer).
// Bindings are read from storage on every decision: in memory that is cheap, and a grant or
// revocation takes effect on the very next request.
import { RBAC_GROUP, type PolicyRule } from '../../resources/rbac.js';
import type { Registry } from '../registry.js';
import { isStatusError } from '../errors.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, ruleAllows } from './policy.js';
import type { Attributes } from './request-info.js';
import { serviceAccountUsername, SUPERUSER_GROUP, type UserInfo } from './user.js';

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

interface Subject { kind?: string; name?: string; namespace?: string }
interface Binding { metadata: { namespace?: string; name?: string }; subjects?: Subject[]; roleRef?: { kind?: string; name?: string } }

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly registry: Registry) {}

  async authorize(a: Attributes): Promise<Decision> {
    if (a.user.groups.includes(SUPERUSER_GROUP)) return { allowed: true, reason: '' };
    for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
      if (b.groups.some((g) => a.user.groups.includes(g)) && (await this.clusterRoleRules(b.role)).some((r) => ruleAllows(a, r))) {
        return { allowed: true, reason: '' };
      }
    }
    const errors: string[] = [];
    const visit = async (bindings: Binding[], bindingNamespace: string): Promise<boolean> => {
      for (const b of bindings) {
        if (!(b.subjects ?? []).some((s) => appliesTo(a.user, s, bindingNamespace))) continue;
        let rules: readonly PolicyRule[];
        try {
          rules = await this.roleRules(b, bindingNamespace);
        } catch (err) {
          errors.push((err as Error).message);
          continue;
        }
        if (rules.some((r) => ruleAllows(a, r))) return true;
      }
      return false;
    };
    if (await visit(await this.items('clusterrolebindings', undefined), '')) return { allowed: true, reason: '' };
    // A RoleBinding grants only inside its own namespace: the request's namespace is the scope.
    if (a.namespace && (await visit(await this.items('rolebindings', a.namespace), a.namespace))) return { allowed: true, reason: '' };
    return { allowed: false, reason: errors.length ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` : '' };
  }

  /** The rules a binding's roleRef points at; throws (with upstream's lister message) when the role is missing. */
  private async roleRules(b: Binding, bindingNamespace: string): Promise<readonly PolicyRule[]> {
    const ref = b.roleRef ?? {};
    if (ref.kind === 'Role' && bindingNamespace) {
      const role = await this.getOrUndefined('roles', bindingNamespace, ref.name ?? '');
      if (!role) throw new Error(`role.${RBAC_GROUP} "${ref.name ?? ''}" not found`);
      return (role as { rules?: PolicyRule[] }).rules ?? [];
    }
    if (ref.kind === 'ClusterRole') return this.clusterRoleRules(ref.name ?? '', true);
    throw new Error(`unsupported role reference kind: "${ref.kind ?? ''}"`);
  }

  /** A stored ClusterRole's rules, else a built-in one's; `strict` throws when neither exists. */
  private async clusterRoleRules(name: string, strict = false): Promise<readonly PolicyRule[]> {
    const stored = await this.getOrUndefined('clusterroles', '', name);
    if (stored) return (stored as { rules?: PolicyRule[] }).rules ?? [];
    const builtIn = BOOTSTRAP_CLUSTER_ROLES.get(name);
    if (builtIn) return builtIn;
    if (strict) throw new Error(`clusterrole.${RBAC_GROUP} "${name}" not found`);
    return [];
  }

  private async items(resource: string, namespace: string | undefined): Promise<Binding[]> {
    const store = this.registry.byGroupResource(RBAC_GROUP, resource);
    return store ? ((await store.list(namespace)).items as unknown as Binding[]) : [];
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

/** Whether a binding subject names the user (upstream appliesToUser); a service account defaults to the binding's namespace. */
function appliesTo(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.name === s.name;
    case 'Group':
      return user.groups.includes(s.name ?? '');
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return !!ns && !!s.name && user.name === serviceAccountUsername(ns, s.name);
    }
    default:
      return false;
  }
}
