/**
 * The options of a live doctor run from the flags `doctor` and `monitor` share, checked the one way
 * for both: where the cluster and the server are, what counts, what is suppressed, the deadline.
 *
 * @module
 */
import { RuleError, parseSuppressFlag } from '../suppress/rule.ts';
import { parseDeadline, parseDocsBase, parseNamespace, parseOutput, parseStatusFlag } from './flag-values.ts';
import { UsageError, type DoctorOptions } from './options.ts';
import { parseServerEndpoint } from './server-endpoint.ts';
import { parseServerTlsFlags, type ServerTlsFlagValues } from './server-tls-flags.ts';

/** The parsed values of the shared flags, by long name, as the argument parser gives them. */
export interface SharedFlagValues extends ServerTlsFlagValues {
  readonly kubeconfig: string;
  readonly context: string;
  readonly namespace: string;
  readonly 'server-endpoint': string;
  readonly 'snapshot-token-file'?: string | undefined;
  readonly output: string;
  readonly 'config-only': boolean;
  readonly 'fail-on': string;
  readonly suppress: readonly string[];
  readonly 'suppress-file'?: string | undefined;
  readonly 'docs-base'?: string | undefined;
  readonly timeout: string;
  readonly 'pod-labels-file'?: string | undefined;
}

/** The part of a run's options that the shared flags decide. */
export type SharedRunOptions = Pick<
  DoctorOptions,
  | 'kubeconfig'
  | 'context'
  | 'namespace'
  | 'serverEndpoint'
  | 'serverTls'
  | 'snapshotTokenFile'
  | 'output'
  | 'configOnly'
  | 'failOn'
  | 'docsBase'
  | 'suppress'
  | 'suppressFile'
  | 'timeoutMs'
  | 'podLabelsFile'
>;

/** Checks the shared flags' values and makes the options they decide, or throws {@link UsageError}. */
export function sharedRunOptions(values: SharedFlagValues): SharedRunOptions {
  const endpoint = values['server-endpoint'] === '' ? undefined : parseServerEndpoint(values['server-endpoint']);
  const tokenFile = values['snapshot-token-file'];
  const docsBase = values['docs-base'] === undefined ? undefined : parseDocsBase(values['docs-base']);
  const suppress = values.suppress.map((text) => {
    try {
      return parseSuppressFlag(text);
    } catch (err) {
      throw err instanceof RuleError ? new UsageError(err.message) : err;
    }
  });
  const suppressFile = values['suppress-file'];
  if (suppressFile === '') throw new UsageError('invalid --suppress-file "": name a file');
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespace: parseNamespace(values.namespace),
    ...(endpoint === undefined ? {} : { serverEndpoint: endpoint }),
    serverTls: parseServerTlsFlags(values),
    ...(tokenFile === undefined ? {} : { snapshotTokenFile: tokenFile }),
    output: parseOutput('doctor', values.output),
    configOnly: values['config-only'],
    failOn: parseStatusFlag('--fail-on', values['fail-on']),
    ...(docsBase === undefined ? {} : { docsBase }),
    suppress,
    ...(suppressFile === undefined ? {} : { suppressFile }),
    timeoutMs: parseDeadline('--timeout', values.timeout),
    ...(values['pod-labels-file'] === undefined ? {} : { podLabelsFile: values['pod-labels-file'] }),
  };
}
