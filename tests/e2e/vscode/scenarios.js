// Drives a real VS Code (code-server) in headless Chromium through the lsp-agent extension, the
// way a person would: status bar, lightbulb, command palette, the patch review, the Refactor
// Preview, notifications. Run by tests/e2e/test_vscode_real.py, which starts code-server and
// passes a JSON spec in LSP_AGENT_E2E:
//   {url, out, chrome, file, original, patched, scripts: {patch, cancel, second}, settingsFile}
// Writes out/results.json: {scenario: {ok, error, seconds, data}}, and screenshots in out/
// (<scenario>-failed.png on a failure; approval.png: the review of a patch).
// Scenarios run in order in one page; each starts from pkg/calc.py as `original` on disk.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const puppeteer = require('puppeteer-core');

const spec = JSON.parse(process.env.LSP_AGENT_E2E);
const STATUS = '[id="lsp-agent.lsp-agent.lspAgent.status"]';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

// ---- page helpers -------------------------------------------------------------------------------

async function waitFor(page, what, fn, timeoutMs, ...args) {
  log('waiting for', what);
  try {
    const handle = await page.waitForFunction(fn, { timeout: timeoutMs, polling: 200 }, ...args);
    const value = await handle.jsonValue();
    log('  ok:', typeof value === 'string' ? value.slice(0, 160) : value);
    return value;
  } catch (error) {
    throw new Error(`timed out waiting for ${what}: ${error.message.split('\n')[0]}`);
  }
}

async function shot(page, name) {
  const file = path.join(spec.out, name);
  await page.screenshot({ path: file });
  log('screenshot', file);
}

async function press(page, combo) {
  const keys = combo.split('+');
  for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
  await page.keyboard.press(keys.at(-1));
  for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
}

/** The status bar item: its text and its tooltip/aria-label. */
function statusText(sel) {
  const el = document.querySelector(sel);
  if (!el) return '';
  const label = (el.querySelector('[aria-label]') || el).getAttribute('aria-label') || '';
  return `${el.textContent.trim()} | ${label}`;
}

async function waitStatus(page, what, pattern, timeoutMs = 60000) {
  return waitFor(
    page,
    `status bar: ${what}`,
    (sel, src) => {
      const el = document.querySelector(sel);
      if (!el) return false;
      const label = (el.querySelector('[aria-label]') || el).getAttribute('aria-label') || '';
      const text = `${el.textContent.trim()} | ${label}`;
      return new RegExp(src).test(text) ? text : false;
    },
    timeoutMs,
    STATUS,
    pattern.source,
  );
}

async function palette(page, command) {
  await press(page, 'F1');
  await page.waitForSelector('.quick-input-widget input', { visible: true });
  await page.keyboard.type(command, { delay: 5 });
  await waitFor(
    page,
    `palette entry "${command}"`,
    (c) => {
      const row = document.querySelector('.quick-input-list .monaco-list-row.focused, .quick-input-list .monaco-list-row');
      return row && row.textContent.includes(c) ? row.textContent : false;
    },
    15000,
    command,
  );
  await press(page, 'Enter');
}

/** Visible notification toasts: [{message, buttons}]. */
function toasts() {
  return [...document.querySelectorAll('.notifications-toasts .notification-toast-container')]
    .filter((t) => t.offsetParent !== null)
    .map((t) => ({
      message: (t.querySelector('.notification-list-item-message') || t).textContent.trim(),
      buttons: [...t.querySelectorAll('.monaco-button')].map((b) => b.textContent.trim()).filter(Boolean),
    }));
}

async function waitToast(page, what, pattern, timeoutMs = 60000) {
  return waitFor(
    page,
    `notification: ${what}`,
    (src, fnText) => {
      // eslint-disable-next-line no-new-func
      const list = new Function(`return (${fnText})()`)();
      return list.find((t) => new RegExp(src).test(t.message)) || false;
    },
    timeoutMs,
    pattern.source,
    toasts.toString(),
  );
}

