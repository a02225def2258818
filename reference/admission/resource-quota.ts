// The ResourceQuota admission plug-in (upstream staging/.../admission/plugin/resourcequota, spec 000
// §2.4 with the ground-truth note): a validating step of every create of a namespaced object. Each
// quota of the namespace whose enforced limits (status.hard) name something the object uses, and
// whose scopes and scope selector match it, must have the usage of those names observed
// (status.used), must see its constraints met (cpu and memory stated by every container when
// limited), and must not go over a limit with the object's usage added. On success the new usage is
// written into the quota's status before the object is stored (guarded by the quota's
// resourceVersion; a conflict re-reads and re-checks the quotas that conflicted); a dry run writes
// nothing. Rejections are 403 Forbidden with upstream's messages. Pod `resize` is not handled.
import type { Registry } from '../apiserver/registry.js';
import type { Admission, ResourceStore } from '../apiserver/store.js';
import type { ApiObject } from '../apiserver/strategy.js';
import { forbidden, internal, StatusError } from '../apiserver/errors.js';
import {
  addLists, evaluatorFor, exceeding, isZeroList, mask, matchesScopes, prettyPrint, prettyPrintNames, toList,
  type QuotaLike, type ResourceList,
} from '../quota/evaluator.js';

/** Upstream gives up after this long: 500 `resource quota evaluation timed out`. */
const EVALUATION_TIMEOUT_MS = 10_000;
/** Re-reads of conflicting quotas before the create fails with their conflict. */
const MAX_RETRIES = 20;

type Quota = ApiObject & QuotaLike;

interface Charge {
  readonly quota: Quota;
  readonly used: ResourceList;
}

export function resourceQuotaAdmission(registry: () => Registry): Admission {
  return {
    async validateCreate(store, namespace, obj, { dryRun }) {
      if (!store.strategy.namespaced || !namespace) return;
      const quotas = registry().byGroupResource('', 'resourcequotas');
      if (!quotas) return;
      const deadline = Date.now() + EVALUATION_TIMEOUT_MS;
      let pending: Quota[] | undefined;
      for (let attempt = 0; ; attempt++) {
        const current = (await quotas.list(namespace)).items as Quota[];
        // After a conflict only the quotas that conflicted are checked again (upstream checkQuotas).
        const toCheck = pending ? current.filter((q) => pending!.some((p) => p.metadata.name === q.metadata.name)) : current;
        if (toCheck.length === 0) return;
        const charges = checkRequest(store, obj, toCheck);
        if (dryRun || charges.length === 0) return;
        const failed: Quota[] = [];
        let lastErr: unknown;
        for (const c of charges) {
          try {
            await quotas.update(namespace, c.quota.metadata.name!, { ...c.quota, status: { ...c.quota.status, used: c.used } }, { subresource: 'status' });
          } catch (err) {
            if (!(err instanceof StatusError) || err.code !== 409) throw err;
            failed.push(c.quota);
            lastErr = err;
          }
        }
        if (failed.length === 0) return;
        if (Date.now() > deadline) throw internal(new Error('resource quota evaluation timed out'));
        if (attempt >= MAX_RETRIES) throw lastErr;
        pending = failed;
      }
    },
  };
}

/**
 * Upstream CheckRequest for a create: the quotas to charge with their new usage, or a 403 naming
 * the first quota that refuses the object.
 */
export function checkRequest(store: ResourceStore, obj: ApiObject, quotas: readonly Quota[]): Charge[] {
  const gr = store.strategy.groupResource;
  const ev = evaluatorFor(gr);
  const name = obj.metadata.name ?? obj.metadata.generateName ?? '';
  const refuse = (why: string) => forbidden(gr, name, why);
  const interesting: Quota[] = [];
  for (const q of quotas) {
    const hardNames = Object.keys(q.status?.hard ?? {});
    const restricted = ev.matchingResources(hardNames);
    if (restricted.length === 0 || !matchesScopes(ev, q, obj)) continue;
    const why = ev.constraints(restricted, obj);
    if (why) throw refuse(`failed quota: ${q.metadata.name}: ${why}`);
    const used = q.status?.used ?? {};
    if (restricted.some((r) => !(r in used))) throw refuse(`status unknown for quota: ${q.metadata.name}, resources: ${prettyPrintNames(restricted)}`);
    interesting.push(q);
  }
  if (interesting.length === 0) return [];
  const delta = ev.usage(obj);
  if (isZeroList(delta)) return [];
  const charges: Charge[] = [];
  for (const q of interesting) {
    const hard = toList(q.status?.hard);
    const used = toList(q.status?.used);
    const requested = mask(delta, Object.keys(hard));
    const next = addLists(used, requested);
    const over = exceeding(mask(next, Object.keys(requested)), hard);
    if (over.length > 0) {
      throw refuse(`exceeded quota: ${q.metadata.name}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(used, over))}, limited: ${prettyPrint(mask(hard, over))}`);
    }
    charges.push({ quota: q, used: next });
  }
  return charges;
}
