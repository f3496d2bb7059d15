/**
 * The flags of `inferencecache explain`, declared as the doctor's are: its parser and its `--help`
 * derive from {@link EXPLAIN_FLAGS}. `--docs-base` is the doctor's flag (the same default, the same
 * check of its value), reworded for one link instead of a report's.
 *
 * @module
 */
import { defaultFormatOf, formatsOf } from '../report/output-formats.ts';
import { DOCTOR_FLAGS, type DoctorFlag, type FlagDeclaration } from './flags.ts';

/** One of the doctor's flags, by its long name. */
function doctorFlag<L extends DoctorFlag['long']>(long: L): Extract<DoctorFlag, { readonly long: L }> {
  const flag = DOCTOR_FLAGS.find((f): f is Extract<DoctorFlag, { readonly long: L }> => f.long === long);
  if (flag === undefined) throw new Error(`the doctor has no --${long}`);
  return flag;
}

/** The flags of `explain`, in the order its `--help` lists them. */
export const EXPLAIN_FLAGS = [
  {
    long: 'output',
    short: 'o',
    kind: 'string',
    initial: defaultFormatOf('explain'),
    help: formatsOf('explain').join(' or '),
    readme: formatsOf('explain')
      .map((format) => `\`${format}\``)
      .join(' or '),
  },
  { ...doctorFlag('docs-base'), help: 'URL of docs/codes.md that the docs link points under' },
  doctorFlag('help'),
] as const satisfies readonly FlagDeclaration[];

/** One of the flags of `explain`, with its literal types. */
export type ExplainFlag = (typeof EXPLAIN_FLAGS)[number];