async function clickToastButton(page, pattern, label) {
  const clicked = await page.evaluate(
    (src, text) => {
      for (const toast of document.querySelectorAll('.notifications-toasts .notification-toast-container')) {
        const message = (toast.querySelector('.notification-list-item-message') || toast).textContent;
        if (!new RegExp(src).test(message)) continue;
        const button = [...toast.querySelectorAll('.monaco-button')].find((b) => b.textContent.trim() === text);
        if (button) {
          button.click();
          return true;
        }
      }
      return false;
    },
    pattern.source,
    label,
  );
  if (!clicked) throw new Error(`no "${label}" button on a notification matching ${pattern}`);
  log('clicked', label);
}

async function clearNotifications(page) {
  await palette(page, 'Notifications: Clear All Notifications');
  await sleep(300);
}

/** Text of the visible editors (a diff has two). */
function editorTexts() {
  return [...document.querySelectorAll('.editor-instance .view-lines, .monaco-diff-editor .view-lines')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => e.textContent.replace(/\u00a0/g, ' '));
}

async function waitEditorText(page, what, needle, timeoutMs = 30000) {
  return waitFor(
    page,
    `editor: ${what}`,
    (n, fnText) => {
      // eslint-disable-next-line no-new-func
      const texts = new Function(`return (${fnText})()`)();
      return texts.find((t) => t.includes(n)) || false;
    },
    timeoutMs,
    needle,
    editorTexts.toString(),
  );
}

async function waitDisk(expected, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  while (fs.readFileSync(spec.file, 'utf8') !== expected) {
    if (Date.now() > deadline) throw new Error(`${spec.file} on disk is ${JSON.stringify(fs.readFileSync(spec.file, 'utf8'))}`);
    await sleep(200);
  }
}

async function openCalc(page) {
  await press(page, 'Control+KeyP');
  await page.waitForSelector('.quick-input-widget input', { visible: true });
  await page.keyboard.type('calc.py', { delay: 5 });
  await waitFor(
    page,
    'quick open result',
    () => {
      const row = document.querySelector('.quick-input-list .monaco-list-row');
      return row && row.textContent.includes('calc.py') ? row.textContent : false;
    },
    15000,
  );
  await press(page, 'Enter');
  await waitEditorText(page, 'calc.py', 'return a + b');
}

/** Puts pkg/calc.py back as it was, on disk and in the editor (which reloads it). */
async function restoreFile(page) {
  if (fs.readFileSync(spec.file, 'utf8') !== spec.original) fs.writeFileSync(spec.file, spec.original);
  await waitFor(
    page,
    'the editor to show the original file',
    (fnText) => {
      // eslint-disable-next-line no-new-func
      const texts = new Function(`return (${fnText})()`)();
      return texts.some((t) => t.includes('return a + b') && !t.includes('# checked')) ? 'original' : false;
    },
    20000,
    editorTexts.toString(),
  );
}

async function runTaskFromPalette(page, task) {
  await palette(page, 'LSP Agent: Run task');
  await waitFor(
    page,
    'task input box',
    () => {
      const t = document.querySelector('.quick-input-widget .quick-input-title');
      return t && t.textContent.includes('Run task') ? t.textContent : false;
    },
    15000,
  );
  await press(page, 'Control+KeyA');
  await page.keyboard.type(task, { delay: 2 });
  await press(page, 'Enter');
}

const QUESTION = /apply the agent's patch to/;

/** Waits for the review: the diff of the patch and the question with its buttons. */
async function waitReview(page) {
  const toast = await waitToast(page, 'the review question', QUESTION, 90000);
  const diffRight = await waitFor(
    page,
    'the diff of the patch',
    () => {
      const diff = document.querySelector('.monaco-diff-editor');
      const right = diff && diff.querySelector('.editor.modified .view-lines');
      return right ? right.textContent.replace(/\u00a0/g, ' ') : false;
    },
    30000,
  );
  return { toast, diffRight };
}

