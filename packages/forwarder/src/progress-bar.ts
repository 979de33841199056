/**
 * A one-line progress bar on a TTY stream, redrawn at most every 100 ms; nothing at all when the
 * stream is not a terminal (a pipe or a log file gets only the final summary).
 */
export class ProgressBar {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(done: number, total: number, detail: string): void {
    if (!this.enabled) return;
    const t = this.now();
    if (t - this.last < 100 && done < total) return;
    this.last = t;
    const width = 30;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(share * width);
    this.stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${detail}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the bar so the summary line starts at the left. */
  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
