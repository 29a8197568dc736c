/**
 * A PulledMessage's receipt: the advisory deliveries to acknowledge (by their reply subjects, which work from any
 * connection) and the stream message they name (null when the advisory could not be read).
 */
export class NatsReceipt {
  constructor(
    readonly replies: readonly string[],
    readonly stream: string | null,
    readonly seq: number | null,
  ) {}
}
