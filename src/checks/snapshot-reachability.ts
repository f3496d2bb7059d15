import type { RouteProbes } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { redirectNote } from './route-verdict.ts';
import { settleNote } from './settle-note.ts';

const CODES = {
  SN001: {
    status: 'FAIL',
    meaning: 'GET /snapshot could not be sent, did not connect, or answered an unexpected HTTP status.',
    hint: "Check that the server's controller-facing listener (:8081) is up and reachable from where the doctor runs; run the doctor in-cluster with the chart's Helm test, which passes the NetworkPolicy in front of it.",
    fix: "1. No answer at all (refused, reset, timed out): :8081 is fenced off from where the doctor runs; read the NP findings of the run, and run the doctor in-cluster with the chart's Helm test (helm test <release> --logs), whose pod the server's NetworkPolicy admits. 2. HTTP 503: the server could not ask the API server to review the token; check that its ServiceAccount may create tokenreviews (kubectl auth can-i create tokenreviews --as=system:serviceaccount:inference-cache-system:inference-cache-server). 3. Any other status: read the server's logs (kubectl -n inference-cache-system logs deploy/inference-cache-server) and look at any proxy or mesh sidecar in front of :8081.",
  },
  SN002: {
    status: 'WARN',
    meaning: 'GET /snapshot answered 200 but its body was unreadable, not JSON, or over the size cap.',
    hint: "Look at the server's logs around the time of the run: a truncated or non-JSON snapshot means the server failed while serializing its index.",
    fix: "1. Read the server's logs from the time of the run (kubectl -n inference-cache-system logs deploy/inference-cache-server --since=15m) for an error while it wrote the snapshot. 2. A body cut off or not JSON means the server failed mid-answer: fix the cause the logs name and restart the server (kubectl -n inference-cache-system rollout restart deploy/inference-cache-server). 3. If the message says the body is over the cap, the snapshot itself may be sound but was not parsed: the index has grown past what the doctor reads.",
  },
  SN003: {
    status: 'INFO',
    meaning: 'GET /snapshot answered 200 although no bearer token was sent.',
    hint: "If this install should enforce snapshot authentication, check the server's auth flags; otherwise give the doctor a token so that the check proves the authenticated path.",
    fix: "1. Find out whether the server enforces authentication: its container arguments hold either --allowed-controller-sa (on) or --insecure-disable-auth (off); see kubectl -n inference-cache-system get deploy inference-cache-server -o yaml. 2. If it should be on, replace --insecure-disable-auth with --allowed-controller-sa naming the controller's ServiceAccount. 3. If it is on, give the doctor a token (--snapshot-token-file, or the chart's default identity) so that the authenticated path is what gets tested; a redirect to another origin also drops the token, and the message says when it did.",
  },
  SN004: {
    status: 'OK',
    meaning: 'GET /snapshot answered 200 with a JSON body.',
    hint: 'Nothing to do.',
    fix: "Nothing needs doing: /snapshot answered 200 with JSON to the doctor's token. It stays so while the doctor runs with the controller's ServiceAccount and a token of audience inferencecache.io/controller, which is the chart's default.",
  },
  SN005: {
    status: 'WARN',
    meaning: 'GET /snapshot is reachable but refused the token (HTTP 401 or 403).',
    hint: "Run the doctor with a token of the audience inferencecache.io/controller issued to the controller's ServiceAccount (--snapshot-token-file; the chart's default identity does this).",
    fix: "1. HTTP 401: the token is missing, expired or made for another audience; HTTP 403: it is valid but was not issued to the controller's ServiceAccount. 2. Run the doctor with a token of audience inferencecache.io/controller issued to that ServiceAccount: the chart's default identity (identity: controller) mounts one; by hand, kubectl -n inference-cache-system create token inference-cache-controller-manager --audience inferencecache.io/controller > token, then --snapshot-token-file token. 3. With the chart's identity: dedicated this WARN is expected, since /snapshot admits only the controller; suppress it there with --suppress SN005.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** Size of the body cap, for messages: the probe reports the exact limit it applied. */
function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MiB`;
}

/**
 * SnapshotReachability: GET /snapshot with the doctor's bearer token. 401/403 prove the route is
 * guarded but not that the snapshot is sound; only a 200 with JSON does. An answer that came through
 * redirects still counts, and its findings say where it came from; when a redirect left the probed
 * origin the token was withheld, so a 200 there is also SN003.
 */
export const snapshotReachability = defineCheck({
  name: 'SnapshotReachability',
  codes: CODES,
  reads: {},
  probes: { routes: 'required' },
  judge({ probes }, emit) {
    const note = `${redirectNote(probes.routes.snapshot)}${settleNote(probes.routes.settling)}`;
    return judgeSnapshot(emit, probes.routes).map((f) => (note === '' ? f : { ...f, message: `${f.message}${note}` }));
  },
});

/** The findings of GET /snapshot, before a redirect or a wait for the pod's admission is noted in them. */
function judgeSnapshot(emit: EmitFor<typeof CODES>, routes: RouteProbes): Finding[] {
  const url = `${routes.base}/snapshot`;
  const result = routes.snapshot;
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
  if (status !== 200) return [emit('SN001', url, `GET /snapshot answered HTTP ${status}; a working server answers 200`)];
  switch (body?.kind) {
    case 'read-error':
      return [emit('SN002', url, `GET /snapshot answered 200, but reading the body failed: ${body.error}`)];
    case 'too-large':
      return [
        emit('SN002', url, `GET /snapshot answered 200, but the body is larger than the ${mib(body.limitBytes)} cap, so it was not parsed`),
      ];
    case 'not-json':
    case undefined:
      return [emit('SN002', url, 'GET /snapshot answered 200, but the body is not valid JSON')];
    case 'json':
      break;
  }
  const ok = emit('SN004', url, 'GET /snapshot answered 200 with a body that parses as JSON');
  if (routes.tokenSent && result.redirect?.tokenWithheld !== true) return [ok];
  return [
    ok,
    emit(
      'SN003',
      url,
      '/snapshot answered 200 although no bearer token was sent: either no token was available to the doctor, or this install does not enforce snapshot authentication',
    ),
  ];
}
