import type { CliOutput } from './io.ts';

export interface Progress {
  /** `done` of `total` items handled so far. */
  update(done: number): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

const barWidth = 30;
const redrawIntervalMs = 100;

/**
 * A progress bar on stderr (stdout stays clean for results and pipes). On a terminal it redraws one
 * line in place, at most ten times a second; otherwise (CI logs, files) it prints a plain
 * `label n/total` line at every tenth of the work and at the end.
 */
export function createProgress(output: CliOutput, label: string, total: number): Progress {
  let done = 0;
  let lastDrawAt = 0;
  let lastTenth = -1;
  let finished = false;

  function fraction(): number {
    return total === 0 ? 1 : Math.min(1, done / total);
  }

  function drawBar(): void {
    const filled = Math.round(fraction() * barWidth);
    const percent = String(Math.floor(fraction() * 100)).padStart(3);
    output.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${percent}% ${done}/${total}`);
  }

  return {
    update(value) {
      done = value;
      if (output.isTTY) {
        const now = Date.now();
        if (now - lastDrawAt >= redrawIntervalMs) {
          lastDrawAt = now;
          drawBar();
        }
        return;
      }
      const tenth = Math.floor(fraction() * 10);
      if (tenth > lastTenth && done < total) {
        lastTenth = tenth;
        output.write(`${label} ${done}/${total}\n`);
      }
    },
    finish() {
      if (finished) {
        return;
      }
      finished = true;
      if (output.isTTY) {
        drawBar();
        output.write('\n');
        return;
      }
      output.write(`${label} ${done}/${total}\n`);
    },
  };
}

/**
 * For services that report `(done, total)`: the bar is made once the total is known (on the first
 * call), and `finish` draws the last state (nothing when the service never reported).
 */
export function trackProgress(output: CliOutput, label: string): { onProgress(done: number, total: number): void; finish(): void } {
  let progress: Progress | undefined;
  return {
    onProgress(done, total) {
      progress ??= createProgress(output, label, total);
      progress.update(done);
    },
    finish() {
      progress?.finish();
    },
  };
}
