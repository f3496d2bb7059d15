import type { CodeDeclaration, Declaration } from './check.ts';
import { emitterFor } from './check.ts';

/** SUP001: a rule matched no finding of this run. */
const SUP001: CodeDeclaration = {
  status: 'INFO',
  meaning: 'A suppression rule matched no finding of this run.',
  hint: 'Remove the rule (flag, file entry or annotation) if the problem it silenced is gone, or fix its code or resource glob.',
  fix: "1. If the problem the rule silenced is gone, remove the rule: the --suppress flag, the entry of the --suppress-file, or the code in the object's inferencecache.io/doctor-suppress annotation (the finding says which). 2. Otherwise correct its code or resource glob: compare it with the resource of the finding it was meant for, in doctor -o json.",
};

/** SUP002: a rule is past its `expires` and no longer suppresses. */
const SUP002: CodeDeclaration = {
  status: 'INFO',
  meaning: 'A suppression rule is past its expires date, so the findings it matched count again.',
  hint: 'Fix what the rule silenced, or renew the rule with a new expires date and a reason that still holds.',
  fix: '1. The findings the rule matched count again from now on. 2. Fix what it silenced and remove the rule; or, if its reason still holds, give it a new expires date and bring the reason up to date in the suppression file.',
};

/**
 * SUP003: an object's annotation lists entries that are no code of the code table. One finding per
 * object names a few of them and counts them all, however many the annotation holds.
 */
const SUP003: CodeDeclaration = {
  status: 'INFO',
  meaning: "An object's suppression annotation names codes that do not exist, so they suppress nothing.",
  hint: "Correct or remove them in the object's inferencecache.io/doctor-suppress annotation; 'inferencecache codes' lists the codes that exist.",
  fix: "1. Correct the misspelt codes or remove them in the object's inferencecache.io/doctor-suppress annotation, for example kubectl -n <namespace> annotate cachebackend <name> inferencecache.io/doctor-suppress=CB004 --overwrite. 2. inferencecache codes lists the codes of this version, and inferencecache explain CODE says what one means.",
};

/**
 * The suppression stage, declared as the checks are: the findings it adds about the rules themselves,
 * and the read it takes (the Namespaces' annotations; the other annotated Kinds the checks read
 * anyway). It runs after every check, on their findings (`apply.ts`).
 */
export const SUPPRESSIONS = {
  name: 'Suppressions',
  codes: { SUP001, SUP002, SUP003 },
  reads: { namespaces: 'optional' },
  probes: {},
} as const satisfies Declaration;

/** Makes the stage's findings. */
export const emitSuppression = emitterFor(SUPPRESSIONS.name, SUPPRESSIONS.codes);
