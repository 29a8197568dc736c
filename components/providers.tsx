"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { Toaster } from "sonner";
import { HttpError } from "@/lib/api/client";
import { onApiError } from "./session-ended";
import { useDarkTheme } from "./theme/use-dark-theme";

// One QueryClient per browser tab, and one per server render (useState runs per mount, so requests never
// share a cache). Mount once in app/layout.tsx around {children}.

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onApiError }),
    mutationCache: new MutationCache({ onError: onApiError }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // A 4xx will not get better by asking again.
        retry: (failures, error) => !(error instanceof HttpError && error.status < 500) && failures < 2,
      },
    },
  });
}

export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(makeQueryClient);
  const dark = useDarkTheme();
  return (
    <QueryClientProvider client={client}>
      {children}
      <Toaster position="bottom-right" richColors closeButton theme={dark ? "dark" : "light"} />
    </QueryClientProvider>
  );
}
