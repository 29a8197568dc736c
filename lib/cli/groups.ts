import type { Command } from "commander";

export type Register = (program: Command) => void;

// Command groups load on demand: a run loads only the group of its command (all of them for the top-level help,
// `help` or an unknown command). Loading every group would make every command pay for the replay and forensics
// modules, which pull in most of the app, in its start-up.
export const GROUPS: { commands: string[]; load: () => Promise<Register> }[] = [
  { commands: ["db"], load: async () => (await import("./commands/db")).registerDbCommands },
  { commands: ["import"], load: async () => (await import("./commands/import")).registerImportCommands },
  { commands: ["afc"], load: async () => (await import("./commands/afc")).registerAfcCommands },
  { commands: ["geometry"], load: async () => (await import("./commands/geometry")).registerGeometryCommands },
  { commands: ["user", "token"], load: async () => (await import("./commands/accounts")).registerAccountCommands },
  { commands: ["team"], load: async () => (await import("./commands/teams")).registerTeamCommands },
  { commands: ["audit"], load: async () => (await import("./commands/audit")).registerAuditCommands },
  { commands: ["lookup", "export", "maintenance"], load: async () => (await import("./commands/forensics")).registerForensicsCommands },
  { commands: ["group"], load: async () => (await import("./commands/failure-groups")).registerGroupCommands },
  { commands: ["rule"], load: async () => (await import("./commands/rules")).registerRuleCommands },
  { commands: ["source"], load: async () => (await import("./commands/sources")).registerSourceCommands },
  { commands: ["sink"], load: async () => (await import("./commands/sink")).registerSinkCommands },
  { commands: ["worker", "ledger", "replay"], load: async () => (await import("./commands/replay")).registerReplayCommands },
];

/** The groups this command line needs: the first argument that is not an option names the command. */
export function groupsFor(argv: string[]): typeof GROUPS {
  const name = argv.find((a) => !a.startsWith("-"));
  const group = GROUPS.find((g) => name !== undefined && g.commands.includes(name));
  return group ? [group] : GROUPS;
}
