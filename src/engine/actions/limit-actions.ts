/**
 * The queue's limit controls: what is limited and how busy (`limits`), a
 * group's own concurrency (`setGroupConcurrency`), and a job name's limits
 * changed while the queue runs (`setLimits`, `resetLimits`; live-limits.ts),
 * which every started queue takes up within a second.
 */
import type { Logger } from '../../lib/logger.js';
import { checkString } from '../../lib/validate.js';
import type { Engine } from '../core/engine.js';
import type { Inspection } from './inspection.js';
import { limitChangesText, type LimitChanges } from '../core/live-limits.js';
import { checkGroupConcurrency, type LimitsView, type NameLimitView } from './limits-view.js';

export interface LimitActions {
  limits(): Promise<LimitsView>;
  setGroupConcurrency(group: string, concurrency: number | null): Promise<void>;
  setLimits(name: string, changes: LimitChanges): Promise<NameLimitView>;
  resetLimits(name: string): Promise<NameLimitView>;
}

export function createLimitActions(engine: Engine & { readonly inspect: Inspection }, o: { open: () => void; logger: Pick<Logger, 'info'> }): LimitActions {
  const { inspect } = engine;
  const own = new Set(engine.definitions.keys());
  /** The limits view; `include`: a name listed whatever the bound (the one a caller just changed). */
  const limitsWith = async (include?: string): Promise<LimitsView> => {
    o.open();
    await engine.refreshLimits();
    return inspect.limits(engine.limits, engine.changedLimits(), { own, ...(include === undefined ? {} : { include }) });
  };
  const limits = () => limitsWith();
  /** The name's limits as every process takes them up now (listed even with none: nothing limits it). */
  const nameNow = async (name: string): Promise<NameLimitView> => {
    const view = await limitsWith(name);
    return view.names.find((n) => n.name === name) ?? { name, groupConcurrency: null, globalConcurrency: null, rateLimit: null, running: 0, tokensLeft: null, pausedUntil: null };
  };
  return {
    limits,
    async setGroupConcurrency(group, concurrency) {
      o.open();
      const checked = checkGroupConcurrency(group, concurrency);
      await inspect.setGroupConcurrency(checked.group, checked.concurrency);
      o.logger.info({ group: checked.group, concurrency: checked.concurrency }, 'group concurrency set');
      engine.wake();
    },
    async setLimits(name, changes) {
      o.open();
      const checked = checkString('setLimits name', name, 200);
      await engine.store.saveNameLimits(checked, limitChangesText(checked, changes), engine.clock.now());
      o.logger.info({ name: checked, changes }, 'limits changed');
      return nameNow(checked);
    },
    async resetLimits(name) {
      o.open();
      const checked = checkString('resetLimits name', name, 200);
      await engine.store.saveNameLimits(checked, null, engine.clock.now());
      o.logger.info({ name: checked }, 'limits back to the definitions');
      return nameNow(checked);
    },
  };
}
