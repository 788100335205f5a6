/** The alert rules shipped in docs/guides/observability/ pass `promtool check rules` (Debian's prometheus package, installed by .ci/run). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RULES = fileURLToPath(new URL('../../docs/guides/observability/alerts.yml', import.meta.url));

describe('docs/guides/observability/alerts.yml', () => {
  it('passes promtool check rules', () => {
    const check = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(check.error, 'promtool is missing: apt-get install prometheus (.ci/run does)').toBeUndefined();
    expect({ status: check.status, out: `${check.stdout}${check.stderr}`.trim() }).toEqual({ status: 0, out: expect.stringContaining('SUCCESS: 6 rules found') });
  });
});