async function refactorPreviewBoxes(page) {
  await waitFor(
    page,
    'the Refactor Preview with Apply',
    () => [...document.querySelectorAll('.monaco-button')].some((b) => b.textContent.trim() === 'Apply' && b.offsetParent),
    30000,
  );
  await sleep(800);
  return page.$$eval('input.edit-checkbox', (boxes) => boxes.map((b) => b.checked));
}

async function clickPreviewButton(page, label) {
  const ok = await page.evaluate((text) => {
    const b = [...document.querySelectorAll('.monaco-button')].find((x) => x.textContent.trim() === text && x.offsetParent);
    if (b) b.click();
    return Boolean(b);
  }, label);
  if (!ok) throw new Error(`no "${label}" button in the Refactor Preview`);
  log('clicked', label, '(Refactor Preview)');
}

async function saveAll(page) {
  await palette(page, 'File: Save All Files');
}

async function cancelFromStatusBar(page) {
  await runTaskFromPalette(page, 'add a comment to the return line');
  const running = await waitStatus(page, 'running', /^Agent: /, 20000);
  const started = Date.now();
  await page.click(STATUS);
  await waitFor(
    page,
    'the status bar menu with Cancel',
    () => [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => r.textContent.includes('Cancel')),
    10000,
  );
  await page.evaluate(() => {
    const row = [...document.querySelectorAll('.quick-input-list .monaco-list-row')].find((r) => r.textContent.includes('Cancel'));
    row.click();
  });
  log('picked Cancel');
  const after = await waitStatus(page, 'idle after cancel', /idle.*cancelled/, 30000);
  const seconds = (Date.now() - started) / 1000;
  await sleep(1000);
  const reviewOpened = (await page.$('.monaco-diff-editor')) !== null;
  return {
    status_running: running,
    status_after: after,
    seconds_to_idle: seconds,
    review_opened: reviewOpened,
    disk_after_bytes_equal: bytesEqual(),
  };
}

const bytesEqual = () => fs.readFileSync(spec.file).equals(Buffer.from(spec.original, 'utf8'));

// ---- scenarios ----------------------------------------------------------------------------------

const COMPLETIONS = '[id="lsp-agent.lsp-agent.lspAgent.completions"]';

/**
 * The inline suggestion VS Code shows: the innermost element of the editor's view lines whose
 * text has `needle` (ghost text is drawn as decorated text in the line), as "class: text".
 */
function ghostText(needle) {
  const lines = document.querySelector('.editor-instance .view-lines');
  if (!lines) return '';
  const text = (el) => el.textContent.replace(/\u00a0/g, ' '); // the editor draws spaces as NBSP
  let found = null;
  for (const el of lines.querySelectorAll('span')) {
    if (text(el).includes(needle) && (!found || found.contains(el))) found = el;
  }
  return found ? `${found.className}: ${text(found)}` : '';
}

