import type { Metadata } from "next";
import { NotFoundNotice } from "@/components/ui/not-found-notice";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <NotFoundNotice title="Page not found" back={{ href: "/", label: "Back to the overview" }}>
      <p>There is no page at this address. Check the link, or start from the overview.</p>
    </NotFoundNotice>
  );
}
