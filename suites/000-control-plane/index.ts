// Every case of spec 000, in spec order.
import type { Case } from '../case.js';
import { commonShapeCases } from './2.1-common-shape.js';
import { typeAndNamespaceCases } from './2.1-type-and-namespace.js';
import { storageClassCases } from './2.2-storageclass.js';
import { discoveryCases } from './4-discovery.js';
import { podStreamingCases } from './4-pod-streaming.js';
import { collectionPathCases, operationCasesFor } from './4.2-operations.js';
import { KINDS } from './kinds.js';
import { watchCases } from './6-watch.js';
import { errorCases } from './7-errors.js';
import { evictionRequestCases } from './2.5-evictionrequest.js';
import { evictionCases } from './3.1-eviction.js';
import { podGroupCases } from './2.6-podgroup.js';
import { rbacCases } from './2.8-rbac.js';
import { storageVersionMigrationCases } from './2.3-storageversionmigration.js';
import { resourceQuotaCases } from './2.4-resourcequota.js';
import { quotaUsageCases } from './2.4-quota-usage.js';
import { migrationCases } from './2.3-migration.js';
import { eventCases } from './2.7-event.js';
import { deleteCases } from './4.3-delete.js';
import { writeParamCases, writeParamCasesFor } from './4.3-write-params.js';
import { listCases } from './4.3-list.js';
import { watchSemanticsCases } from './6-watch-semantics.js';
import { patchCases, patchTypeCasesFor } from './4.2-patch.js';
import { applyCases } from './4.2-apply.js';
import { expiryCases } from './7-expiry.js';
import { corruptObjectCases } from './4.3-corrupt-objects.js';
import { surfaceCases } from './4-surface.js';
import { versioningCases } from './9-versioning.js';
import { limitsAndSetsCases } from './4.3-limits-and-sets.js';
import { messageCases } from './7-messages.js';
import { authenticationCases } from './5-authentication.js';
import { schedulingCases } from './3.2-scheduling.js';
import { fieldShapeCases } from './2-field-shapes.js';
// <<imports>>

export const controlPlaneCases: Case[] = [
  ...commonShapeCases,
  ...typeAndNamespaceCases,
  ...fieldShapeCases,
  ...storageClassCases,
  ...evictionRequestCases,
  ...evictionCases,
  ...podGroupCases,
  ...rbacCases,
  ...storageVersionMigrationCases,
  ...resourceQuotaCases,
  ...quotaUsageCases,
  ...migrationCases,
  ...eventCases,
  ...deleteCases,
  ...writeParamCases,
  ...KINDS.flatMap(writeParamCasesFor),
  ...listCases,
  ...watchSemanticsCases,
  ...patchCases,
  ...KINDS.flatMap(patchTypeCasesFor),
  ...applyCases,
  ...corruptObjectCases,
  ...expiryCases,
  ...surfaceCases,
  ...versioningCases,
  ...limitsAndSetsCases,
  ...messageCases,
  ...authenticationCases,
  ...schedulingCases,
  // <<cases>>
  ...discoveryCases,
  ...podStreamingCases,
  ...collectionPathCases,
  ...KINDS.flatMap(operationCasesFor),
  ...watchCases,
  ...errorCases,
];