const scenarios = {
  async activation(page) {
    const status = await waitStatus(page, 'idle', /idle/, 120000);
    await openCalc(page);
    return { status };
  },

  async inline_completion(page) {
    // Type at the end of the return line; the server's completion shows as ghost text; Tab.
    await page.click('.editor-instance .view-lines');
    await press(page, 'Control+KeyG');
    await page.keyboard.type('2');
    await press(page, 'Enter');
    await press(page, 'End');
    await page.keyboard.type('  # chec', { delay: 40 });
    let ghost;
    try {
      ghost = await waitFor(page, 'the ghost text', (src) => {
        const text = new Function(`return (${src})`)()('ked by lsp-agent');
        return text || false;
      }, 30000, ghostText.toString());
    } catch (error) {
      const html = await page.evaluate(() => {
        const line = [...document.querySelectorAll('.editor-instance .view-line')].find((l) => l.textContent.includes('return'));
        return line ? line.outerHTML : document.querySelector('.editor-instance .view-lines')?.outerHTML.slice(0, 3000);
      });
      throw new Error(`${error.message}; the line: ${html}`);
    }
    await shot(page, 'ghost-text.png');
    await press(page, 'Tab');
    await waitEditorText(page, 'the accepted completion', '# checked by lsp-agent');
    await saveAll(page);
    await waitDisk(spec.patched);
    // The status bar toggle turns completions off (the user setting) and on again.
    const toggle = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return '';
      return el.querySelector('.codicon-circle-slash') ? 'off' : el.querySelector('.codicon-sparkle') ? 'on' : '?';
    };
    const before = await page.evaluate(toggle, COMPLETIONS);
    await page.click(COMPLETIONS);
    const off = await waitFor(page, 'the toggle to show off', (sel, src) => {
      const state = new Function(`return (${src})`)()(sel);
      return state === 'off' ? state : false;
    }, 10000, COMPLETIONS, toggle.toString());
    const settingOff = JSON.parse(fs.readFileSync(spec.settingsFile, 'utf8'))['lspAgent.completion.enabled'];
    await page.click(COMPLETIONS);
    const on = await waitFor(page, 'the toggle to show on', (sel, src) => {
      const state = new Function(`return (${src})`)()(sel);
      return state === 'on' ? state : false;
    }, 10000, COMPLETIONS, toggle.toString());
    return { ghost, disk_after: fs.readFileSync(spec.file, 'utf8'), toggle: [before, off, on], setting_off: settingOff };
  },

  async lightbulb_accept(page) {
    await page.click('.editor-instance .view-lines');
    await press(page, 'Control+KeyG');
    await page.keyboard.type('2');
    await press(page, 'Enter');
    // Ctrl+. on the line (invoked, not automatic): the agent's other actions.
    await press(page, 'Control+Period');
    const invoked = await waitFor(
      page,
      'the Ctrl+. code action menu',
      () => {
        const titles = [...document.querySelectorAll('.action-widget .monaco-list-row')].map((r) => r.textContent.trim());
        return titles.some((t) => t.includes('Agent: explain')) ? titles : false;
      },
      15000,
    );
    await press(page, 'Escape');
    await page.waitForSelector('.action-widget', { hidden: true, timeout: 5000 });
    await sleep(300);
    // Select the return line: the lightbulb offers "Agent: refactor selection".
    await page.click('.editor-instance .view-lines');
    await press(page, 'Control+KeyG');
    await page.keyboard.type('2');
    await press(page, 'Enter');
    await press(page, 'End');
    await press(page, 'Shift+Home');
    await waitFor(page, 'the selection', () => (window.getSelection()?.toString() ?? '') !== '' || document.querySelector('.editor-instance .selected-text') !== null, 5000);
    // The lightbulb can be in the DOM while it still moves into place (puppeteer then says
    // "not clickable"), and under load it can still be the one of the line before the
    // selection, whose menu lacks the selection's action: click it as a person would,
    // retrying, then as the DOM's own click; a menu without the action is closed and the
    // lightbulb clicked again.
    const menuTitles = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('.action-widget .monaco-list-row')].map((r) => r.textContent.trim()),
      );
    let actions = [];
    for (let round = 0; round < 5 && !actions.some((t) => t.includes('Agent: refactor selection')); round += 1) {
      if (round > 0) {
        log(`menu without the selection's action (${JSON.stringify(actions)}); selecting again, then Ctrl+.`);
        await press(page, 'Escape');
        await sleep(500);
        await press(page, 'End');
        await press(page, 'Shift+Home');
        await sleep(1000);
        await press(page, 'Control+Period');
      }
      let clicked = round > 0;
      for (let attempt = 0; attempt < 10 && !clicked; attempt += 1) {
        const bulb = await page.waitForSelector('.lightBulbWidget .codicon, .lightBulbWidget', { visible: true, timeout: 30000 });
        try {
          await bulb.click();
          clicked = true;
        } catch (error) {
          log(`lightbulb not clickable yet (${error.message}); retrying`);
          await sleep(300);
        }
      }
      if (!clicked) {
        await page.evaluate(() => document.querySelector('.lightBulbWidget .codicon, .lightBulbWidget').click());
      }
      try {
        actions = await waitFor(
          page,
          'the code action menu',
          () => {
            const titles = [...document.querySelectorAll('.action-widget .monaco-list-row')].map((r) => r.textContent.trim());
            return titles.some((t) => t.includes('Agent: refactor selection')) ? titles : false;
          },
          8000,
        );
      } catch (error) {
        actions = await menuTitles();
        if (round === 4) throw error;
      }
    }
    await page.evaluate(() => {
      const row = [...document.querySelectorAll('.action-widget .monaco-list-row')].find((r) =>
        r.textContent.includes('Agent: refactor selection'),
      );
      row.click();
    });
    log('picked Agent: refactor selection');
    const { toast, diffRight } = await waitReview(page);
    await waitStatus(page, 'waiting for approval', /waiting for approval/, 10000);
    await sleep(500);
    await shot(page, 'approval.png');
    await clickToastButton(page, QUESTION, 'Accept');
    await waitEditorText(page, 'the patched line', '# checked by lsp-agent');
    await saveAll(page);
    await waitDisk(spec.patched);
    const statusAfter = await waitStatus(page, 'idle with the last job', /idle.*done/, 30000);
    await shot(page, 'accepted.png');
    return {
      actions,
      invoked,
      question: toast.message,
      buttons: toast.buttons,
      diff_right: diffRight,
      disk_after: fs.readFileSync(spec.file, 'utf8'),
      status_after: statusAfter,
    };
  },

  async palette_review(page) {
    await runTaskFromPalette(page, 'add a comment to the return line');
    await waitReview(page);
    await clickToastButton(page, QUESTION, 'Review hunks…');
    const before = await refactorPreviewBoxes(page);
    await shot(page, 'refactor-preview.png');
    // Ticking the file's box ticks its hunks, as a user would.
    const boxes = await page.$$('input.edit-checkbox');
    await boxes[0].click();
    const ticked = await waitFor(
      page,
      'every hunk ticked',
      () => {
        const all = [...document.querySelectorAll('input.edit-checkbox')].map((b) => b.checked);
        return all.length > 0 && all.every(Boolean) ? all : false;
      },
      10000,
    );
    await clickPreviewButton(page, 'Apply');
    await waitEditorText(page, 'the patched line', '# checked by lsp-agent');
    await saveAll(page);
    await waitDisk(spec.patched);
    await waitStatus(page, 'idle', /idle.*done/, 30000);
    return { checkboxes_before: before, checkboxes_ticked: ticked, disk_after: fs.readFileSync(spec.file, 'utf8') };
  },

  async reject(page) {
    await runTaskFromPalette(page, 'add a comment to the return line');
    await waitReview(page);
    await clickToastButton(page, QUESTION, 'Reject');
    await waitStatus(page, 'idle', /idle.*done/, 30000);
    await sleep(500);
    return { disk_after: fs.readFileSync(spec.file, 'utf8'), disk_after_bytes_equal: bytesEqual() };
  },

  async empty_preview(page) {
    await runTaskFromPalette(page, 'add a comment to the return line');
    await waitReview(page);
    await clickToastButton(page, QUESTION, 'Review hunks…');
    await refactorPreviewBoxes(page);
    await clickPreviewButton(page, 'Apply'); // nothing ticked
    const warning = await waitToast(page, 'nothing was applied', /Nothing was applied/, 20000);
    await shot(page, 'nothing-applied.png');
    await clickToastButton(page, /Nothing was applied/, 'Reject');
    await waitStatus(page, 'idle', /idle.*done/, 30000);
    await sleep(500);
    return { warning: warning.message, warning_buttons: warning.buttons, disk_after_bytes_equal: bytesEqual() };
  },

  async cancel(page) {
    const saved = fs.readFileSync(spec.scripts.patch);
    fs.copyFileSync(spec.scripts.cancel, spec.scripts.patch); // same model id, a slow first reply
    try {
      return await cancelFromStatusBar(page);
    } finally {
      fs.writeFileSync(spec.scripts.patch, saved);
    }
  },

  async setting(page) {
    // The user changes LSP Agent's model in the Settings editor; the running server gets it
    // (workspace/didChangeConfiguration) and the next job talks to the other model.
    const value = `scripted:${spec.scripts.second}`;
    await palette(page, 'Preferences: Open Settings (UI)');
    await page.waitForSelector('.settings-editor', { visible: true, timeout: 15000 });
    await sleep(500);
    await page.keyboard.type('lspAgent.model.id', { delay: 5 });
    await waitFor(
      page,
      'the Model: ID setting',
      () =>
        [...document.querySelectorAll('.settings-editor .setting-item-contents')].some(
          (item) => /Model:\s*ID/.test(item.querySelector('.setting-item-title')?.textContent ?? '') && item.querySelector('input'),
        ),
      15000,
    );
    await sleep(500); // the list settles after the search
    const input = await page.evaluateHandle(() =>
      [...document.querySelectorAll('.settings-editor .setting-item-contents')]
        .find((item) => /Model:\s*ID/.test(item.querySelector('.setting-item-title')?.textContent ?? ''))
        .querySelector('input'),
    );
    await input.click({ clickCount: 3 });
    await press(page, 'Control+KeyA');
    await page.keyboard.type(value, { delay: 1 });
    await shot(page, 'setting.png');
    const deadline = Date.now() + 15000;
    while (!fs.readFileSync(spec.settingsFile, 'utf8').includes(value)) {
      if (Date.now() > deadline) throw new Error('the Settings editor did not write lspAgent.model.id');
      await sleep(200);
    }
    // Back to calc.py (its tab), where the task runs.
    const tab = await page.evaluateHandle(() =>
      [...document.querySelectorAll('.tabs-container .tab')].find((t) => t.textContent.includes('calc.py')),
    );
    await tab.asElement().click();
    await waitEditorText(page, 'calc.py', 'return a + b');
    await runTaskFromPalette(page, 'which model are you?');
    const toast = await waitToast(page, 'the answer', /answered by the second model/, 60000);
    return { answer: toast.message };
  },
};

