// Text the journal's fast path matches byte for byte: keys with their quotes and colon, punctuation, and the few
// string values it recognises without decoding (event types, kill phases, outcomes).

/**
 * Exact ASCII text to match (punctuation, a key with its quotes and colon). Four bytes and up are compared a 32-bit
 * word at a time (the last word may overlap the one before): most of a journal line is key text.
 */
export interface Literal {
  bytes: Uint8Array;
  /** Byte offsets of the words to compare, and their values (little-endian). */
  offsets: Int32Array;
  words: Int32Array;
}

/** The Literal of an ASCII text. */
export function literal(text: string): Literal {
  const bytes = Uint8Array.from(text, (ch) => ch.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const starts =
    bytes.length < 4
      ? []
      : [...Array.from({ length: Math.floor(bytes.length / 4) }, (_, k) => 4 * k), bytes.length - 4];
  const offsets = Int32Array.from(new Set(starts));
  return { bytes, offsets, words: offsets.map((o) => view.getInt32(o, true)) };
}

/** A string value the cursor can recognise without decoding: its text and its JSON form, quotes included. */
export interface KnownString<T extends string> {
  value: T;
  json: Literal;
}

/** The recognisable forms of a set of string values. */
export function knownStrings<T extends string>(values: readonly T[]): KnownString<T>[] {
  return values.map((value) => ({ value, json: literal(JSON.stringify(value)) }));
}
