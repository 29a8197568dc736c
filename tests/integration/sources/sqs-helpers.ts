import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from "@aws-sdk/client-sqs";
import type { MotoServer } from "../../support/moto-server";

// The application's side of an SQS dead-letter queue, played against moto: a source queue with a redrive policy,
// its DLQ, a producer, and a consumer that fails (receives without deleting) until SQS moves the messages.

export type Sqs = SQSClient;

export function sqsClient(moto: MotoServer): Sqs {
  return new SQSClient({ region: "us-east-1", endpoint: moto.endpoint, credentials: { accessKeyId: "test", secretAccessKey: "test" } });
}

export interface QueuePair {
  sourceUrl: string;
  sourceArn: string;
  dlqUrl: string;
}

async function arnOf(sqs: Sqs, url: string): Promise<string> {
  const r = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }));
  return r.Attributes!.QueueArn!;
}

/** A source queue whose messages go to its own DLQ after `maxReceiveCount` receives; FIFO when the name ends so. */
export async function queuePair(sqs: Sqs, name: string, maxReceiveCount = 2): Promise<QueuePair> {
  const fifo = name.endsWith(".fifo");
  const base = fifo ? name.slice(0, -5) : name;
  const fifoAttr = fifo ? { FifoQueue: "true" } : {};
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${base}-dlq${fifo ? ".fifo" : ""}`, Attributes: fifoAttr }));
  const dlqArn = await arnOf(sqs, dlq.QueueUrl!);
  const source = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      // Visibility 0: a failed receive makes the message visible again at once, so the test need not wait.
      Attributes: { ...fifoAttr, VisibilityTimeout: "0", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }) },
    }),
  );
  return { sourceUrl: source.QueueUrl!, sourceArn: await arnOf(sqs, source.QueueUrl!), dlqUrl: dlq.QueueUrl! };
}

export async function send(
  sqs: Sqs,
  url: string,
  body: string,
  extra: { attributes?: Record<string, MessageAttributeValue>; group?: string; dedup?: string } = {},
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      ...(extra.attributes ? { MessageAttributes: extra.attributes } : {}),
      ...(extra.group
        ? { MessageGroupId: extra.group, MessageDeduplicationId: extra.dedup ?? `${extra.group}-${body.length}-${Math.random()}` }
        : {}),
    }),
  );
}

/** A consumer that never deletes: receives until SQS has moved every message to the DLQ (`count` there). */
export async function failUntilDead(sqs: Sqs, pair: QueuePair, count: number): Promise<void> {
  for (let round = 0; round < 100; round++) {
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: pair.sourceUrl, MaxNumberOfMessages: 10 }));
    if ((await depth(sqs, pair.dlqUrl)) >= count) return;
  }
  throw new Error(`SQS did not move ${count} messages to ${pair.dlqUrl}`);
}

/** Visible plus in-flight messages. */
export async function depth(sqs: Sqs, url: string): Promise<number> {
  const r = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  return Number(r.Attributes!.ApproximateNumberOfMessages) + Number(r.Attributes!.ApproximateNumberOfMessagesNotVisible);
}

/** Every message now on the queue, with all attributes (received and left to reappear). */
export async function drain(sqs: Sqs, url: string): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
        MessageSystemAttributeNames: ["All"],
        MessageAttributeNames: ["All"],
      }),
    );
    if (!r.Messages?.length) return out;
    out.push(...r.Messages);
  }
}
