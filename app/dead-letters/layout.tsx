import { Toaster } from "sonner";

// The triage section: its pages toast decisions and errors (sonner), mounted once here.
export default function DeadLettersLayout({ children }: { children: React.ReactNode }) {
  return (
    <>
      {children}
      <Toaster position="bottom-right" richColors closeButton duration={4000} />
    </>
  );
}
