// Turn a scenario name into a safe folder-name fragment: lowercase [a-z0-9-] only, so no name can make a path.

const MAX_SLUG = 60;

/** Lowercase, ASCII-fold, collapse every other run of characters to "-", trim; "scenario" when nothing is left. */
export function slug(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = folded.slice(0, MAX_SLUG).replace(/-+$/g, '');
  return cut === '' ? 'scenario' : cut;
}
