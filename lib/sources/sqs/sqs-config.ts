import type { SourceConfigPlug } from "../source-plug";
import { duration, num, text } from "../summary-words";
import { destinationParts, destinationTexts, SqsDestinationSchema, type SqsDestination } from "./destination";
import { parseSqsUrl, sqsOptionsSchema } from "./options";
import { sqsOptionsIntoUrl } from "./options-into-url";

export const sqsConfigPlug: SourceConfigPlug<"sqs", typeof sqsOptionsSchema, SqsDestination> = {
  type: "sqs",
  label: "Amazon SQS",
  location: "an SQS dead-letter queue",
  urlPlaceholder: "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq",
  options: sqsOptionsSchema,
  urlRule: parseSqsUrl,
  destination: SqsDestinationSchema,
  destinationTexts,
  destinationParts,
  summary: (o) => {
    const visibility = num(o.visibilityTimeoutSeconds);
    return [
      ...(text(o.region) ? [`region ${text(o.region)}`] : []),
      ...(text(o.endpoint) ? [`endpoint ${text(o.endpoint)}`] : []),
      text(o.sourceQueueUrl) ? `back to ${text(o.sourceQueueUrl)} unless SQS names the queue` : "back to the queue SQS names",
      ...(visibility === null ? [] : [`visibility ${duration(visibility * 1000)}`]),
    ];
  },
  form: {
    note: "The URL is the dead-letter queue's. Credentials come from the AWS chain (environment, profile, instance role), or from an access key in the URL: https://AKID:SECRET@host/account/queue (the secret %-encoded).",
    rows: [
      {
        columns: 2,
        fields: [
          {
            name: "region",
            cli: { arg: "<region>", help: "the AWS region (default: the one the queue URL's host names)" },
            label: "Region",
            hint: "Blank: the one the URL's host names.",
            value: "optional",
          },
          {
            name: "endpoint",
            cli: { arg: "<url>", help: "an SQS-compatible server (default: the queue URL's host)" },
            label: "Endpoint",
            hint: "An SQS-compatible server; blank: the URL's host.",
            value: "optional",
            sealed: true,
          },
          {
            name: "sourceQueueUrl",
            cli: { arg: "<url>", help: "where dead letters go back when SQS does not name their source queue" },
            label: "Source queue URL",
            hint: "Where dead letters go back when SQS does not name their queue.",
            value: "optional",
            sealed: true,
          },
          {
            name: "visibilityTimeoutSeconds",
            cli: { arg: "<s>", help: "how long a taken message stays invisible (default 60, extended while storing)" },
            label: "Visibility timeout (s)",
            value: "number",
            min: 10,
            initial: "60",
          },
        ],
      },
    ],
  },
  secretHint: " (SQS: the access key)",
  bodyIntoUrl: sqsOptionsIntoUrl,
};
