import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ColumnHeaders, DividedBody, FramedTable, headerCellClass } from "./table";

describe("headerCellClass", () => {
  it("puts the column's classes before the padding and right alignment after it", () => {
    expect(headerCellClass({ label: "Progress", className: "w-64" }, "framed", false)).toBe("w-64 px-3 py-2");
    expect(headerCellClass({ label: "Rate", align: "right" }, "framed", false)).toBe("px-3 py-2 text-right");
  });

  it("leaves the gap to the right off the last column where a look has one", () => {
    expect(headerCellClass({ label: "Name" }, "panel", false)).toBe("py-1.5 pr-3");
    expect(headerCellClass({ label: "Actions" }, "panel", true)).toBe("py-1.5");
    expect(headerCellClass({ label: "#" }, "compact", false)).toBe("py-1 pr-3 font-medium");
    expect(headerCellClass({ label: "Path" }, "compact-narrow", false)).toBe("py-1 pr-2 font-medium");
    expect(headerCellClass({ label: "After" }, "compact-narrow", true)).toBe("py-1 font-medium");
    expect(headerCellClass({ label: "Error" }, "framed", true)).toBe("px-3 py-2");
  });
});

describe("ColumnHeaders", () => {
  it("renders a scoped th per column, a title where given and a label only for screen readers", () => {
    const html = renderToStaticMarkup(
      createElement(ColumnHeaders, {
        columns: ["Kind", { label: "Sends", align: "right", title: "times sent" }, { label: "Actions", srOnly: true }],
      }),
    );
    expect(html).toBe(
      '<thead class="border-b border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800 text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400">' +
        '<tr><th scope="col" class="px-3 py-2">Kind</th>' +
        '<th scope="col" class="px-3 py-2 text-right" title="times sent">Sends</th>' +
        '<th scope="col" class="px-3 py-2"><span class="sr-only">Actions</span></th></tr></thead>',
    );
  });

  it("draws the header of a table in a panel without the shading", () => {
    const html = renderToStaticMarkup(createElement(ColumnHeaders, { look: "panel", columns: ["E-mail"] }));
    expect(html).toContain('<thead class="border-b border-slate-200 dark:border-slate-700 text-xs uppercase tracking-wide');
    expect(html).not.toContain("bg-slate-50");
  });
});

describe("FramedTable and DividedBody", () => {
  it("wraps the table in the scrolling frame and adds a body's own classes after the dividers", () => {
    // Called as functions: they hold no state, and createElement's types want children among the props.
    const body = DividedBody({ className: "font-mono", children: null });
    const html = renderToStaticMarkup(FramedTable({ after: createElement("p", null, "none"), children: body }));
    expect(html).toBe(
      '<div class="relative overflow-x-auto rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">' +
        '<table class="w-full text-left text-sm"><tbody class="divide-y divide-slate-100 dark:divide-slate-800 font-mono"></tbody></table>' +
        "<p>none</p></div>",
    );
  });
});
