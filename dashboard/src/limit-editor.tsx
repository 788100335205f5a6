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

/** What the form asks for: each limit set, or null (off). The server checks the numbers. */
export function changesOf(d: Draft): { rateLimit: { max: number; per: number | string; perGroup: boolean } | null; globalConcurrency: number | null; groupConcurrency: number | null } {
  const num = (s: string) => (s.trim() === '' ? null : Number(s.trim()));
  const per = d.per.trim();
  return {
    rateLimit: d.max.trim() === '' && per === '' ? null : { max: num(d.max) ?? Number.NaN, per: /^\d+$/.test(per) ? Number(per) : per, perGroup: d.perGroup },
    globalConcurrency: num(d.global),
    groupConcurrency: num(d.group),
  };
}

export function LimitEditor({ limit, onDone }: { limit: NameLimit; onDone: (message: string) => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(limit));
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
        void act(() => api.setLimits(limit.name, changesOf(draft)), `Limits of ${limit.name} changed`);
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
