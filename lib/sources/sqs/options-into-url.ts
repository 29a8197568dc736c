// A create body's SQS options in AWS's own terms, moved into the source's URL before the body is parsed. Pure.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * SQS names a queue by its URL, and AWS tools call it `queueUrl`, with an access key beside it: a body may give
 * `options.queueUrl` (for `url`) and `options.accessKeyId` + `options.secretAccessKey` (the stored access key).
 * They become the source's URL, the key in its userinfo, so it is sealed and redacted like any broker password.
 * Anything else (a queueUrl beside a different url, half a key) is left for the schema to refuse by name.
 */
export function sqsOptionsIntoUrl(body: unknown): unknown {
  if (!isRecord(body) || body.type !== "sqs" || !isRecord(body.options)) return body;
  const { queueUrl, accessKeyId, secretAccessKey, ...options } = body.options;
  let url = body.url;
  if (queueUrl !== undefined) {
    if (typeof queueUrl !== "string" || (url !== undefined && url !== queueUrl)) return body;
    url = queueUrl;
  }
  if (accessKeyId !== undefined || secretAccessKey !== undefined) {
    if (typeof accessKeyId !== "string" || typeof secretAccessKey !== "string" || typeof url !== "string") return body;
    try {
      const u = new URL(url);
      if (u.username || u.password) return body;
      u.username = encodeURIComponent(accessKeyId);
      u.password = encodeURIComponent(secretAccessKey);
      url = u.toString();
    } catch {
      return body;
    }
  }
  return { ...body, url, options };
}
