import { emitterFor, type Finding } from '../report/finding.ts';
import type { HttpResult } from '../probes/results.ts';
import type { CheckInput } from './input.ts';

const policy = emitterFor('PolicyReachability');
const probe = emitterFor('ProbeReachability');

/** The verdict of a HEAD to a controller-facing route, before it is given a route's codes. */
type RouteVerdict = 'missing' | 'wired' | 'unexpected';

function judgeRoute(route: string, result: HttpResult | undefined): { verdict: RouteVerdict; message: string } {
  if (result === undefined) {
    return { verdict: 'missing', message: `the ${route} endpoint of the server could not be worked out; pass --server-endpoint or check the inference-cache-server Service` };
  }
  if (result.kind === 'build-error') return { verdict: 'missing', message: `the HEAD ${route} request could not be built: ${result.error}` };
  if (result.kind === 'transport-error') return { verdict: 'missing', message: `HEAD ${route} could not connect: ${result.error}` };
  const { status } = result;
  if (status === 404) {
    return {
      verdict: 'missing',
      message: `HEAD ${route} answered HTTP 404: the ${route} route is not mounted on the server (a mounted route answers 2xx, 401, 403 or 405)`,
    };
  }
  if ((status >= 200 && status <= 299) || status === 401 || status === 403 || status === 405) {
    return { verdict: 'wired', message: `the ${route} route is mounted (HTTP ${status} to a HEAD request, which changes nothing)` };
  }
  return {
    verdict: 'unexpected',
    message: `${route} is mounted but answered HEAD with HTTP ${status} (2xx, 401, 403 or 405 expected): the server or a middleware in front of it may be failing`,
  };
}

function httpBaseOf({ probes }: CheckInput): string | undefined {
  const server = probes.server;
  return server?.location.kind === 'found' ? server.location.httpBase : undefined;
}

/** PolicyReachability: HEAD /policy without a token proves that the route is mounted. */
export function policyReachability(input: CheckInput): Finding[] {
  const base = httpBaseOf(input);
  if (base === undefined) return [];
  const { verdict, message } = judgeRoute('/policy', input.probes.server?.policy);
  const code = verdict === 'missing' ? 'PL001' : verdict === 'wired' ? 'PL002' : 'PL003';
  return [policy(code, `${base}/policy`, message)];
}

/** ProbeReachability: HEAD /probe without a token proves that the route is mounted. */
export function probeReachability(input: CheckInput): Finding[] {
  const base = httpBaseOf(input);
  if (base === undefined) return [];
  const { verdict, message } = judgeRoute('/probe', input.probes.server?.probe);
  const code = verdict === 'missing' ? 'PB001' : verdict === 'wired' ? 'PB002' : 'PB003';
  return [probe(code, `${base}/probe`, message)];
}
