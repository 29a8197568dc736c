import { describe, expect, it } from "vitest";
import { renderPrometheus } from "./prometheus";

describe("renderPrometheus", () => {
  it("writes HELP, TYPE and escaped labels", () => {
    expect(
      renderPrometheus([
        { name: "redrive_x", help: "X by kind.", type: "gauge", samples: [{ labels: { kind: 'a"b\\c\nd' }, value: 3 }, { value: 1.5 }] },
        { name: "redrive_y_total", help: "Y.", type: "counter", samples: [{ value: Infinity }] },
      ]),
    ).toBe(
      '# HELP redrive_x X by kind.\n# TYPE redrive_x gauge\nredrive_x{kind="a\\"b\\\\c\\nd"} 3\nredrive_x 1.5\n' +
        "# HELP redrive_y_total Y.\n# TYPE redrive_y_total counter\nredrive_y_total +Inf\n",
    );
  });
});
