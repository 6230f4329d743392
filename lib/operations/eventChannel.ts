/**
 * The channel a streaming run's events travel in: every reader, however late, gets every event
 * in order.
 */

export class EventChannel<T> implements AsyncIterable<T> {
  private readonly events: T[] = [];
  private ended = false;
  private waiting: (() => void)[] = [];

  push(event: T): void {
    if (this.ended) return;
    this.events.push(event);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (let i = 0; ; i++) {
      while (i >= this.events.length && !this.ended) {
        await new Promise<void>((resolve) => this.waiting.push(resolve));
      }
      if (i >= this.events.length) return;
      yield this.events[i]!;
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w();
  }
}
