// nodwyn's live states for OpenCode (written by `nodwyn hooks install opencode --write`;
// `nodwyn hooks remove opencode` deletes this file). It hands the events below to nodwyn's
// hook command (nodwyn.live.hook), never waits for it, and never changes what OpenCode does.
import { spawn } from "node:child_process";

const COMMAND = __COMMAND__;
const WANTED = new Set([
  "session.status", "session.idle", "permission.asked", "permission.updated",
  "permission.replied", "question.asked", "question.replied", "question.rejected",
]);

export const NodwynLive = async () => ({
  event: async ({ event }) => {
    if (!event || !WANTED.has(event.type)) return;
    try {
      const child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ["pipe", "ignore", "ignore"], detached: true });
      child.on("error", () => {});
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify({ type: event.type, properties: event.properties }));
      child.unref();
    } catch {
      // nodwyn missing or moved: OpenCode goes on as ever
    }
  },
});
