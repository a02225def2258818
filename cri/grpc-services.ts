// gRPC service definitions straight from a .proto file with protobufjs: what @grpc/proto-loader's
// loadSync + grpc.loadPackageDefinition give, for the named services only. proto-loader also builds a
// descriptor (DescriptorProto and every file's FileDescriptorProto) for every message and enum of the
// file, which only server reflection reads; for the CRI's api.proto that is most of the 0.2 s an agent
// process spent before it could talk to its runtime, paid again by every agent a suite starts.
//
// Messages go over the wire exactly as proto-loader sends them: `fromObject` then `encode` out,
// `decode` then `toObject(options)` in, with the same conversion options (keepCase, longs, enums,
// defaults, oneofs). Message types are resolved and compiled on first use.
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** proto-loader's options that matter on the wire: field name case and how values are converted. */
export interface ProtoOptions extends protobuf.IConversionOptions {
  /** Field names as the .proto spells them (default: camelCase). */
  keepCase?: boolean;
}

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    const bytes = type.encode(type.fromObject(value)).finish();
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer(type: protobuf.Type, options: ProtoOptions): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), options);
}

function serviceDefinition(service: protobuf.Service, fullName: string, options: ProtoOptions): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    def[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: serializer(req),
      requestDeserialize: deserializer(req, options),
      responseSerialize: serializer(res),
      responseDeserialize: deserializer(res, options),
      // As proto-loader names it: the client method is also reachable by its camelCase name.
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
    };
  }
  return def;
}

/**
 * Client constructors (each with `.service`, what a grpc Server registers) for `services`, given by
 * their full names (`runtime.v1.RuntimeService`), from the .proto at `path`.
 */
export function loadServices<N extends string>(path: string, services: readonly N[], options: ProtoOptions = {}): Record<N, grpc.ServiceClientConstructor> {
  const root = new protobuf.Root();
  root.loadSync(path, { keepCase: !!options.keepCase });
  const out = {} as Record<N, grpc.ServiceClientConstructor>;
  for (const name of services) {
    const service = root.lookupService(name);
    // Named as grpc.loadPackageDefinition names it: the last part of the full name.
    out[name] = grpc.makeGenericClientConstructor(serviceDefinition(service, name, options), service.name);
  }
  return out;
}