// ---- main -----------------------------------------------------------------------------------------

(async () => {
  fs.mkdirSync(spec.out, { recursive: true });
  const results = {};
  const browser = await puppeteer.launch({
    executablePath: spec.chrome,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1400,900'],
    defaultViewport: { width: 1400, height: 900 },
  });
  const page = await browser.newPage();
  page.on('pageerror', (e) => log('[pageerror]', String(e).slice(0, 200)));
  try {
    await page.goto(spec.url, { waitUntil: 'domcontentloaded', timeout: 60000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    log('workbench loaded');
    for (const [name, run] of Object.entries(scenarios)) {
      if (process.env.LSP_AGENT_E2E_ONLY && !process.env.LSP_AGENT_E2E_ONLY.split(',').includes(name)) continue;
      const started = Date.now();
      log(`== ${name}`);
      try {
        const data = await run(page);
        results[name] = { ok: true, seconds: (Date.now() - started) / 1000, data };
      } catch (error) {
        log(`FAIL ${name}:`, error && error.message);
        results[name] = { ok: false, seconds: (Date.now() - started) / 1000, error: String(error && error.message) };
        try {
          await shot(page, `${name}-failed.png`);
          results[name].toasts = await page.evaluate(toasts);
          results[name].status = await page.evaluate(statusText, STATUS);
        } catch {}
        if (name === 'activation') break;
      }
      fs.writeFileSync(path.join(spec.out, 'results.json'), JSON.stringify(results, null, 2));
      // Each scenario starts clean: no notifications, no stray widgets, the original file.
      try {
        await press(page, 'Escape');
        await press(page, 'Escape');
        await clearNotifications(page);
        await restoreFile(page);
      } catch (error) {
        log('could not reset after', name, error.message);
      }
    }
  } finally {
    fs.writeFileSync(path.join(spec.out, 'results.json'), JSON.stringify(results, null, 2));
    await browser.close();
  }
  log('done');
})().catch((error) => {
  log('driver error', error);
  process.exit(2);
});
