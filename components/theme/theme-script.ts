// The theme is a class on <html> ("dark" or none), set before the first paint by a script in <head> so a page
// never flashes light for a reader whose system or choice is dark. The choice is kept in localStorage: "light",
// "dark", or nothing for "follow the system".

export const THEME_STORAGE_KEY = "redrive-theme";
export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return typeof value === "string" && (THEME_CHOICES as readonly string[]).includes(value);
}

/** Whether the page should be dark for a stored choice and the system's preference. */
export function resolveDark(choice: ThemeChoice, systemDark: boolean): boolean {
  return choice === "dark" || (choice === "system" && systemDark);
}

/**
 * The inline script, as text: it runs before React, so it repeats resolveDark in plain ES5. A blocked
 * localStorage (privacy settings) falls back to the system preference instead of throwing before paint.
 */
export const THEME_SCRIPT = `(function(){var c=null;try{c=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)})}catch(e){}
var d=c==="dark"||(c!=="light"&&window.matchMedia("(prefers-color-scheme: dark)").matches);
var r=document.documentElement;r.classList.toggle("dark",d);r.style.colorScheme=d?"dark":"light"})()`;
