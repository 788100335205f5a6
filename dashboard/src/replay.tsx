/**
 * Steps through a job's history on the statechart: each step is one history
 * row, marking the state it reached and the edge it took to get there.
 */
import { useEffect, useState } from 'preact/hooks';
import { duration } from './format';
import type { HistoryRow } from './types';

interface Props {
  history: HistoryRow[];
  /** How long the job has been in the state each row reached (undefined: still there, final). */
  spent: (number | undefined)[];
  onStep(step: number): void;
}

const STEP_MS = 900;

export function Replay({ history, spent, onStep }: Props) {
  const last = history.length - 1;
  const [step, setStep] = useState(last);
  const [playing, setPlaying] = useState(false);

  useEffect(() => {
    // a fresh history (live update) puts the marker back on the present
    setStep(history.length - 1);
    setPlaying(false);
  }, [history]);

  useEffect(() => onStep(step), [step, history]);

  useEffect(() => {
    if (!playing) return;
    if (step >= last) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => setStep((s) => Math.min(last, s + 1)), STEP_MS);
    return () => clearTimeout(timer);
  }, [playing, step, last]);

  const row = history[step];
  if (!row) return null;
  const time = spent[step];
  return (
    <div class="replay">
      <div class="row">
        <button type="button" class="small" data-testid="replay-prev" aria-label="Step back" disabled={step <= 0} onClick={() => setStep(step - 1)}>
          ◀
        </button>
        <button
          type="button"
          class="small"
          data-testid="replay-play"
          onClick={() => {
            if (playing) return setPlaying(false);
            if (step >= last) setStep(0);
            setPlaying(true);
          }}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <button type="button" class="small" data-testid="replay-next" aria-label="Step forward" disabled={step >= last} onClick={() => setStep(step + 1)}>
          ▶
        </button>
        <span data-testid="replay-step" aria-live="polite">
          {step + 1} / {history.length}: {row.to}
        </span>
      </div>
      <p class="muted small-text">
        time in {row.to}: {time === undefined ? (step === last ? 'final state' : '–') : duration(time)}
        {step === last && time !== undefined ? ' so far' : ''}
      </p>
    </div>
  );
}
