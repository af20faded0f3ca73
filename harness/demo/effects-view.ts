// The demo's external effects (issue 34) as its page shows them: per key discipline, the requests the world has been
// sent so far (read live from the ledger) and the duplicates and lost effects the accountings after each resume found.
import { DISCIPLINES } from '../effects/plan.js';
import type { RunEffects } from '../run/effects-run.js';
import type { EffectsView } from './state.js';

/** The view of `effects` now. */
export function effectsView(effects: RunEffects): EffectsView {
  const sent = effects.ledger.countsByDiscipline();
  return Object.fromEntries(
    DISCIPLINES.map((d) => [
      d,
      { emitted: sent[d], duplicates: effects.judged[d].duplicates, lost: effects.judged[d].lost },
    ]),
  ) as EffectsView;
}
