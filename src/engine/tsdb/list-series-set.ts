/** A `SeriesSet` over an array the querier has already built and sorted (Prometheus's `NewListSeriesSet`). */
import type { Series, SeriesSet } from './api.ts';

export class ListSeriesSet implements SeriesSet {
  private i = -1;
  readonly warnings: string[] = [];
  constructor(private readonly list: readonly Series[]) {}
  next(): boolean { return ++this.i < this.list.length; }
  at(): Series { return this.list[this.i]; }
}
