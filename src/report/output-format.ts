/**
 * The values of `--output`, in a module of their own so that parsing the command line loads no
 * renderer.
 *
 * @module
 */

/** The values of `--output`, the default first. */
export const OUTPUT_FORMATS = ['human', 'json', 'table', 'junit'] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
