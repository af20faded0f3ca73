// Turn a scenario name into a safe folder-name fragment: lowercase [a-z0-9-] only, so no name can make a path.

const MAX_SLUG = 60;

/** Lowercase, ASCII-fold, collapse every other run of characters to "-", trim, cap at `maxLength`; "scenario" when
 * nothing is left. */
export function slug(name: string, maxLength = MAX_SLUG): string {
  const folded = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = folded.slice(0, maxLength).replace(/-+$/g, '');
  return cut === '' ? 'scenario' : cut;
}
