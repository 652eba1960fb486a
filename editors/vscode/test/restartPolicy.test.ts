import assert from 'node:assert/strict';
import { RestartPolicy } from '../src/restartPolicy';

describe('restart policy', () => {
  it('restarts up to the limit within the window, then gives up', () => {
    const p = new RestartPolicy(3, 60_000);
    const decisions = [0, 1000, 2000, 3000].map((t) => p.onCrash(t));
    assert.deepEqual(decisions.map((d) => d.restart), [true, true, true, false]);
    assert.deepEqual(decisions.map((d) => d.attempt), [1, 2, 3, 3]);
    assert.match(decisions[0].message, /restarting it \(attempt 1 of 3\)/);
    assert.match(decisions[3].message, /will not be restarted/);
  });

  it('forgets crashes older than the window', () => {
    const p = new RestartPolicy(2, 10_000);
    assert.ok(p.onCrash(0).restart);
    assert.ok(p.onCrash(5_000).restart);
    assert.ok(!p.onCrash(9_000).restart);
    assert.ok(p.onCrash(16_000).restart, 'the crash at 0 and 5000 are out of the window by now');
  });

  it('starts over after a manual restart', () => {
    const p = new RestartPolicy(1, 60_000);
    assert.ok(p.onCrash(0).restart);
    assert.ok(!p.onCrash(1).restart);
    p.reset();
    assert.ok(p.onCrash(2).restart);
  });

  it('does not restart a server that never came up', () => {
    const p = new RestartPolicy(5, 60_000);
    const d = p.onCrash(0, false);
    assert.equal(d.restart, false);
    assert.match(d.message, /exited while starting/);
    assert.ok(p.onCrash(1, true).restart, 'and it does not count against the limit');
  });
});
