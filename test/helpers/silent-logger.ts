import { pino } from 'pino';

/** A logger that writes nothing (tests assert on events, not log lines). */
export const silentLogger = pino({ level: 'silent' });
