// Node `--import` preload: freeze the wall clock at MEMLAB_PARITY_NOW (ISO-8601 or epoch ms).
//
// OpenClaw's temporal decay reads `Date.now()`; the parity harness passes the same instant to
// memlab (`memlab search --now`). `Date.now()`, `new Date()` and `Date()` all return the frozen
// instant; `new Date(x)` and the static helpers (`Date.parse`, `Date.UTC`) are unchanged.
// Timers and `performance.now()` keep running, so timeouts still work.
const raw = process.env.MEMLAB_PARITY_NOW;
if (raw) {
  const fixed = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(fixed)) {
    throw new Error(`MEMLAB_PARITY_NOW=${raw} is not an ISO-8601 time or epoch milliseconds`);
  }
  const RealDate = Date;
  const now = () => fixed;
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, args.length === 0 ? [fixed] : args, newTarget);
    },
    apply() {
      return new RealDate(fixed).toString();
    },
    get(target, prop, receiver) {
      if (prop === "now") return now;
      return Reflect.get(target, prop, receiver);
    },
  });
}
