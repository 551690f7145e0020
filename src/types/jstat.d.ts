/** The parts of jStat (npm `jstat`, no types of its own) chbench uses: Student's t and the normal distribution. */
declare module 'jstat' {
  interface Dist {
    /** Cumulative distribution function at `x`. */
    cdf(x: number, ...params: number[]): number;
    /** Quantile (inverse CDF) at probability `p`. */
    inv(p: number, ...params: number[]): number;
  }
  export const jStat: { studentt: Dist; normal: Dist };
}
