import type { Metadata } from "next";
import { NotFoundNotice } from "@/components/ui/not-found-notice";

export const metadata: Metadata = { title: "Replay batch not found" };

export default function ReplayBatchNotFound() {
  return (
    <NotFoundNotice title="No such replay batch" back={{ href: "/replays", label: "Back to the replay batches" }}>
      <p>No replay batch has this id.</p>
    </NotFoundNotice>
  );
}
