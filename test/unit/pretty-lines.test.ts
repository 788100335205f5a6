/**
 * The demo's log formatter: one readable line per pino record, whatever the
 * record holds, and nothing lost that the demo's reader needs.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { formatLine, prettyLines } from '../../src/cli/pretty-lines.js';

const at = new Date(2026, 10, 3, 9, 5, 7).getTime(); // local time 09:05:07

describe('formatLine', () => {
  it('writes time, level and message, then the other fields as key=value, without pid and hostname', () => {
    const line = JSON.stringify({ level: 20, time: at, pid: 1, hostname: 'h', queue: 'default', jobId: 4, from: null, msg: 'job pending → processing' });
    expect(formatLine(line)).toBe('09:05:07 DEBUG job pending → processing queue=default jobId=4 from=null');
  });

  it('quotes strings with spaces, writes objects as JSON and a serialised error as its message', () => {
    const err = { type: 'Object', name: 'Error', message: 'simulated failure on attempt 1', stack: 'Error: simulated…\n    at handler' };
    const line = JSON.stringify({ level: 40, time: at, msg: 'attempt failed; will retry', err, to: 'ada@example.com', note: 'two words', result: { pages: 4 } });
    expect(formatLine(line)).toBe(
      '09:05:07 WARN  attempt failed; will retry err="simulated failure on attempt 1" to=ada@example.com note="two words" result={"pages":4}',
    );
  });

  it('colours the level only when asked', () => {
    const line = JSON.stringify({ level: 50, time: at, msg: 'job is dead' });
    expect(formatLine(line, { color: true })).toBe('09:05:07 \x1b[31mERROR\x1b[0m job is dead');
    expect(formatLine(line)).not.toContain('\x1b[');
  });

  it('never writes a control character it was given: message, keys, values and lines that are not records show them escaped', () => {
    const title = '\x1b]0;pwned\x07';
    const clear = '\x1b[2J';
    expect(formatLine(JSON.stringify({ level: `x${clear}`, msg: 'm' }))).toBe('--:--:-- x\\x1b[2J m');
    const record = { level: 30, time: 0, msg: `job ran ${title}${clear}`, [`k${clear}`]: 1, word: `a${clear}`, spaced: `a b${title}`, err: { message: `boom${clear}`, stack: 'x' }, nested: { t: title } };
    const lines = [formatLine(JSON.stringify(record)), formatLine(`not json ${clear}`), formatLine(`[1,"${clear}"]`)];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it looks for
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(lines[0]).toContain('job ran \\x1b]0;pwned\\x07\\x1b[2J');
    expect(lines[0]).toContain('k\\x1b[2J=1');
    expect(lines[1]).toBe('not json \\x1b[2J');
  });

  it('passes a line that is not a JSON object through unchanged', () => {
    expect(formatLine('plain text')).toBe('plain text');
    expect(formatLine('[1,2]')).toBe('[1,2]');
  });
});

describe('prettyLines', () => {
  it('is a pino destination: each record becomes one formatted line, written synchronously', () => {
    const written: string[] = [];
    const logger = pino({ level: 'debug' }, prettyLines({ write: (text: string) => written.push(text) }, { color: false }));
    logger.info({ jobId: 1, created: true }, 'enqueued');
    logger.debug('all demo jobs finished');
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}enqueued jobId=1 created=true\n$/);
    expect(written[1]).toMatch(/^\d\d:\d\d:\d\d DEBUG all demo jobs finished\n$/);
  });
});
