import type { CodeDeclaration, Declaration } from './check.ts';
import { emitterFor } from './check.ts';

/** SUP001: a rule matched no finding of this run. */
const SUP001: CodeDeclaration = {
  status: 'INFO',
  meaning: 'A suppression rule matched no finding of this run.',
  hint: 'Remove the rule (flag, file entry or annotation) if the problem it silenced is gone, or fix its code or resource glob.',
};

/** SUP002: a rule is past its `expires` and no longer suppresses. */
const SUP002: CodeDeclaration = {
  status: 'INFO',
  meaning: 'A suppression rule is past its expires date, so the findings it matched count again.',
  hint: 'Fix what the rule silenced, or renew the rule with a new expires date and a reason that still holds.',
};

/**
 * The suppression stage, declared as the checks are: the findings it adds about the rules themselves,
 * and the read it takes (the Namespaces' annotations; the other annotated Kinds the checks read
 * anyway). It runs after every check, on their findings (`apply.ts`).
 */
export const SUPPRESSIONS = {
  name: 'Suppressions',
  codes: { SUP001, SUP002 },
  reads: { namespaces: 'optional' },
  probes: {},
} as const satisfies Declaration;

/** Makes the stage's findings. */
export const emitSuppression = emitterFor(SUPPRESSIONS.name, SUPPRESSIONS.codes);
