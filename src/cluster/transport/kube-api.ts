import { cutText } from '../../go/cut.ts';
import { HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { Interrupted, describeError } from '../../text/errors.ts';
import { parseApiJson } from '../encoding/api-json.ts';
import { ExecCredentialPlugin } from './exec-credential.ts';
import { impersonationHeaders, impersonationOf } from './kubeconfig.ts';
import { ElementNotJson, ListSplitter, type ListEnd } from '../encoding/list-stream.ts';
import { ElementNotProtobuf, ProtobufListReader, type ProtobufList } from '../encoding/protobuf-list.ts';
import { protobufStatusMessage } from '../encoding/apimachinery.ts';
import { obj } from '../encoding/wire.ts';
import type { Read } from '../kinds/kind.ts';

/**
 * Items per page of a paginated list: what kubectl and informers use, and the floor's in `npm run
 * bench:scale`. Pages are read as they stream in, so a larger page saves no memory, and a smaller one
 * only adds requests (docs/performance.md).
 */
export const PAGE_SIZE = 500;

/**
 * The most pages one list may take: half a million objects at {@link PAGE_SIZE}, 25 times the 20,000
 * pods of the scale scenario. An API server, or a proxy in front of it, that keeps answering with a
 * continue token would otherwise be asked again and again until the deadline.
 */
export const MAX_PAGES = 1_000;

/** A read that failed, in one line, with the HTTP status when the API server answered. */
type FailedRead = { readonly ok: false; readonly status?: number | undefined; readonly error: string };

/** The outcome of one GET against the API server: the parsed JSON body, or why there is none. */
export type ApiResult = { readonly ok: true; readonly body: unknown } | FailedRead;

/** A request's 200 answer with its body unread (and whether it came in protobuf), or why there is none. */
type Sent = { readonly ok: true; readonly body: Dispatcher.ResponseData['body']; readonly protobuf: boolean } | FailedRead;

/** The media type of the API server's protobuf encoding. */
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** How one list is read: the JSON splitter's hint, and the protobuf reading when the Kind has one. */
export interface ListOptions {
  readonly metadataFollowedBy?: string;
  readonly protobuf?: ProtobufList;
}

/** A list's items, or its failure with the HTTP status when the API server answered. */
export type ListResult<T> = Read<T> | FailedRead;

/**
 * Where the gathering reads objects from: the API server ({@link KubeApi}), or the objects of an
 * operator's files (`file-api.ts`), answering the same paths the same way, so that a run from files
 * goes through the very projections and views a live run does.
 */
export type ObjectSource = Pick<KubeApi, 'get' | 'list'>;

/** Counts what the doctor asked of the API server, for benchmarks and the read-only audit. */
export interface ApiStats {
  requests: number;
  /** The requests that got no answer, or an answer other than 200. */
  errors: number;
  bytes: number;
  /** The pages that came in protobuf. */
  protobufPages: number;
}

/** The message of a Kubernetes `Status` body, if the body is one. */
function statusMessage(text: string): string | undefined {
  try {
    const status: unknown = JSON.parse(text);
    if (
      typeof status === 'object' &&
      status !== null &&
      'message' in status &&
      typeof status.message === 'string' &&
      status.message !== ''
    ) {
      return status.message;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * A dispatcher for the kubeconfig's cluster that speaks HTTP/1.1 only (see `KubeApi.http1Only`), made
 * from the options the client library derives from the kubeconfig (CA, client certificate, server
 * name, proxy). A SOCKS proxy keeps the library's own dispatcher.
 */
function http1Dispatcher(kc: KubeConfig, made: Dispatcher | undefined): Dispatcher | undefined {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const options = kc.createDispatcherOptions(cluster, {
    ...(cluster?.caData === undefined ? {} : { ca: Buffer.from(cluster.caData, 'base64') }),
    ...(user?.certData === undefined ? {} : { cert: Buffer.from(user.certData, 'base64') }),
    ...(user?.keyData === undefined ? {} : { key: Buffer.from(user.keyData, 'base64') }),
    ...(cluster?.skipTLSVerify === true ? { rejectUnauthorized: false } : {}),
    ...(cluster?.tlsServerName === undefined || cluster.tlsServerName === '' ? {} : { servername: cluster.tlsServerName }),
  });
  switch (options.type) {
    case 'agent':
      return new Agent({ connect: options.connect as NonNullable<Agent.Options['connect']>, allowH2: false });
    case 'proxy':
      return new ProxyAgent({
        uri: options.uri,
        requestTls: options.requestTls as NonNullable<ProxyAgent.Options['requestTls']>,
        connect: options.connect as NonNullable<ProxyAgent.Options['connect']>,
        allowH2: false,
      });
    case 'none':
      return new Agent({ allowH2: false });
    default:
      return made;
  }
}

/**
 * The API server's HTTP access: authentication from the kubeconfig (client-node applies certificates,
 * tokens and token files; an exec credential plugin runs under the run's deadline, see
 * exec-credential.ts), transport by undici, bodies parsed as plain JSON. Only GET is ever sent: the
 * doctor never writes.
 */
export class KubeApi {
  readonly stats: ApiStats = { requests: 0, errors: 0, bytes: 0, protobufPages: 0 };
  private readonly server: string;
  private readonly kc: KubeConfig;
  private readonly plugin: ExecCredentialPlugin | undefined;
  /** The `Impersonate-*` headers every request carries, as kubectl sends them (`kubeconfig.ts`). */
  private readonly impersonation: readonly [string, string][];
  /**
   * Whether requests must go over HTTP/1.1: when a header is sent more than once (several groups or
   * extra values impersonated). undici's HTTP/2 client joins a repeated header into one value with
   * commas, which the API server reads as one group named `a, b`; over HTTP/1.1 each is a line of its own.
   */
  private readonly http1Only: boolean;
  private readonly dispatchers = new WeakMap<KubeConfig, Dispatcher | undefined>();

  /** `env` is what an exec credential plugin of the kubeconfig runs with (the doctor's environment). */
  constructor(kc: KubeConfig, env: Readonly<Record<string, string | undefined>> = {}) {
    this.kc = kc;
    this.server = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
    this.plugin = ExecCredentialPlugin.of(kc, env);
    this.impersonation = impersonationHeaders(impersonationOf(kc));
    const names = this.impersonation.map(([name]) => name.toLowerCase());
    this.http1Only = new Set(names).size < names.length;
  }

  /** The kubeconfig that authenticates this request: the plugin's credential when there is a plugin. */
  private async authentication(signal: AbortSignal): Promise<{ ok: true; kc: KubeConfig } | { ok: false; error: string }> {
    if (this.plugin === undefined) return { ok: true, kc: this.kc };
    const credential = await this.plugin.credential(signal);
    return credential.ok ? { ok: true, kc: credential.kubeConfig } : credential;
  }

  /**
   * The connection pool for requests authenticated by `kc`. client-node builds a new one (a new TLS
   * context, new connections) for every request; the first is kept instead, so that a run's 90-odd
   * requests share a few kept-alive connections. What it is built from (the CA, the client
   * certificate, the TLS server name, the proxy) is fixed for a kubeconfig; the headers are not, and
   * are still taken from each request's context.
   */
  private dispatcherFor(kc: KubeConfig, ctx: RequestContext): Dispatcher | undefined {
    if (!this.dispatchers.has(kc))
      this.dispatchers.set(kc, this.http1Only ? http1Dispatcher(kc, ctx.getDispatcher()) : ctx.getDispatcher());
    return this.dispatchers.get(kc);
  }

  /** Why a request ended without an answer, in one line. */
  private failure(err: unknown, signal: AbortSignal): string {
    if (!signal.aborted) return describeError(err);
    const reason: unknown = signal.reason;
    const why = reason instanceof Interrupted ? `the run was ${reason.message}` : 'the deadline passed';
    return `no answer from the API server at ${this.server}: ${why} first`;
  }

  /**
   * Sends GET `path` (with its query) and resolves once the answer's status and headers are in: a 200
   * answer with its body still to be read, or a failure with the API server's message for any other
   * status (its `Status` body read in either encoding). Asks for protobuf first when `protobuf`. Never
   * rejects.
   */
  private async send(path: string, signal: AbortSignal, protobuf = false): Promise<Sent> {
    const url = `${this.server}${path}`;
    let asked = false;
    try {
      const auth = await this.authentication(signal);
      if (!auth.ok) return { ok: false, error: auth.error };
      const ctx = new RequestContext(url, HttpMethod.GET);
      await auth.kc.applySecurityAuthentication(ctx);
      const dispatcher = this.dispatcherFor(auth.kc, ctx);
      this.stats.requests++;
      asked = true;
      // As a flat list of names and values, so that a header given twice (a group impersonated) goes
      // out as two header lines, as the API server reads several values, never joined into one.
      const headers = [
        ...Object.entries({ ...ctx.getHeaders(), accept: protobuf ? `${PROTOBUF}, application/json` : 'application/json' }),
        ...this.impersonation,
      ].flat();
      const res = await request(url, {
        method: 'GET',
        headers,
        signal,
        ...(dispatcher === undefined ? {} : { dispatcher }),
      });
      const type = res.headers['content-type'];
      const inProtobuf = typeof type === 'string' && type.toLowerCase().startsWith(PROTOBUF);
      if (res.statusCode !== 200) {
        this.stats.errors++;
        const bytes = Buffer.from(await res.body.arrayBuffer());
        this.stats.bytes += bytes.length;
        const message = inProtobuf ? protobufStatusMessage(bytes) : statusMessage(bytes.toString('utf8'));
        const said = message === undefined ? undefined : cutText(message);
        return { ok: false, status: res.statusCode, error: said ?? `the API server answered HTTP ${res.statusCode}` };
      }
      return { ok: true, body: res.body, protobuf: inProtobuf };
    } catch (err) {
      if (asked) this.stats.errors++;
      return { ok: false, error: this.failure(err, signal) };
    }
  }

  /** GET `path` (with its query) and parse the JSON answer. Never throws. */
  async get(path: string, signal: AbortSignal): Promise<ApiResult> {
    const sent = await this.send(path, signal);
    if (!sent.ok) return sent;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of sent.body as AsyncIterable<Buffer>) {
        this.stats.bytes += chunk.length;
        chunks.push(chunk);
      }
      return { ok: true, body: parseApiJson(Buffer.concat(chunks).toString('utf8')) };
    } catch (err) {
      return { ok: false, error: this.failure(err, signal) };
    }
  }

  /**
   * Lists a collection page by page (`limit`/`continue`). Each page is read as it streams in and each
   * of its items projected the moment it has arrived (list-stream.ts), so neither a page's text nor
   * its parsed objects are ever held whole: only the projected fields stay. The next page is asked for
   * as soon as this page's metadata has named it (an API server writes the metadata before the items),
   * so the API server prepares it while this one is read; its answer waits, unread, until this page is
   * done. A page that names `metadata` again is read as `JSON.parse` reads it, the last one counting:
   * the next page asked for with an earlier continue token is given up, and asked for again with the
   * later one. When a continue token expires (HTTP 410) the list restarts once without pagination, as
   * kubectl's pager does. An answer that is not a list (no `items` array, an item that is not JSON)
   * fails the read: taken for an empty list, it would hide every finding it holds. More than
   * {@link MAX_PAGES} pages fail it too. With `options.protobuf`, each page is asked for in protobuf
   * and read in whichever encoding it comes.
   *
   * What `project` throws is a bug in the doctor, not a property of the cluster: the returned promise
   * rejects with it (after giving up the page and any next page asked for), rather than resolving to a
   * failed read that a check would report as the cluster's.
   */
  async list<T>(
    path: string,
    project: (item: unknown) => T | undefined,
    signal: AbortSignal,
    params: Readonly<Record<string, string>> = {},
    options: ListOptions = {},
  ): Promise<ListResult<T>> {
    const items: T[] = [];
    let objects = 0;
    let paged = true;
    const pageOf = (token: string) => {
      const query = new URLSearchParams(params);
      if (paged) query.set('limit', String(PAGE_SIZE));
      if (paged && token !== '') query.set('continue', token);
      const qs = query.toString();
      return this.request(qs === '' ? path : `${path}?${qs}`, signal, options.protobuf !== undefined);
    };
    let current = pageOf('');
    for (let pages = 1; ; pages++) {
      const sent = await current.answer;
      if (!sent.ok) {
        if (sent.status === 410 && paged && pages > 1) {
          paged = false;
          items.length = 0;
          objects = 0;
          current = pageOf('');
          continue;
        }
        return { ok: false, error: sent.error, status: sent.status };
      }
      // The next page asked for, and the continue token it was asked for with.
      let next: { readonly token: string; readonly page: Pending } | undefined;
      const handlers = {
        onItem: (value: unknown) => {
          objects++;
          const item = project(value);
          if (item !== undefined) items.push(item);
        },
        onMetadata: (metadata: unknown) => {
          // A later `metadata` of the same page supersedes the earlier one, and the page it names.
          const token = paged && pages < MAX_PAGES ? continueOf(metadata) : '';
          if (next?.token === token) return;
          next?.page.cancel();
          next = token === '' ? undefined : { token, page: pageOf(token) };
        },
      };
      const { protobuf } = options;
      if (sent.protobuf) this.stats.protobufPages++;
      const reader =
        sent.protobuf && protobuf !== undefined
          ? new ProtobufListReader(protobuf, handlers)
          : new ListSplitter({
              ...handlers,
              ...(options.metadataFollowedBy === undefined ? {} : { metadataFollowedBy: options.metadataFollowedBy }),
            });
      const before = objects;
      const read = await this.readBody(sent.body, reader, signal);
      if (!read.ok) {
        next?.page.cancel();
        if ('thrown' in read) throw read.thrown;
        return { ok: false, error: describeBodyRead(read, path, before) };
      }
      const token = continueOf(read.end.metadata);
      if (!paged || token === '') {
        next?.page.cancel();
        return { ok: true, items };
      }
      if (pages >= MAX_PAGES) {
        next?.page.cancel();
        return {
          ok: false,
          error: `stopped after ${MAX_PAGES} pages (${objects} objects): the API server kept answering with a continue token`,
        };
      }
      if (next !== undefined && next.token !== token) {
        next.page.cancel();
        next = undefined;
      }
      current = next?.page ?? pageOf(token);
    }
  }

  /** A request whose answer is awaited later, and can be given up (its connection then closes). */
  private request(path: string, signal: AbortSignal, protobuf: boolean): Pending {
    const giveUp = new AbortController();
    const answer = this.send(path, AbortSignal.any([signal, giveUp.signal]), protobuf);
    return {
      answer,
      cancel: () => {
        giveUp.abort();
        void answer.then((sent) => sent.ok && sent.body.destroy());
      },
    };
  }

  /**
   * Feeds a page's body to its reader (the JSON splitter, or the protobuf list reader) as its chunks
   * arrive, and says how it ended: a failure mid-body (`transfer`), an item that is not JSON or not its
   * Kind in protobuf (`item`), a body that is no list (`why`), or what the reader's handlers threw
   * (`thrown`: a projection's bug), the body given up on every failure.
   * Read with `data` events rather than `for await`: a page of pods comes in hundreds of chunks, and
   * an async iterator costs promises for each.
   */
  private readBody(body: Dispatcher.ResponseData['body'], splitter: BodyReader, signal: AbortSignal): Promise<BodyRead> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (read: BodyRead) => {
        if (settled) return;
        settled = true;
        if (!read.ok) body.destroy();
        resolve(read);
      };
      // What `push` or `end` throws: an item that is unreadable, or a bug.
      const thrown = (err: unknown) =>
        settle(err instanceof ElementNotJson || err instanceof ElementNotProtobuf ? { ok: false, item: err } : { ok: false, thrown: err });
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        this.stats.bytes += chunk.length;
        try {
          splitter.push(chunk);
        } catch (err) {
          thrown(err);
        }
      });
      body.on('error', (err) => settle({ ok: false, transfer: this.failure(err, signal) }));
      body.on('end', () => {
        if (settled) return;
        let end: ReturnType<ListSplitter['end']>;
        try {
          // The last element is parsed (and projected) only now.
          end = splitter.end();
        } catch (err) {
          thrown(err);
          return;
        }
        settle(end);
      });
    });
  }
}

