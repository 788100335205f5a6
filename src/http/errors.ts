/**
 * Every error the HTTP API answers is `{ error: { code, message } }` with the
 * engine's stable codes; the status follows from the code. A payload a job's
 * schema refused (`LJ_ERR_INVALID_PAYLOAD`) adds the schema's `issues`, and
 * the batch item's `index`. Fastify's own
 * errors (bad JSON, a body over the limit, schema validation) are mapped to
 * the same codes, so a client branches on `code` alone.
 */
import type { FastifyError } from 'fastify';
import { LitejobsError, PayloadValidationError, type ErrorCode, type PayloadIssue } from '../errors.js';

/** An error the HTTP layer raises itself (auth, signatures, routes). */
export class HttpError extends LitejobsError {
  readonly statusCode: number;
  constructor(statusCode: number, code: ErrorCode, message?: string) {
    super(code, message);
    this.statusCode = statusCode;
  }
}

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  LJ_ERR_VALIDATION: 400,
  LJ_ERR_UNKNOWN_OPTION: 400,
  LJ_ERR_PAYLOAD_NOT_JSON: 400,
  LJ_ERR_PAYLOAD_TOO_LARGE: 413,
  LJ_ERR_INVALID_PAYLOAD: 400,
  LJ_ERR_BAD_CRON: 400,
  LJ_ERR_JOB_NOT_FOUND: 404,
  LJ_ERR_NOT_FOUND: 404,
  LJ_ERR_INVALID_TRANSITION: 409,
  LJ_ERR_JOB_FINISHED: 409,
  LJ_ERR_MAILBOX_FULL: 429,
  LJ_ERR_UNAUTHORIZED: 401,
  LJ_ERR_READ_ONLY: 403,
  LJ_ERR_BAD_SIGNATURE: 401,
  LJ_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  LJ_ERR_CROSS_SITE: 403,
  LJ_ERR_HOST_NOT_ALLOWED: 421,
  LJ_ERR_QUEUE_CLOSED: 503,
  LJ_ERR_DATABASE: 503,
  LJ_ERR_DATABASE_UNAVAILABLE: 503,
  LJ_ERR_DATABASE_OPEN: 503,
  LJ_ERR_DATABASE_READONLY: 503,
};

/**
 * What a client is told of a database failure: the code and a sentence, no
 * more. The error's own message names the file or the connection (user,
 * host, database, schema) and the driver's words about the statement; the
 * server logs it whole (plugin.ts).
 */
const DATABASE_ANSWERS: Partial<Record<ErrorCode, string>> = {
  LJ_ERR_DATABASE: "the database failed this request; the server's log has the detail",
  LJ_ERR_DATABASE_UNAVAILABLE: 'the database is unavailable; try again later',
  LJ_ERR_DATABASE_OPEN: "the database could not be opened; the server's log has the detail",
  LJ_ERR_DATABASE_READONLY: 'the database is read-only: nothing can be written now',
};

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** `LJ_ERR_INVALID_PAYLOAD`: what the job's schema found wrong, each with the path to the value. */
    issues?: ReadonlyArray<PayloadIssue>;
    /** `LJ_ERR_INVALID_PAYLOAD` in a batch: the position of the refused job in `jobs`. */
    index?: number;
  };
}

/** The status and body for any error a route or fastify raised. */
export function toErrorReply(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof HttpError) return reply(err.statusCode, err.code, err.message);
  if (err instanceof PayloadValidationError) {
    const { status, body } = reply(400, err.code, err.message);
    return { status, body: { error: { ...body.error, issues: err.issues, ...(err.index === undefined ? {} : { index: err.index }) } } };
  }
  if (err instanceof LitejobsError) {
    const general = DATABASE_ANSWERS[err.code];
    // The detail (a path, a connection's user, host, database and schema) goes to the server's log, never to a client.
    if (general !== undefined) return reply(STATUS_BY_CODE[err.code] ?? 503, err.code, general);
    return reply(STATUS_BY_CODE[err.code] ?? 500, err.code, err.message);
  }
  const e = err as Partial<FastifyError> & { validation?: Array<{ keyword: string; params?: Record<string, unknown> }> };
  if (e.validation) {
    const unknown = e.validation.find((v) => v.keyword === 'additionalProperties');
    if (unknown) return reply(400, 'LJ_ERR_UNKNOWN_OPTION', `unknown field "${String(unknown.params?.additionalProperty)}" (${e.message})`);
    return reply(400, 'LJ_ERR_VALIDATION', e.message ?? 'invalid request');
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply(413, 'LJ_ERR_PAYLOAD_TOO_LARGE', 'request body is over the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply(415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return reply(400, 'LJ_ERR_PAYLOAD_NOT_JSON', `request body is not valid JSON: ${e.message ?? ''}`.trim());
  }
  // A body's JSON (the parser marks it a 400); a SyntaxError from anywhere else is the server's own failure.
  if (err instanceof SyntaxError && e.statusCode === 400) return reply(400, 'LJ_ERR_PAYLOAD_NOT_JSON', `request body is not valid JSON: ${err.message}`);
  // A file the static handler will not serve (a dotfile, a path out of its folder): not there, as far as a client learns.
  if (e.statusCode === 403 || e.statusCode === 404) return reply(404, 'LJ_ERR_NOT_FOUND', 'not found');
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
  return reply(status, status === 500 ? 'LJ_ERR_INTERNAL' : 'LJ_ERR_VALIDATION', status === 500 ? 'internal error' : (e.message ?? 'bad request'));
}

const reply = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
