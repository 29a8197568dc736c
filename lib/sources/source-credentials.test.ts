import { describe, expect, it } from "vitest";
import { changedUrl, hasCredentials, replacedSecrets } from "./source-credentials";

describe("changedUrl", () => {
  const stored = "amqp://app:old-secret@rabbit:5672/prod";

  it("replaces only the password", () => {
    expect(changedUrl(stored, { password: "n3w p@ss" })).toBe("amqp://app:n3w%20p%40ss@rabbit:5672/prod");
    expect(replacedSecrets(stored, { password: "n3w" })).toEqual(["password"]);
  });

  it("keeps the stored user name and password when a new URL gives none", () => {
    expect(changedUrl(stored, { url: "amqp://rabbit-2:5672/prod" })).toBe("amqp://app:old-secret@rabbit-2:5672/prod");
    expect(replacedSecrets(stored, { url: "amqp://rabbit-2:5672/prod" })).toEqual([]);
  });

  it("takes a new URL's own credentials, and new ones given beside it", () => {
    expect(changedUrl(stored, { url: "amqp://bob:pw@rabbit:5672/" })).toBe("amqp://bob:pw@rabbit:5672/");
    expect(changedUrl(stored, { url: "amqp://rabbit:5672/", username: "bob" })).toBe("amqp://bob:old-secret@rabbit:5672/");
    expect(replacedSecrets(stored, { username: "bob", password: "x" })).toEqual(["username", "password"]);
  });

  it("removes the password when given empty, and adds credentials to a URL without", () => {
    expect(changedUrl(stored, { password: "" })).toBe("amqp://app@rabbit:5672/prod");
    expect(changedUrl("nats://nats:4222", { username: "u", password: "p" })).toBe("nats://u:p@nats:4222");
    expect(changedUrl("redis://cache:6379/0", { password: "p" })).toBe("redis://:p@cache:6379/0");
  });

  it("works on a Kafka broker list and an SQS URL with its access key", () => {
    expect(changedUrl("kafka://u:old@b1:9092,b2:9092?sasl=scram-sha-256", { password: "new" })).toBe(
      "kafka://u:new@b1:9092,b2:9092?sasl=scram-sha-256",
    );
    expect(changedUrl("https://AKIA:old@sqs.eu-west-1.amazonaws.com/1/q", { password: "s/ecret" })).toBe(
      "https://AKIA:s%2Fecret@sqs.eu-west-1.amazonaws.com/1/q",
    );
  });

  it("leaves what is no URL as it is", () => {
    expect(changedUrl(stored, { url: "not a url" })).toBe("not a url");
    expect(hasCredentials(stored)).toBe(true);
    expect(hasCredentials("nats://nats:4222")).toBe(false);
  });
});
