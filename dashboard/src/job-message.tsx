/**
 * What a job exchanges with the world, in its detail: the values it
 * published (`ctx.publish`), and, while it waits for a message
 * (`ctx.waitFor`, state `waiting-message`), a form that sends one on its
 * topic (`queue.signal`): a person's approval, a test of a webhook's flow.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText } from './api';
import { toast } from './confirm';

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function PublishedValues({ values }: { values: Record<string, unknown> | undefined }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return null;
  return (
    <>
      <h3>Published</h3>
      <dl class="facts" data-testid="job-published">
        {entries.map(([key, value]) => (
          <Fragment key={key}>
            <dt>{key}</dt>
            <dd>
              <pre class="code">{json(value)}</pre>
            </dd>
          </Fragment>
        ))}
      </dl>
    </>
  );
}

interface MessageProps {
  id: number;
  topic: string;
  /** After the message was sent: the detail reloads. */
  onSent(): void;
}

export function MessageForm({ id, topic, onSent }: MessageProps) {
  const [text, setText] = useState('{}');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const send = async (event: Event) => {
    event.preventDefault();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      setProblem(`not JSON: ${(e as Error).message}`);
      return;
    }
    setProblem(undefined);
    setSending(true);
    try {
      const r = await api.signal(id, topic, data);
      toast(r.woke ? `job ${id} woke with the message on ${topic}` : `the message waits in job ${id}'s mailbox`);
      onSent();
    } catch (e) {
      toast(errorText(e), 'error');
    } finally {
      setSending(false);
    }
  };
  return (
    <form class="message" data-testid="job-message" onSubmit={(e) => void send(e)}>
      <h3>Waiting for a message on “{topic}”</h3>
      <label>
        <span>message (JSON)</span>
        <textarea rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} aria-invalid={problem !== undefined} />
      </label>
      {problem && <p class="error">{problem}</p>}
      <button type="submit" disabled={sending}>
        Send message
      </button>
    </form>
  );
}
