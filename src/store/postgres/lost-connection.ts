/**
 * Which driver errors mean "the server is out of reach", as opposed to "the
 * statement failed": a refused or reset socket, a session the server ended
 * (shutdown, restart, crash of another backend), a server still starting or
 * stopping, or a client the driver already gave up on. The store reports
 * these as LJ_ERR_DATABASE_UNAVAILABLE, which tells the engine to back off
 * and try again rather than give up on the work.
 */

/** Socket errors from Node (`err.code`). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs: 57P01 admin_shutdown (fast or smart stop), 57P02 crash_shutdown
 * (another backend crashed, or an immediate stop), 57P03 cannot_connect_now
 * (starting up, shutting down, in recovery), 53300 too_many_connections.
 * Class 08 (connection exception) is matched by prefix.
 */
const SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** The driver's own words for a connection that ended or cannot be used; it gives them no code. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout expired',
];

export function isConnectionLost(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SQL_STATES.has(code) || code.startsWith('08')) return true;
    // A SQLSTATE of any other kind is the server answering: reachable.
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m))) return true;
  // Connection errors that carry another as their cause (the pool's connection timeout).
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isConnectionLost(cause);
}