/** What reads a page's body: the JSON splitter or the protobuf list reader. */
type BodyReader = Pick<ListSplitter, 'push' | 'end'>;

/** How reading a page's body ended: the list's end, or why there is none. */
type BodyRead =
  | { readonly ok: true; readonly end: ListEnd }
  | { readonly ok: false; readonly transfer: string }
  | { readonly ok: false; readonly item: ElementNotJson | ElementNotProtobuf }
  | { readonly ok: false; readonly why: string }
  /** A handler threw: a bug in the doctor, which `list` throws on. */
  | { readonly ok: false; readonly thrown: unknown };

/**
 * A failed page read in one line. An item that is not JSON is named by its place in the whole list
 * (counted from 1, `before` items coming from earlier pages) and what `JSON.parse` said of it.
 */
function describeBodyRead(read: Exclude<BodyRead, { ok: true } | { thrown: unknown }>, path: string, before: number): string {
  if ('transfer' in read) return read.transfer;
  if ('item' in read && read.item instanceof ElementNotProtobuf) {
    return `item ${before + read.item.index + 1} of the API server's answer to ${path} is not a ${read.item.kind} in protobuf: ${read.item.cause.message}`;
  }
  if ('item' in read) {
    return `item ${before + read.item.index + 1} of the API server's answer to ${path} is not JSON: ${describeError(read.item.cause)}`;
  }
  return `the API server's answer to ${path} is not a list: ${read.why}`;
}

/** The continue token a list's metadata names; empty when there is none. */
function continueOf(metadata: unknown): string {
  const token = obj(metadata)?.['continue'];
  return typeof token === 'string' ? token : '';
}

/** A request sent: its answer (status and headers; the body still to be read), and a way to give it up. */
interface Pending {
  readonly answer: Promise<Sent>;
  readonly cancel: () => void;
}
