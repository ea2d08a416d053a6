// The playground page: paste a file, give its path, make an edit (Edit tool: oldText → newText, or
// replace the whole file), and see what formatbox returns: the formatted file, the rewritten tool
// input, the diff and the receipt line. The engine runs in a module Web Worker.
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const worker = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
let nextId = 0;
const pending = new Map<number, (reply: { ok: boolean; receipt?: Record<string, unknown>; error?: string }) => void>();
worker.onmessage = (event) => {
  pending.get(event.data.id)?.(event.data);
  pending.delete(event.data.id);
};

function edit(message: Record<string, unknown>): Promise<{ ok: boolean; receipt?: Record<string, unknown>; error?: string }> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, ...message });
  });
}

const RESULTS = ['receipt-line', 'formatted', 'rewritten', 'diff', 'note'];

/** The status line, below the heading: `error` is styled apart from progress and success. */
function say(text: string, state: 'busy' | 'done' | 'error'): void {
  const status = $('status');
  status.textContent = text;
  status.dataset['state'] = state;
}

/** An error or a new run never leaves the previous result on screen. */
function clearResult(): void {
  for (const id of RESULTS) $(id).textContent = '';
  delete $('receipt-line').dataset['state'];
}

async function run(): Promise<void> {
  clearResult();
  say('formatting…', 'busy');
  let projectFiles: Record<string, string> = {};
  try {
    projectFiles = JSON.parse($<HTMLTextAreaElement>('project').value || '{}');
  } catch (error) {
    say(`project files are not JSON: ${(error as Error).message}`, 'error');
    return;
  }
  const whole = $<HTMLInputElement>('whole').checked;
  const input = whole ? { content: $<HTMLTextAreaElement>('newText').value } : { oldText: $<HTMLTextAreaElement>('oldText').value, newText: $<HTMLTextAreaElement>('newText').value };
  const reply = await edit({ path: $<HTMLInputElement>('path').value, prior: $<HTMLTextAreaElement>('prior').value, input, projectFiles });
  if (!reply.ok || !reply.receipt) {
    say(`error: ${reply.error}`, 'error');
    return;
  }
  const receipt = reply.receipt;
  $('receipt-line').textContent = String(receipt['line']);
  $('receipt-line').dataset['state'] = receipt['status'] === 'formatted' || receipt['status'] === 'unchanged' ? 'ok' : 'failed';
  $('formatted').textContent = String(receipt['content']);
  $('rewritten').textContent = JSON.stringify(receipt['input'], null, 2);
  $('diff').textContent = typeof receipt['diff'] === 'string' ? receipt['diff'] : '(none: the rewritten input alone gives the file)';
  $('note').textContent = String(receipt['note']);
  say(`${String(receipt['status'])} in ${receipt['ms']} ms`, 'done');
}

$('run').addEventListener('click', () => void run());
// For scripts (the bench): one edit through the same worker, resolving to its reply.
Object.assign(globalThis, { formatboxPlaygroundEdit: edit });
$<HTMLInputElement>('whole').addEventListener('change', (event) => {
  $('old-row').hidden = (event.target as HTMLInputElement).checked;
});

// Offline after the first load: the service worker keeps every file it served.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js').then(
    () => navigator.serviceWorker.ready.then(() => document.documentElement.setAttribute('data-offline-ready', '')),
    (error) => console.warn('no offline support:', error),
  );
}
