// Vitest's asymmetric matchers typed `unknown` rather than `any`, so an expected value holding one stays type-checked.
import { expect } from 'vitest';

/** Any string matching `pattern` (expect.stringMatching). */
export const matching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);

/** Any string containing `text` (expect.stringContaining). */
export const containing = (text: string): unknown => expect.stringContaining(text);

/** Any object with at least these fields, compared recursively (expect.objectContaining). */
export const withFields = (fields: Record<string, unknown>): unknown => expect.objectContaining(fields);
