"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/** false while rendering on the server and hydrating, true once the page is interactive (keys work). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
