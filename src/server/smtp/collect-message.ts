/**
 * Receives one message's DATA into memory, within two limits: the message size (552 past it) and a
 * byte budget shared by every message being received or stored at once (451 past it). Without the
 * shared budget, each concurrent 10 MB message took some 45-70 MB of RAM (the bytes, their copy, the
 * parser's strings, the file being encoded) and a burst of them could take the whole service down; with
 * it, a burst costs at most the budget's worth, and the senders past it are told to try again later.
 */
import type { SMTPServerDataStream } from 'smtp-server';

/** Bytes that the messages in flight may hold together. */
export class InflightBudget {
  private used = 0;
  /** Changed by a reload; what is in flight stays, the next message meets the new limit. */
  constructor(public limit: number) {}

  /** Takes `bytes` if they fit; false, taking nothing, when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

/** How a message's DATA ended. */
export type Collected =
  /** Received whole; it holds its share of the budget until release(). */
  | { kind: 'message'; raw: Buffer; release(): void }
  /** Over the size limit: read to the end (so the client hears the answer) and dropped. */
  | { kind: 'too-large'; bytes: number }
  /** Did not fit in the budget: read to the end and dropped. */
  | { kind: 'over-budget'; bytes: number }
  /** The client vanished, or the message was cut off: nothing to answer. */
  | { kind: 'gone' };

export interface Collector {
  done: Promise<Collected>;
  /** Stops keeping the message (its time ran out): gives its bytes back; `done` says 'gone'. */
  cut(): void;
}

/** Starts collecting `stream` against `budget`. */
export function collectMessage(stream: SMTPServerDataStream, budget: InflightBudget): Collector {
  let chunks: Buffer[] = [];
  let held = 0;
  let overBudget = false;
  let finished = false;
  let settle!: (result: Collected) => void;
  const done = new Promise<Collected>((resolve) => (settle = resolve));
  const drop = () => {
    budget.give(held);
    held = 0;
    chunks = [];
  };
  const finish = (result: Collected) => {
    if (finished) return;
    finished = true;
    settle(result);
  };

  stream.on('data', (chunk: Buffer) => {
    // Past a limit keep reading (the client must reach the final dot to hear the answer) but stop keeping.
    if (finished || overBudget || stream.sizeExceeded) return;
    if (!budget.take(chunk.length)) {
      overBudget = true;
      drop();
      return;
    }
    chunks.push(chunk);
    held += chunk.length;
  });
  stream.on('error', () => {
    drop();
    finish({ kind: 'gone' });
  });
  stream.on('end', () => {
    if (finished) return;
    if (stream.sizeExceeded || overBudget) {
      drop();
      finish({ kind: stream.sizeExceeded ? 'too-large' : 'over-budget', bytes: stream.byteLength });
      return;
    }
    const raw = Buffer.concat(chunks, held);
    chunks = []; // the copy is all that is kept from here on
    const share = held;
    held = 0;
    let released = false;
    finish({
      kind: 'message',
      raw,
      release: () => {
        if (released) return;
        released = true;
        budget.give(share);
      },
    });
  });
  return {
    done,
    cut() {
      drop();
      finish({ kind: 'gone' });
    },
  };
}
