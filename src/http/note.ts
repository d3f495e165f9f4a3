import type { ParameterizedContext } from 'koa';
import { charCount, maxChars } from '../formats/codecs';
import { MAX_NOTE_CHARS } from '../presets/events';
import { badRequest } from './errors';

/**
 * A note on a change: why it was made, stored on its event. Any write may send it in the
 * `Preset-Note` header (percent-encoded UTF-8: headers are ASCII); the PUTs of the designated
 * version and of a label may send `"note"` in their body instead, not both.
 */
export const NOTE_HEADER = 'Preset-Note';
export const NoteField = maxChars(MAX_NOTE_CHARS);

export const noteOf = (ctx: ParameterizedContext, bodyNote?: string): string | undefined => {
  const raw = ctx.get(NOTE_HEADER);
  if (raw !== '' && bodyNote !== undefined) {
    throw badRequest('give the note once: in the Preset-Note header or in the body', [
      { path: NOTE_HEADER, message: 'sent with a body "note"' },
    ]);
  }
  if (raw === '') return bodyNote === '' ? undefined : bodyNote;
  let note: string;
  try {
    note = decodeURIComponent(raw);
  } catch {
    throw badRequest('the Preset-Note header must be percent-encoded UTF-8 (encodeURIComponent)', [
      { path: NOTE_HEADER, message: 'not valid percent-encoding of UTF-8' },
    ]);
  }
  if (charCount(note) > MAX_NOTE_CHARS) {
    throw badRequest(`a note has at most ${MAX_NOTE_CHARS} characters`, [
      { path: NOTE_HEADER, message: `${charCount(note)} characters once decoded` },
    ]);
  }
  return note === '' ? undefined : note;
};
