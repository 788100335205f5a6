/**
 * A payload given as JSON text, stored as it is: a webhook's body keeps the
 * provider's bytes (a number past 2^53 keeps its digits in the store, where
 * parsing and stringifying again would change it). A job's schema, when it
 * has one, validates the parsed value, and the schema's output is stored.
 * The text must be JSON: its maker has parsed it already.
 */
export class JsonText {
  constructor(readonly text: string) {}
  /** The value, for a schema to validate. */
  parse(): unknown {
    return JSON.parse(this.text);
  }
}
