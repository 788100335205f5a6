/**
 * Confirmation before every action, and toasts after: `confirmAction()` and
 * `toast()` can be called from anywhere once `<Overlays/>` is mounted. The
 * dialog is a native modal `<dialog>` (focus trapped, Escape cancels) that
 * opens with Cancel focused, so a stray Enter does nothing harmful.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

interface Ask {
  title: string;
  body: string;
  ok: string;
  resolve(ok: boolean): void;
}
interface Toast {
  id: number;
  text: string;
  kind: 'ok' | 'error';
}

let ask: ((a: Ask) => void) | undefined;
let push: ((t: Toast) => void) | undefined;
let toastIds = 0;

export function confirmAction(title: string, body: string, ok: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (ask) ask({ title, body, ok, resolve });
    else resolve(false);
  });
}

export function toast(text: string, kind: 'ok' | 'error' = 'ok'): void {
  push?.({ id: ++toastIds, text, kind });
}

export function Overlays() {
  const [pending, setPending] = useState<Ask | undefined>();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    ask = setPending;
    push = (t) => {
      setToasts((all) => [...all.slice(-3), t]);
      setTimeout(() => setToasts((all) => all.filter((x) => x.id !== t.id)), t.kind === 'error' ? 8000 : 4000);
    };
    return () => {
      ask = undefined;
      push = undefined;
    };
  }, []);

  useEffect(() => {
    const el = dialog.current;
    if (!el || !pending) return;
    if (!el.open) el.showModal();
    cancel.current?.focus();
  }, [pending]);

  const close = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(undefined);
    dialog.current?.close();
  };

  return (
    <>
      <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-body" onCancel={() => close(false)}>
        {pending && (
          <form
            method="dialog"
            onSubmit={(event) => {
              event.preventDefault();
              close(true);
            }}
          >
            <h2 id="confirm-title">{pending.title}</h2>
            <p id="confirm-body">{pending.body}</p>
            <div class="row end">
              <button type="button" ref={cancel} data-testid="confirm-cancel" onClick={() => close(false)}>
                Cancel
              </button>
              <button type="submit" class="primary" data-testid="confirm-ok">
                {pending.ok}
              </button>
            </div>
          </form>
        )}
      </dialog>
      <div class="toasts" aria-live="polite" role="status">
        {toasts.map((t) => (
          <div key={t.id} class={`toast ${t.kind}`}>
            {t.text}
          </div>
        ))}
      </div>
    </>
  );
}
