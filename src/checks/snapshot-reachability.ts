import { emitterFor, type Finding } from '../report/finding.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('SnapshotReachability');

/** Size of the body cap, for messages: the probe reports the exact limit it applied. */
function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MiB`;
}

/**
 * SnapshotReachability: GET /snapshot with the doctor's bearer token. 401/403 prove the route is
 * guarded but not that the snapshot is sound; only a 200 with JSON does.
 */
export function snapshotReachability({ probes }: CheckInput): Finding[] {
  const server = probes.server;
  if (server === undefined || server.location.kind !== 'found') return [];
  const url = `${server.location.httpBase}/snapshot`;
  const result = server.snapshot;
  if (result === undefined) {
    return [emit('SN001', url, 'the /snapshot endpoint of the server could not be worked out; pass --server-endpoint or check the inference-cache-server Service')];
  }
  switch (result.kind) {
    case 'build-error':
      return [emit('SN001', url, `the GET /snapshot request could not be built: ${result.error}`)];
    case 'transport-error':
      return [emit('SN001', url, `GET /snapshot did not complete: ${result.error}`)];
    case 'response':
      break;
  }
  const { status, body } = result;
  if (status === 401 || status === 403) {
    return [
      emit(
        'SN005',
        url,
        `/snapshot answered HTTP ${status}: the route enforces authentication and the doctor's token was missing or refused. Give the doctor an audience-bound controller token with --snapshot-token-file to verify the snapshot body`,
      ),
    ];
  }
  if (status !== 200) {
    return [emit('SN001', url, `GET /snapshot answered HTTP ${status}; a working server answers 200`)];
  }
  switch (body?.kind) {
    case 'read-error':
      return [emit('SN002', url, `GET /snapshot answered 200, but reading the body failed: ${body.error}`)];
    case 'too-large':
      return [emit('SN002', url, `GET /snapshot answered 200, but the body is larger than the ${mib(body.limitBytes)} cap, so it was not parsed`)];
    case 'not-json':
    case undefined:
      return [emit('SN002', url, 'GET /snapshot answered 200, but the body is not valid JSON')];
    case 'json':
      break;
  }
  const ok = emit('SN004', url, 'GET /snapshot answered 200 with a body that parses as JSON');
  if (server.tokenSent) return [ok];
  return [
    ok,
    emit(
      'SN003',
      url,
      '/snapshot answered 200 although no bearer token was sent: either no token was available to the doctor, or this install does not enforce snapshot authentication',
    ),
  ];
}
