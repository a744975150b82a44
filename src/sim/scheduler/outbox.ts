// Events waiting to be delivered to each worker, in order; consecutive frees are merged into
// one FreeKeysEvent. Delivered in worker order by `flush`.
import { FreeKeysEvent, type Key, type StateMachineEvent } from "../../state/index.js";

interface Box {
  entries: Array<StateMachineEvent | Key[]>;
  /** Last entry, when it is a mergeable free-keys list. */
  openFree: Key[] | null;
}

export class Outbox {
  private readonly boxes: Box[];

  constructor(
    workers: number,
    private readonly freeStimulus: () => string,
  ) {
    this.boxes = Array.from({ length: workers }, () => ({ entries: [], openFree: null }));
  }

  push(worker: number, event: StateMachineEvent): void {
    const box = this.boxes[worker]!;
    box.entries.push(event);
    box.openFree = null;
  }

  free(worker: number, key: Key): void {
    const box = this.boxes[worker]!;
    if (box.openFree !== null) box.openFree.push(key);
    else {
      const keys = [key];
      box.entries.push(keys);
      box.openFree = keys;
    }
  }

  /** Drops what a worker had not received yet (it died). */
  clear(worker: number): void {
    const box = this.boxes[worker]!;
    box.entries = [];
    box.openFree = null;
  }

  /** Hands every worker its pending events, in worker order, skipping those `skip` names. */
  flush(deliver: (worker: number, events: StateMachineEvent[]) => void, skip: (worker: number) => boolean): void {
    for (let w = 0; w < this.boxes.length; w++) {
      const box = this.boxes[w]!;
      if (box.entries.length === 0) continue;
      const batch = box.entries;
      box.entries = [];
      box.openFree = null;
      if (skip(w)) continue;
      const events: StateMachineEvent[] = batch.map((entry) =>
        Array.isArray(entry) ? FreeKeysEvent({ keys: entry, stimulusId: this.freeStimulus() }) : entry,
      );
      deliver(w, events);
    }
  }
}
