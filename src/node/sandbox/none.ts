/**
 * The backend used when no OS sandbox is available: every run is refused, with the reason.
 * There is deliberately no backend that runs a subprocess without a sandbox, and no flag for one.
 */
import { NO_SANDBOX_REASON, type Sandbox } from '../../core/sandbox.js';

export function noSandbox(why: string): Sandbox {
  const reason = `${NO_SANDBOX_REASON}: ${why}`;
  return {
    kind: 'none',
    unavailable: reason,
    describe: () => `none: ${why}`,
    run: async () => ({ kind: 'refused', reason }),
  };
}
