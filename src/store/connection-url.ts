/**
 * A `postgres://` URL's `?schema=` parameter: the schema litejobs' tables
 * live in. The driver does not know that parameter, so it is taken off the
 * URL before the URL reaches it. `createQueue({ connection })` and the CLI's
 * `--db` read it the same way, so one URL means one schema everywhere.
 */
export interface ConnectionTarget {
  /** The URL without `schema`. */
  connection: string;
  /** The URL's `schema`, when it has one. */
  schema?: string;
}

/** Splits `?schema=` off a postgres:// URL; null when the text is no valid URL. */
export function splitSchemaParam(url: string): ConnectionTarget | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { connection: url };
  parsed.searchParams.delete('schema');
  return { connection: parsed.toString(), schema };
}

/** Query parameters the pg driver reads a secret from (pg-connection-string). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** The URL with its password (if any, in the user part or as `?password=`) replaced by `***`: what a log line may show. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    const params = SECRET_PARAMS.filter((p) => parsed.searchParams.has(p));
    if (parsed.password === '' && params.length === 0) return url;
    if (parsed.password !== '') parsed.password = '***';
    for (const p of params) parsed.searchParams.set(p, '***');
    return parsed.toString();
  } catch {
    return 'postgres (connection string not shown)';
  }
}
