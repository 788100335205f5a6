/**
 * A job name's limits changed from the page (`PUT /v1/names/:name/limits`,
 * `DELETE` to give the definitions' back): every started queue takes the
 * change up within a second. The form holds the limits in force; an empty
 * field turns that limit off.
 */
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import type { NameLimit } from './types';

/** The fields as the form holds them: text, as typed. */
interface Draft {
  max: string;
  per: string;
  perGroup: boolean;
  global: string;
  group: string;
}

const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

function draftOf(limit: NameLimit): Draft {
  return { max: text(limit.rateLimit?.max), per: text(limit.rateLimit?.perMs), perGroup: limit.rateLimit?.perGroup ?? false, global: text(limit.globalConcurrency), group: text(limit.groupConcurrency) };
}

export type LimitChangesBody = { rateLimit?: { max: number; per: number | string; perGroup: boolean } | null; globalConcurrency?: number | null; groupConcurrency?: number | null };

/**
 * What the form asks for: only the limits the operator changed (each set, or null: off), so a save
 * leaves the others to the definitions and to other operators' changes. A field that is not a whole
 * number, or a rate without its max or its window, is an error to show, not a limit turned off.
 */
export function changesOf(d: Draft, was: Draft): LimitChangesBody | string {
  const whole = (what: string, s: string): number | null | string => {
    const t = s.trim();
    if (t === '') return null;
    return /^\d+$/.test(t) ? Number(t) : `${what} must be a whole number (or empty: none)`;
  };
  const out: LimitChangesBody = {};
  const max = whole('the rate\'s max', d.max);
  const per = d.per.trim();
  if (typeof max === 'string') return max;
  if (d.max !== was.max || d.per !== was.per || d.perGroup !== was.perGroup) {
    if ((max === null) !== (per === '')) return 'a rate needs both its max and its window (both empty: no rate)';
    out.rateLimit = max === null ? null : { max, per: /^\d+$/.test(per) ? Number(per) : per, perGroup: d.perGroup };
  }
  for (const [key, what, now, before] of [['globalConcurrency', 'global conc.', d.global, was.global], ['groupConcurrency', 'group conc.', d.group, was.group]] as const) {
    const n = whole(what, now);
    if (typeof n === 'string') return n;
    if (now.trim() !== before.trim()) out[key] = n;
  }
  return Object.keys(out).length === 0 ? 'nothing changed' : out;
}

export function LimitEditor({ limit, onDone }: { limit: NameLimit; onDone: (message: string) => void }) {
  const [was] = useState<Draft>(() => draftOf(limit));
  const [draft, setDraft] = useState<Draft>(was);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const field = (key: keyof Draft) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [key]: key === 'perGroup' ? e.currentTarget.checked : e.currentTarget.value });
  const act = async (call: () => Promise<unknown>, message: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      onDone(message);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="limit-editor"
      data-testid="limit-editor"
      onSubmit={(e) => {
        e.preventDefault();
        const changes = changesOf(draft, was);
        if (typeof changes === 'string') return setError(changes);
        void act(() => api.setLimits(limit.name, changes), `Limits of ${limit.name} changed`);
      }}
    >
      <fieldset disabled={busy}>
        <legend>Limits of {limit.name}, in every process within a second (empty: none)</legend>
        <label>
          rate: at most <input name="max" inputMode="numeric" size={6} value={draft.max} onInput={field('max')} />
        </label>
        <label>
          per <input name="per" size={8} placeholder="1s, 500 (ms)" value={draft.per} onInput={field('per')} />
        </label>
        <label>
          <input name="perGroup" type="checkbox" checked={draft.perGroup} onChange={field('perGroup')} /> per group
        </label>
        <label>
          global conc. <input name="global" inputMode="numeric" size={6} value={draft.global} onInput={field('global')} />
        </label>
        <label>
          group conc. <input name="group" inputMode="numeric" size={6} value={draft.group} onInput={field('group')} />
        </label>
        <button type="submit" class="primary">
          Save
        </button>
        {limit.changed && (
          <button type="button" onClick={() => void act(() => api.resetLimits(limit.name), `Limits of ${limit.name} back to its definitions`)}>
            Back to the definitions
          </button>
        )}
      </fieldset>
      {error && (
        <p class="inline-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
