import assert from 'node:assert/strict';
import type { Middleware } from 'vscode-languageclient';
import { anchoredAtCursor, completionView } from '../src/completions';
import { createMiddleware } from '../src/middleware';
import { quietHooks } from './helpers/hooks';

type Provide = NonNullable<Middleware['provideInlineCompletionItems']>;

function middleware(enabled: boolean) {
  return createMiddleware({
    ...quietHooks(),
    completionsEnabled: () => enabled,
    emptyRangeAt: (position) => ({ empty: position }),
  });
}

describe('inline completions', () => {
  it('anchors items without a range at the cursor and keeps the ranges the server sent', () => {
    const items = [{ insertText: 'a' }, { insertText: 'b', range: 'kept' }] as { insertText: string; range?: unknown }[];
    anchoredAtCursor(items, 'cursor');
    assert.deepEqual(
      items.map((i) => i.range),
      ['cursor', 'kept'],
    );
    const list = { items: [{ insertText: 'c' }] as { insertText: string; range?: unknown }[] };
    anchoredAtCursor(list, 'cursor');
    assert.equal(list.items[0].range, 'cursor');
    assert.equal(anchoredAtCursor(null, 'cursor'), null);
  });

  it('asks the server only while completions are on', async () => {
    let asked = 0;
    const next = (async () => {
      asked += 1;
      return { items: [{ insertText: 'x' }] };
    }) as never;
    const off = middleware(false).provideInlineCompletionItems as Provide;
    assert.equal(await off({} as never, 'pos' as never, {} as never, {} as never, next), null);
    assert.equal(asked, 0);
    const on = middleware(true).provideInlineCompletionItems as Provide;
    const result = (await on({} as never, 'pos' as never, {} as never, {} as never, next)) as { items: { range: unknown }[] };
    assert.equal(asked, 1);
    assert.deepEqual(result.items[0].range, { empty: 'pos' });
  });

  it('shows the toggle while completions are offered or configured, on or off', () => {
    const on = completionView({ enabled: true, offered: true, modelId: 'embedded:qwen2.5-coder-1.5b' });
    assert.equal(on.text, '$(sparkle) Complete');
    assert.match(on.tooltip, /on from embedded:qwen2\.5-coder-1\.5b.*Click to turn them off/);
    assert.equal(on.visible, true);
    const off = completionView({ enabled: false, offered: true, modelId: '' });
    assert.equal(off.text, '$(circle-slash) Complete');
    assert.match(off.tooltip, /off\. Click to turn them on/);
    assert.equal(completionView({ enabled: true, offered: false, modelId: '' }).visible, false);
    assert.equal(completionView({ enabled: true, offered: false, modelId: 'openai/x' }).visible, true);
  });
});
