/** Polling that stops while the tab is hidden and catches up when it is shown again. */
import { useEffect, useRef } from 'preact/hooks';

export function useVisibleInterval(ms: number, run: () => unknown, deps: unknown[] = []): void {
  const latest = useRef(run);
  latest.current = run;
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer !== undefined || document.hidden) return;
      void latest.current();
      timer = setInterval(() => void latest.current(), ms);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => (document.hidden ? stop() : start());
    document.addEventListener('visibilitychange', onVisibility);
    start();
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [ms, ...deps]);
}
