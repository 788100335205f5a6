/**
 * The dashboard's payload search, `payload.customer = 42 and payload.plan ~ pro`,
 * parsed into clauses every store compiles to its own SQL. Parsing is strict:
 * anything that is not a clause is a ValidationError naming the problem, so a
 * typo never silently matches everything (or nothing).
 */
import { ValidationError } from '../errors.js';

export type WhereOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~';
export type WhereValue = string | number | boolean | null;

export interface WhereClause {
  /** Keys below the payload, outermost first: `payload.address.city` → `['address', 'city']`. */
  path: string[];
  op: WhereOp;
  value: WhereValue;
}

const MAX_LENGTH = 1000;
const MAX_CLAUSES = 8;
const OPS: readonly WhereOp[] = ['<=', '>=', '!=', '=', '<', '>', '~'];
const KEY = /^[A-Za-z_$][\w$-]*$/;

/** Splits on whitespace outside double-quoted strings, keeping quoted strings whole. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]!)) {
      if (text[j] === '"') {
        j++;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (j >= text.length) throw new ValidationError('search: a string is not closed (missing ")');
      }
      j++;
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

/** The operator a text starts with, longest first (`<=` before `<`). */
function leadingOp(text: string): WhereOp | undefined {
  return OPS.find((op) => text.startsWith(op));
}

/** A field written against its operator (`payload.a>=5`): the field, then what follows. */
function splitField(token: string): string[] {
  const at = token.search(/[<>!=~]/);
  return at > 0 ? [token.slice(0, at), token.slice(at)] : [token];
}

function parsePath(token: string): string[] {
  const parts = token.split('.');
  if (parts[0] !== 'payload' || parts.length < 2) {
    throw new ValidationError(`search: "${token}" is not a payload field (write payload.<field>, e.g. payload.customer)`);
  }
  const path = parts.slice(1);
  for (const key of path) {
    if (!KEY.test(key)) throw new ValidationError(`search: "${key}" in "${token}" is not a field name`);
  }
  return path;
}

function parseValue(token: string): WhereValue {
  if (token.startsWith('"')) {
    try {
      return JSON.parse(token) as string;
    } catch {
      throw new ValidationError(`search: ${token} is not a valid string`);
    }
  }
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(token)) return Number(token);
  return token; // a bare word is a string
}

function checkClause(clause: WhereClause): WhereClause {
  const { op, value } = clause;
  if (typeof value === 'string' && value.includes('\0')) throw new ValidationError('search: a value must not contain a NUL character');
  if (op === '~' && typeof value !== 'string') throw new ValidationError('search: ~ (contains) takes a string');
  if ((value === null || typeof value === 'boolean') && op !== '=' && op !== '!=') {
    throw new ValidationError(`search: ${String(value)} can only be compared with = or !=`);
  }
  return clause;
}

/** Parses a search; an empty or blank text is no search (`[]`). */
export function parseWhere(text: string): WhereClause[] {
  if (text.length > MAX_LENGTH) throw new ValidationError(`search: longer than ${MAX_LENGTH} characters`);
  const words = tokens(text);
  const clauses: WhereClause[] = [];
  while (words.length > 0) {
    if (clauses.length > 0) {
      const joiner = words.shift()!;
      if (joiner.toLowerCase() !== 'and') throw new ValidationError(`search: expected "and" before "${joiner}"`);
      if (words.length === 0) throw new ValidationError('search: a clause is missing after "and"');
    }
    const [field, rest] = splitField(words.shift()!);
    if (rest !== undefined) words.unshift(rest);
    const opWord = words.shift();
    const op = opWord === undefined ? undefined : leadingOp(opWord);
    if (op === undefined) throw new ValidationError(`search: expected an operator (${OPS.join(' ')}) after "${field}"`);
    if (opWord!.length > op.length) words.unshift(opWord!.slice(op.length));
    const value = words.shift();
    if (value === undefined) throw new ValidationError(`search: a value is missing after "${field} ${op}"`);
    clauses.push(checkClause({ path: parsePath(field!), op, value: parseValue(value) }));
  }
  if (clauses.length > MAX_CLAUSES) throw new ValidationError(`search: at most ${MAX_CLAUSES} clauses`);
  return clauses;
}
