// vitest globalSetup of the project `integration-oldest`: the control plane on the oldest Kubernetes
// minor the chart admits (KUBERNETES_OLDEST_VERSION), for the control-plane suites' second pass.
import { controlPlaneSetup } from './controlplane-setup.ts';

export default controlPlaneSetup('oldest');
