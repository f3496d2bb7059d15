// vitest globalSetup: the process tests and the integration suites run the built bundle, so a run
// builds it first when it is missing or older than its sources (a fresh clone, an edited file).
import { ensureBundle } from '../../dev/bundle.ts';

export function setup(): void {
  ensureBundle();
}

export default setup;
