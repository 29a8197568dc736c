// A receiver that answers 200 to every POST as soon as its body has arrived: the replay benchmark's HTTP sink,
// in a process of its own so that neither the engine's workers nor the client loop share its event loop.
// Prints its port on stdout; counts the requests it answered (GET /count).
import { createServer } from "node:http";

let answered = 0;
const server = createServer((req, res) => {
  if (req.method === "GET") {
    res.end(String(answered));
    return;
  }
  req.on("data", () => undefined);
  req.on("end", () => {
    answered++;
    res.writeHead(200, { "content-type": "application/json", "content-length": "2" });
    res.end("{}");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("SIGTERM", () => process.exit(0));
