// Answers converted as the client asked in Accept (media.ts): get, list and watch of any kind turned
// into a Table, or into PartialObjectMetadata (List). Called by the handler only when negotiation
// found such a conversion, so plain reads never reach this module.
import { badRequest, notAcceptableConversion } from '../errors.js';
import { errorString, fieldErrors, path } from '../field-errors.js';
import type { ListBody } from '../list-response.js';
import type { WatchEvent } from '../store.js';
import type { ApiObject, ResolvedStrategy } from '../strategy.js';
import type { Conversion } from './media.js';
import { printerFor } from './printers.js';
import { buildTable, INCLUDE_OBJECT_VALUES, partialObjectMetadata, type IncludeObject, type TableOptions } from './table.js';

/**
 * The TableOptions of the query: includeObject is None, Metadata (the default) or Object; anything
 * else is a 400, worded as upstream's.
 */
function tableOptions(conversion: Conversion, query: URLSearchParams): TableOptions {
  const value = query.get('includeObject') ?? '';
  if (value !== '' && !(INCLUDE_OBJECT_VALUES as readonly string[]).includes(value)) {
    const err = fieldErrors.notSupported(path('includeObject'), value, INCLUDE_OBJECT_VALUES);
    throw badRequest(`Unable to convert to Table as requested: ${errorString(err)}`);
  }
  return { apiVersion: conversion.apiVersion, includeObject: (value || 'Metadata') as IncludeObject };
}

/** The answer to a get (of the object or its status) in the form `conversion` asks for. */
export function convertObject(conversion: Conversion, s: ResolvedStrategy, obj: ApiObject, query: URLSearchParams): unknown {
  switch (conversion.kind) {
    case 'Table':
      return buildTable(printerFor(s.group, s.kind), [obj], resourceVersionOf(obj), tableOptions(conversion, query));
    case 'PartialObjectMetadata':
      return partialObjectMetadata(obj, conversion.apiVersion);
    case 'PartialObjectMetadataList':
      throw notAcceptableConversion(`you requested PartialObjectMetadataList, but the requested object is not a list (${s.kind})`);
  }
}

/** The answer to a list in the form `conversion` asks for, with the list's resourceVersion and continue. */
export function convertList(conversion: Conversion, s: ResolvedStrategy, body: ListBody, query: URLSearchParams): unknown {
  const items = body.items as ApiObject[];
  const { resourceVersion, continue: cont, remainingItemCount } = body.metadata;
  const metadata = { resourceVersion, ...(cont !== undefined && { continue: cont }), ...(remainingItemCount !== undefined && { remainingItemCount }) };
  switch (conversion.kind) {
    case 'Table':
      return buildTable(printerFor(s.group, s.kind), items, metadata, tableOptions(conversion, query));
    case 'PartialObjectMetadataList':
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: conversion.apiVersion,
        metadata,
        items: items.map((o) => partialObjectMetadata(o, conversion.apiVersion)),
      };
    case 'PartialObjectMetadata':
      throw notAcceptableConversion(`you requested PartialObjectMetadata, but the requested object is a list (${s.listKind})`);
  }
}

/**
 * The conversion of each event of a watch: its object as a Table of one row (column definitions in
 * the first event only, as upstream sends them), or as PartialObjectMetadata. ERROR events (a
 * Status) stay as they are. Upstream cannot turn one object into a PartialObjectMetadataList and
 * sends the events unconverted then; so does this. Invalid options throw here, before the stream
 * starts, so that they are answered with a plain error.
 */
export function watchConverter(conversion: Conversion, s: ResolvedStrategy, query: URLSearchParams): (ev: WatchEvent) => WatchEvent {
  switch (conversion.kind) {
    case 'Table': {
      const printer = printerFor(s.group, s.kind);
      const opts = tableOptions(conversion, query);
      let sentHeaders = false;
      return (ev) => {
        if (isStatus(ev.object)) return ev;
        const table = buildTable(printer, [ev.object], resourceVersionOf(ev.object), { ...opts, noHeaders: sentHeaders });
        sentHeaders = true;
        return { type: ev.type, object: table as unknown as ApiObject };
      };
    }
    case 'PartialObjectMetadata':
      return (ev) => (isStatus(ev.object) ? ev : { type: ev.type, object: partialObjectMetadata(ev.object, conversion.apiVersion) as unknown as ApiObject });
    case 'PartialObjectMetadataList':
      return (ev) => ev;
  }
}

const isStatus = (o: WatchEvent['object']): o is Extract<WatchEvent['object'], { kind: 'Status' }> => o.kind === 'Status';

const resourceVersionOf = (obj: ApiObject): { resourceVersion?: string } =>
  obj.metadata?.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {};
