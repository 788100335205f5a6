/** The page header: title, live connection state, read-only badge and theme toggle. */
import type { Connection } from './sse';

export type Theme = 'light' | 'dark';
const THEME_KEY = 'litejobs-theme';

export function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(theme: Theme, remember: boolean): void {
  document.documentElement.dataset.theme = theme;
  if (remember) localStorage.setItem(THEME_KEY, theme);
}

const CONNECTION_TITLE: Record<Connection, string> = {
  live: 'Receiving live updates',
  reconnecting: 'Connection lost: reconnecting',
  paused: 'Updates paused while the tab is hidden',
};

interface Props {
  connection: Connection | undefined;
  readOnly: boolean;
  theme: Theme;
  onTheme(theme: Theme): void;
}

export function Header({ connection, readOnly, theme, onTheme }: Props) {
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <header class="top">
      <h1>
        <svg class="logo" viewBox="0 0 32 32" aria-hidden="true">
          <rect width="32" height="32" rx="7" />
          <rect x="7" y="8" width="18" height="4" rx="2" fill="#fff" />
          <rect x="7" y="14" width="13" height="4" rx="2" fill="#fff" opacity=".8" />
          <rect x="7" y="20" width="8" height="4" rx="2" fill="#fff" opacity=".6" />
        </svg>
        litejobs
      </h1>
      <div class="row">
        {readOnly && <span class="badge">read-only</span>}
        {connection && (
          <span class={`connection ${connection}`} title={CONNECTION_TITLE[connection]}>
            <span class="dot" aria-hidden="true" />
            <span data-testid="connection">{connection}</span>
          </span>
        )}
        <button type="button" class="ghost" data-testid="theme-toggle" aria-label={`Switch to ${next} theme`} onClick={() => onTheme(next)}>
          {theme === 'dark' ? '☀' : '☾'}
        </button>
      </div>
    </header>
  );
}
