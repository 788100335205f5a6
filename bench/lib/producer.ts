/** What the enqueue, burst and bulk scenarios need from each system. */
export type Payload = { i: number; /** Send time (ms), cross-process latency only. */ t?: number };

export interface Producer {
  /** One job, resolved once the system has stored it. */
  one(payload: Payload): Promise<unknown>;
  /** Many jobs in one call (enqueueMany / addBulk / insert). */
  many(payloads: Payload[]): Promise<unknown>;
  /** Stops and removes everything this producer created. */
  close(): Promise<void>;
}

export interface ProducerPeer {
  label: string;
  system: string;
  requires?: 'redis' | 'postgres';
  open(dir: string): Promise<Producer>;
  /** Jobs per round when this system is much slower than the rest (default: the scenario's). */
  count?: number;
}

export function payloads(n: number, from = 0): Payload[] {
  return Array.from({ length: n }, (_, k) => ({ i: from + k }));
}
