// `agent`: the reference node agent (reference/agent/) as a process. Reaches the control plane through
// --kubeconfig or --api/--token/--token-file/--ca, or runs standalone without them; prints
// `node: <name>` once registered and stops on SIGINT/SIGTERM, leaving containers running as upstream
// does across agent restarts.
import { readFile } from 'node:fs/promises';
import { loadKubeconfig } from '../../runner/kubeconfig.js';
import { UsageError } from '../../runner/errors.js';
import { startAgent } from '../../reference/agent/agent.js';
import { EXIT } from './exit-codes.js';

export interface AgentArgs {
  kubeconfig?: string;
  api?: string;
  token?: string;
  tokenFile?: string;
  ca?: string;
  containerRuntimeEndpoint?: string;
  imageServiceEndpoint?: string;
  rootDir: string;
  hostnameOverride?: string;
  nodeName?: string;
  port?: number;
  address?: string;
  featureGates?: string;
  config?: string;
  configDir?: string;
  certDir?: string;
  lockFile?: string;
}

async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

export async function cmdAgent(args: AgentArgs): Promise<number> {
  if (!args.containerRuntimeEndpoint) throw new UsageError('--container-runtime-endpoint is required (e.g. unix:///run/containerd/containerd.sock)');
  if (args.token && args.tokenFile) throw new UsageError('give --token or --token-file, not both');
  let api: { url: string; token?: string; caPem?: string } | undefined;
  if (args.kubeconfig) {
    let k;
    try {
      k = loadKubeconfig(args.kubeconfig);
    } catch (err) {
      throw new UsageError(`--kubeconfig ${args.kubeconfig}: ${(err as Error).message}`);
    }
    api = { url: k.server, token: k.token, caPem: k.caPem };
  }
  if (args.api) api = { ...api, url: args.api };
  if (!api && (args.token || args.tokenFile || args.ca)) throw new UsageError('--token, --token-file and --ca need --api or --kubeconfig');
  if (api) {
    if (args.token) api.token = args.token;
    if (args.tokenFile) api.token = (await readFlagFile('--token-file', args.tokenFile)).trim();
    if (args.ca) api.caPem = await readFlagFile('--ca', args.ca);
  }

  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let agent;
  try {
    agent = await startAgent({
      api,
      criEndpoint: args.containerRuntimeEndpoint,
      imageEndpoint: args.imageServiceEndpoint,
      nodeName: args.nodeName,
      hostnameOverride: args.hostnameOverride,
      rootDir: args.rootDir,
    });
  } catch (err) {
    throw new UsageError(`cannot start the agent: ${(err as Error).message}`);
  }
  process.stdout.write(`node: ${agent.nodeName}\n`);
  await stopped;
  await agent.close();
  return EXIT.ok;
}
