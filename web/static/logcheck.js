// logcheck.js is the calculator's log paste box (templates/logcheck.templ):
// the pasted start-up log is read and planned by the planner module's
// checkLog for the model and GPU the page has picked, and its rows are the
// ones `vramplan check --log` prints.

const mib = (b) => (b / 2 ** 20).toFixed(2);
const signed = (b) => (b >= 0 ? '+' : '') + mib(b); // as the CLI's %+.2f

/**
 * attach wires the box under root to api.checkLog; docs() returns the
 * [model, calibration] JSON the page plans with, or undefined.
 */
export function attach(root, api, docs) {
  const box = root.querySelector('[data-testid="log-check"]');
  if (!box) return; // the embedded page has no box
  box.querySelector('#log-check').addEventListener('click', () => check(box, api, docs()));
}

function check(box, api, d) {
  const status = box.querySelector('[data-testid="log-status"]');
  const table = box.querySelector('[data-testid="log-rows"]');
  const launch = box.querySelector('[data-testid="log-launch"]');
  table.hidden = launch.parentElement.hidden = true;
  if (!d) {
    status.textContent = 'Pick a model and a GPU first.';
    return;
  }
  let r;
  try {
    r = JSON.parse(api.checkLog(box.querySelector('#log-text').value, d[0], d[1]));
  } catch (e) {
    status.textContent = `Could not check the log: ${e.message.replace(/^vramplan\.\w+: /, '')}`;
    return;
  }
  status.textContent = `${r.log.engine} log, planned as ${r.version} for ${r.model} on ${r.gpu}`;
  table.tBodies[0].replaceChildren(...r.rows.map(row));
  table.hidden = false;
  if (r.launch) {
    launch.textContent = r.launch;
    launch.parentElement.hidden = false;
  }
}

function row(r) {
  const tr = document.createElement('tr');
  tr.dataset.key = r.key;
  for (const s of [r.name, mib(r.plan_bytes), mib(r.log_bytes), signed(r.residual_bytes), r.within_resolution ? "within the log's rounding" : '']) {
    const td = document.createElement('td');
    td.textContent = s;
    tr.append(td);
  }
  return tr;
}
