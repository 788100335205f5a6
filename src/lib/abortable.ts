/**
 * Per-job abort state. Most handlers never look at their signal, and an
 * AbortController with its listener is a measurable cost per job, so the
 * controller is created only when `signal` is first read.
 */
export class Abortable {
  /** Why the job was aborted (a reason string or a TimeoutError); undefined while it runs. */
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
