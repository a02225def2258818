// `GET pods/{name}/log` (upstream pkg/registry/core/pod/rest/log.go LogREST and pod.LogLocation):
// the PodLogOptions of the query are checked here (422 Invalid PodLogOptions, as ValidatePodLogOptions),
// the container is resolved as upstream's validateContainer does (the only one when none is named;
// 400 naming the choices, or a name that is not the pod's), and the agent of the pod's node is asked
// for /containerLogs/{namespace}/{pod}/{container} with the same options, as this server with its
// agent-client certificate (the node proxy's transport and target checks: NodeProxy.agentRequest).
// A pod not yet on a node has no logs: 204, as upstream's empty location. The agent's answer is
// streamed as it comes (text/plain, with backpressure), and the request to the agent ends when the
// client goes away. An agent's refusal becomes a Status as upstream's GenericHttpResponseChecker makes
// it: 400 BadRequest and 500 InternalError with the agent's text, others a generic server response.
import type { IncomingMessage } from 'node:http';
import { badRequest, internal, invalid, serviceUnavailable, StatusError } from '../apiserver/errors.js';
import type { ReadRequest, ReadSubresource } from '../apiserver/strategy.js';
import { agentLogQuery, parsePodLogQuery, PodLogQueryError, podLogOptionErrors } from '../agent/logs/log-options.js';

/** What is read of a refusing agent's body (upstream's maxReadLength). */
const MAX_ERROR_BYTES = 50_000;

/** Upstream validateContainer: the container to read. */
export function logContainer(pod: any, named: string | undefined): string {
  const spec = pod.spec ?? {};
  const name = pod.metadata?.name ?? '';
  if (!named) {
    const containers = spec.containers ?? [];
    if (containers.length === 1) return containers[0].name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    const all = [...(spec.initContainers ?? []), ...containers, ...(spec.ephemeralContainers ?? [])].map((c: any) => c.name);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
  }
  const all = [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])];
  if (!all.some((c: any) => c?.name === named)) throw badRequest(`container ${named} is not valid for pod ${name}`);
  return named;
}

async function readSome(r: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of r) {
    parts.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= MAX_ERROR_BYTES) break;
  }
  r.destroy();
  return Buffer.concat(parts).subarray(0, MAX_ERROR_BYTES).toString('utf8');
}

const GENERIC: Record<number, [string, string]> = {
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
};

/** Upstream GenericHttpResponseChecker.Check for a non-2xx answer of the agent. */
function agentRefusal(code: number, body: string, name: string): StatusError {
  if (code === 500) return internal(new Error(body));
  if (code === 400) return badRequest(body);
  // 403 keeps the agent's message (it says who may not do what), as upstream's NewGenericServerResponse.
  const [reason, message] = code === 403 ? ['Forbidden', body] : GENERIC[code] ?? ['Unknown', `the server responded with the status code ${code} but did not return more information`];
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason,
    message: `${message} ( pods/log ${name})`,
    details: { name, kind: 'pods/log', causes: [{ reason: 'UnexpectedServerResponse', message: body }] },
  });
}

async function serveLog(r: ReadRequest): Promise<void> {
  let opts;
  try {
    opts = parsePodLogQuery(r.query);
  } catch (err) {
    if (err instanceof PodLogQueryError) throw badRequest(err.message);
    throw err;
  }
  const errs = podLogOptionErrors(opts);
  if (errs.length) throw invalid({ group: '', kind: 'PodLogOptions' }, r.name, errs);
  const pods = r.registry.byGroupResource('', 'pods');
  if (!pods) throw new Error('pods are not served');
  const pod = (await pods.get(r.namespace, r.name)) as any;
  const container = logContainer(pod, opts.container);
  const nodeName: string | undefined = pod.spec?.nodeName;
  if (!nodeName) {
    // Upstream's empty location: a pod not on a node has nothing to read yet.
    r.res.writeHead(204);
    r.res.end();
    return;
  }
  if (!r.agents) throw serviceUnavailable('this server reaches no agents: pod logs are not available');
  const enc = encodeURIComponent;
  const { response, abort } = await r.agents.agentRequest(nodeName, 'GET', `/containerLogs/${enc(r.namespace)}/${enc(r.name)}/${enc(container)}${agentLogQuery(opts)}`);
  const code = response.statusCode ?? 502;
  if (code < 200 || code > 206) throw agentRefusal(code, await readSome(response), r.name);
  // Either side going away ends the other: the client's close stops the agent's stream.
  r.res.on('close', abort);
  r.res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  // Followers see the headers before the first line.
  r.res.flushHeaders();
  await new Promise<void>((resolve) => {
    response.pipe(r.res);
    response.on('end', resolve);
    response.on('error', () => { r.res.destroy(); resolve(); });
    r.res.on('close', resolve);
  });
}

/** The `log` subresource of pods. */
export const podLogSubresource: ReadSubresource = { kind: 'Pod', serve: serveLog };
