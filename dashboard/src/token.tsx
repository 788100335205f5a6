/** The form shown when the server wants a bearer token the tab does not have (or has wrong). */
import { useState } from 'preact/hooks';

interface Props {
  error: string | undefined;
  onToken(token: string): void;
}

export function TokenForm({ error, onToken }: Props) {
  const [value, setValue] = useState('');
  return (
    <section class="panel token" aria-labelledby="token-title">
      <h2 id="token-title">This server needs its token</h2>
      <p class="muted">The token stays in this tab only (sessionStorage) and is sent as a bearer header.</p>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <label class="grow">
          <span>Token</span>
          <input type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} required />
        </label>
        <button type="submit" class="primary">
          Use token
        </button>
      </form>
      {error && (
        <p class="inline-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
