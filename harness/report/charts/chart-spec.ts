// What one report chart is: a file-safe name, a title and caption for the page, and the Vega-Lite spec it is drawn from.
import type { TopLevelSpec } from 'vega-lite';

/** One chart before rendering. */
export interface ChartSpec {
  /** File name stem under charts/ ([a-z0-9-]). */
  name: string;
  /** Heading shown above the chart on the page. */
  title: string;
  /** One sentence under the chart saying what it shows. */
  caption: string;
  spec: TopLevelSpec;
}

/** One chart after rendering: the spec plus its static SVG. */
export interface RenderedChart extends ChartSpec {
  svg: string;
}

/** The Vega-Lite v6 schema URL every spec declares (a URL only: nothing is fetched). */
export const VL_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
