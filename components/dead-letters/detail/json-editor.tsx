"use client";

import { json, jsonParseLinter } from "@codemirror/lang-json";
import { forceLinting, linter, lintGutter, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "react";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { editorTheme } from "./json-editor-theme";

// CodeMirror 6 for the payload, created once per mount. `check` lints the text as you type (the record's
// schema: tap schema + identity rule, or GeoJSON validity); a new `value` from outside (the map editor) replaces
// the document without echoing back through onChange.

export type Check = (text: string) => Diagnostic[];

export function JsonEditor({
  value,
  onChange,
  check,
  label,
  autoFocus = false,
}: {
  value: string;
  onChange: (text: string) => void;
  check: Check;
  label: string;
  /** take the focus when mounted (opened with the `e` key: typing goes straight into the payload) */
  autoFocus?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ onChange, check });
  const lastText = useRef(value);
  const dark = useDarkTheme();
  const theme = useRef({ compartment: new Compartment(), dark });

  useEffect(() => {
    latest.current = { onChange, check };
    if (view.current) forceLinting(view.current);
  }, [onChange, check]);

  useEffect(() => {
    if (!host.current) return;
    const parse = jsonParseLinter();
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: lastText.current,
        extensions: [
          basicSetup,
          json(),
          lintGutter(),
          linter(
            (ev) => {
              const syntax = parse(ev);
              return syntax.length ? syntax : latest.current.check(ev.state.doc.toString());
            },
            { delay: 150 },
          ),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            lastText.current = u.state.doc.toString();
            latest.current.onChange(lastText.current);
          }),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.theme({ "&": { fontSize: "12px", maxHeight: "28rem" }, ".cm-scroller": { overflow: "auto" } }),
          theme.current.compartment.of(editorTheme(theme.current.dark)),
        ],
      }),
    });
    view.current = v;
    // Without scrolling: the panel around it decides what comes into view.
    if (autoFocus) v.contentDOM.focus({ preventScroll: true });
    return () => {
      v.destroy();
      view.current = null;
    };
    // One editor per mount; later values arrive through the effect below.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const v = view.current;
    if (!v || theme.current.dark === dark) return;
    theme.current.dark = dark;
    v.dispatch({ effects: theme.current.compartment.reconfigure(editorTheme(dark)) });
  }, [dark]);

  useEffect(() => {
    const v = view.current;
    if (!v || value === lastText.current) return;
    lastText.current = value;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return <div ref={host} className="overflow-hidden rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900" />;
}
