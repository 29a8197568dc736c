import type { RetentionPolicy } from "@nats-io/jetstream";

/**
 * A PulledMessage's receipt: the advisory deliveries to acknowledge (by their reply subjects, which work from any
 * connection) and the stream message they name with its stream's retention as take() found it (all null when the
 * advisory could not be read or its message is gone). A stream re-created under its name may have another
 * retention, so it is read with the message rather than remembered per name.
 */
export class NatsReceipt {
  constructor(
    readonly replies: readonly string[],
    readonly stream: string | null,
    readonly seq: number | null,
    readonly retention: RetentionPolicy | null = null,
  ) {}
}
