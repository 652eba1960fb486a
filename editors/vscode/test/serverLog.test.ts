import assert from 'node:assert/strict';
import { createStderrClassifier } from '../src/serverLog';

describe('server log lines', () => {
  it('takes the time stamp and level off and maps the level', () => {
    const classify = createStderrClassifier();
    assert.deepEqual(classify('2025-01-02 03:04:05,678 INFO lsp_agent.server: initialize: root=/w'), {
      level: 'info',
      text: 'lsp_agent.server: initialize: root=/w',
    });
    assert.equal(classify('2025-01-02 03:04:05,678 WARNING x: y').level, 'warn');
    assert.equal(classify('2025-01-02 03:04:05,678 CRITICAL x: y').level, 'error');
    assert.deepEqual(classify('2025-01-02 03:04:05,678 DEBUG x: y'), { level: 'info', text: 'DEBUG x: y' });
  });

  it('keeps a traceback at the level of its record', () => {
    const classify = createStderrClassifier();
    classify('2025-01-02 03:04:05,678 ERROR lsp_agent.jobs: job j1 failed');
    assert.equal(classify('  File "x.py", line 1, in <module>').level, 'error');
    classify('2025-01-02 03:04:06,000 INFO x: fine');
    assert.equal(classify('Traceback (most recent call last):').level, 'error');
    assert.equal(classify('ValueError: boom').level, 'error');
  });
});
