/** Capabilities of each PyPI chdb build, as NOTES "ClickHouse versions on one machine" measured them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesFor } from '../../src/engine/python-driver';

describe('capabilitiesFor', () => {
  it('states what each build can do', () => {
    const c = (v: string) => capabilitiesFor(v);
    assert.deepEqual(c('1.4.1'), {
      streaming: false,
      concurrentSessions: false,
      queryLog: false,
      perQueryEngine: true,
      systemParts: false,
      jsonStatistics: false,
    });
    assert.equal(c('2.1.1').perQueryEngine, true);
    assert.equal(c('2.1.1').systemParts, true);
    assert.equal(c('3.1.2').streaming, false);
    assert.equal(c('3.1.2').perQueryEngine, false);
    assert.equal(c('3.7.2').streaming, true);
    assert.equal(c('3.7.2').concurrentSessions, false);
    assert.equal(c('26.1.0').concurrentSessions, true);
    assert.equal(c('26.3.0').jsonStatistics, false);
    assert.equal(c('26.5.0').jsonStatistics, true);
    assert.equal(c('26.9.0').queryLog, false);
  });
});
