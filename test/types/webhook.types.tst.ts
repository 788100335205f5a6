/**
 * The webhook job's types: its default name and its payload and result flow
 * into a typed queue. Type-checked by `npm test` (tsc), never run.
 */
import { expectTypeOf } from 'vitest';
import { createQueue, defineWebhookJob, type WebhookResult } from '../../src/index.js';

// Never called: the types are what is under test.
export async function webhookTypes(): Promise<void> {
  const queue = createQueue({ path: 'x.db', jobs: [defineWebhookJob(), defineWebhookJob({ name: 'partner' })] });
  await queue.enqueue('webhook', { url: 'https://example.com/hook', body: { id: 1 } });
  await queue.enqueue('partner', { url: 'https://example.com/hook', method: 'PUT', headers: { 'x-a': '1' } });
  // @ts-expect-error: no job of that name
  await queue.enqueue('webhok', { url: 'https://example.com/hook' });
  // @ts-expect-error: the payload needs a url
  await queue.enqueue('webhook', { body: 'x' });
  const job = await queue.getJob(1);
  if (job.name === 'webhook') expectTypeOf(job.result).toEqualTypeOf<WebhookResult | undefined>();
}
