import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import type { Extension } from "@codemirror/state";

// The payload editor in the dark theme. basicSetup's highlighting (#a11 strings, #164 numbers) is made for a white
// page and falls under 3:1 on slate-900; these are the JSON view's colours (components/ui/json-view.tsx) in dark.

const darkHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "#bae6fd" }, // sky-200
  { tag: tags.string, color: "#a7f3d0" }, // emerald-200
  { tag: tags.number, color: "#c4b5fd" }, // violet-300
  { tag: [tags.bool, tags.null], color: "#fcd34d" }, // amber-300
  { tag: [tags.punctuation, tags.separator, tags.brace, tags.squareBracket], color: "#94a3b8" }, // slate-400
]);

const darkChrome = EditorView.theme(
  {
    "&": { color: "#e2e8f0", backgroundColor: "#0f172a" },
    ".cm-content": { caretColor: "#f1f5f9" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: "#f1f5f9" },
    ".cm-gutters": { backgroundColor: "#1e293b", color: "#94a3b8", borderRight: "1px solid #334155" },
    ".cm-activeLine": { backgroundColor: "#1e293b80" },
    ".cm-activeLineGutter": { backgroundColor: "#334155" },
    "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "#1e3a8a" },
    ".cm-tooltip": { backgroundColor: "#1e293b", color: "#e2e8f0", border: "1px solid #475569" },
  },
  { dark: true },
);

/** Extensions for the editor in a theme: nothing for light (basicSetup's look), the dark chrome and colours for dark. */
export function editorTheme(dark: boolean): Extension {
  return dark ? [darkChrome, syntaxHighlighting(darkHighlight)] : [];
}
