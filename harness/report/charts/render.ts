// Compile a Vega-Lite spec and render it to a static SVG string server-side (vega, renderer "none": no canvas, no DOM).
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { assertSafeSvg, scopeSvgIds } from './svg-safety.js';

/** A vega-lite logger that collects warnings into an array instead of printing them. */
function collectingLogger(warnings: string[]): vega.LoggerInterface {
  let level = vega.Warn;
  const logger: vega.LoggerInterface = {
    level(l?: number) {
      if (l === undefined) return level;
      level = l;
      return logger;
    },
    error: (...args: readonly unknown[]) => {
      warnings.push(`error: ${args.map(String).join(' ')}`);
      return logger;
    },
    warn: (...args: readonly unknown[]) => {
      warnings.push(args.map(String).join(' '));
      return logger;
    },
    info: () => logger,
    debug: () => logger,
  };
  return logger;
}

/** Render a Vega-Lite spec to SVG; ids are prefixed with `idPrefix` so several SVGs can share one page. Compiler warnings go to `warnings`. */
export async function renderSvg(spec: TopLevelSpec, idPrefix: string, warnings: string[] = []): Promise<string> {
  const compiled = compile(spec, { logger: collectingLogger(warnings) }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger: collectingLogger(warnings) });
  try {
    const svg = await view.toSVG();
    const scoped = scopeSvgIds(svg, idPrefix);
    assertSafeSvg(scoped);
    return scoped;
  } finally {
    view.finalize();
  }
}
