import cliProgress from "cli-progress";

/** A progress reporter: a bar with count, rate and ETA on a terminal; plain periodic lines otherwise. */
export function progressReporter(stream: NodeJS.WriteStream, enabled: boolean) {
  if (!enabled) return { update() {}, stop() {} };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream, format: "indexing |{bar}| {value}/{total} notes  {rate}/s  ETA {eta_formatted}", hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const t0 = Date.now();
    return {
      update(done: number, total: number) {
        if (!started) {
          bar.start(total, 0, { rate: "0" });
          started = true;
        }
        bar.update(done, { rate: (done / Math.max(0.001, (Date.now() - t0) / 1000)).toFixed(1) });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  const t0 = Date.now();
  return {
    update(done: number, total: number) {
      const now = Date.now();
      if (done === total || now - last > 2000) {
        last = now;
        const rate = done / Math.max(0.001, (now - t0) / 1000);
        stream.write(`indexing: ${done}/${total} notes (${rate.toFixed(1)}/s)\n`);
      }
    },
    stop() {},
  };
}
