import { z } from "zod";
import { nullableText } from "../destination-fields";
import type { DestinationPart } from "../source-plug";

/** SQS: the source queue by DeadLetterQueueSourceArn when SQS gave it, else the source's sourceQueueUrl. */
export const SqsDestinationSchema = z.object({ type: z.literal("sqs"), queueArn: nullableText, queueUrl: nullableText });
export type SqsDestination = z.output<typeof SqsDestinationSchema>;

/**
 * Where a replay to origin sends this dead letter, as `options.destinations` patterns see it: the source queue's
 * URL (the source's sourceQueueUrl), or its ARN when SQS named the queue by DeadLetterQueueSourceArn (its URL is
 * only asked of SQS when sending).
 */
export function destinationTexts(d: SqsDestination): string[] {
  return [d.queueUrl ?? d.queueArn ?? ""];
}

export function destinationParts(d: SqsDestination): DestinationPart[] {
  // SQS's DeadLetterQueueSourceArn wins over the source's sourceQueueUrl, as the origin sink decides.
  if (d.queueArn) return [{ term: "source queue", value: d.queueArn }];
  if (d.queueUrl)
    return [
      { term: "source queue", value: d.queueUrl },
      { term: "named by", value: "the source's sourceQueueUrl", minor: true },
    ];
  return [{ term: "source queue", value: "not known (SQS did not name it and the source has no sourceQueueUrl)" }];
}
