// Every resource the reference serves, in spec order. A new resource is one strategy file and one
// line here.
import type { ResourceStrategy } from '../apiserver/strategy.js';
import { namespaceStrategy } from './namespace.js';
import { storageClassStrategy } from './storageclass.js';
import { evictionRequestStrategy } from './evictionrequest.js';
import { podGroupStrategy } from './podgroup.js';
// <<imports>>

export const REFERENCE_RESOURCES: readonly ResourceStrategy[] = [
  namespaceStrategy,
  storageClassStrategy,
  evictionRequestStrategy,
  podGroupStrategy,
  // <<strategies>>
];
