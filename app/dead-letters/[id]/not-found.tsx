import type { Metadata } from "next";
import { NotFoundNotice } from "@/components/ui/not-found-notice";

export const metadata: Metadata = { title: "Dead letter not found" };

/** A record id that is not a number or names no record. */
export default function DeadLetterNotFound() {
  return (
    <NotFoundNotice title="No such dead letter" back={{ href: "/dead-letters", label: "Back to the dead letters" }}>
      <p>
        No dead letter has this id. Ids are whole numbers, as in{" "}
        <code className="rounded bg-slate-100 dark:bg-slate-800 px-1">/dead-letters/42</code>.
      </p>
      <p>With a key, hash, event or device id instead, the lookup finds the record and its timeline.</p>
    </NotFoundNotice>
  );
}
