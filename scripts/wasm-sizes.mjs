// wasm-sizes.mjs prints where a Go WebAssembly module's bytes are: each
// section's size, raw and zlib level 9 (as wasm/size.test.mjs measures),
// and, when the module has Go's name section (built without -ldflags=-s),
// the code bytes of the N largest packages (`go tool nm` does not read wasm).
//
//   GOOS=js GOARCH=wasm go build -trimpath -o /tmp/p.wasm ./wasm/planner
//   node scripts/wasm-sizes.mjs /tmp/p.wasm [N]

import { readFileSync } from 'node:fs';
import { gzipSync, constants } from 'node:zlib';

const b = readFileSync(process.argv[2]);
const top = Number(process.argv[3] ?? 20);
const sectionNames = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
let p = 8;
const leb = () => { let r = 0, s = 0, x; do { x = b[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80); return r; };
const gz = (buf) => gzipSync(buf, { level: constants.Z_BEST_COMPRESSION }).length;
const skipString = () => { p += leb(); };

let imported = 0;
const bodies = [];
const names = new Map();
function imports() {
  for (let i = leb(); i > 0; i--) {
    skipString(); skipString();
    const kind = b[p++];
    if (kind === 0) { leb(); imported++; } else if (kind === 1) { p++; if (b[p++] & 1) leb(); leb(); } else if (kind === 2) { if (b[p++] & 1) leb(); leb(); } else p += 2;
  }
}
function nameSection(end) {
  while (p < end) {
    const id = b[p++], size = leb(), next = p + size;
    if (id === 1) for (let i = leb(); i > 0; i--) { const idx = leb(), l = leb(); names.set(idx, b.subarray(p, p + l).toString()); p += l; }
    p = next;
  }
}
while (p < b.length) {
  const id = b[p++], size = leb(), start = p, end = p + size;
  console.log(`${sectionNames[id] ?? id}: ${size} raw, ${gz(b.subarray(start, end))} zlib 9`);
  if (id === 2) imports();
  if (id === 10) for (let i = leb(); i > 0; i--) { const n = leb(); bodies.push(n); p += n; }
  if (id === 0) { const l = leb(); const name = b.subarray(p, p + l).toString(); p += l; if (name === 'name') nameSection(end); }
  p = end;
}
if (names.size > 0) {
  const perPackage = new Map();
  bodies.forEach((n, i) => {
    const name = names.get(i + imported) ?? '?';
    // Go writes the function c of package a.com/b as a.com_b.c.
    const pkg = /^([\w-]+\.[a-z]+_[^.]*|[^.]*)/.exec(name)[1];
    perPackage.set(pkg, (perPackage.get(pkg) ?? 0) + n);
  });
  console.log(`code bytes by package (${bodies.length} functions):`);
  [...perPackage].sort((x, y) => y[1] - x[1]).slice(0, top).forEach(([k, v]) => console.log(`  ${v} ${k}`));
}
