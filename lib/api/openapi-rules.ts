import {
  ApplyRuleBodySchema,
  ApproveRuleBodySchema,
  CreateRuleBodySchema,
  DryRunBodySchema,
  PatchRuleBodySchema,
  RuleIdParamsSchema,
  RuleJobParamsSchema,
} from "../rules/rule-schemas";
import type { Operation } from "./openapi";

// Triage rules (lib/rules, lib/dead-letters/rules): openapi-routes.ts lists these with the rest.

const notFound = { 404: { description: "No such rule" } };
const conflict = (description: string) => ({ 409: { description } });
const job = {
  200: { description: "{ job }: the job ended within the request; its counts" },
  202: { description: "{ job }: still running; poll Location (GET /api/rules/{id}/jobs/{jobId})" },
};

export const RULES: Operation[] = [
  {
    method: "get",
    path: "/api/rules",
    tag: "rules",
    summary: "Triage rules with their latest version, status (draft, active, disabled) and stats",
    access: { permission: "dead_letters:read" },
    responses: { 200: { description: "{ rules }" } },
  },
  {
    method: "post",
    path: "/api/rules",
    tag: "rules",
    summary: "Draft a rule (version 1): it decides nothing until a second supervisor approves it",
    description:
      "`match`: kind, source, origin (broker source), reason (reason group), class, afcIssues (the tap schema's issues, by field or " +
      "`field: message`; every issue of a record must be listed), repair {method, policy, sameType, maxAreaChange, maxDroppedParts}. " +
      "`action`: approve (pins the repair it matched on), quarantine (with a reason) or leave (count only). A standing `replay` is refused for now.",
    access: { permission: "replays:approve" },
    body: CreateRuleBodySchema,
    responses: { 201: { description: "The rule: id, version 1, status draft" }, ...conflict("A rule of that name exists") },
  },
  {
    method: "get",
    path: "/api/rules/{id}",
    tag: "rules",
    summary: "One rule with every version (who drafted and approved each) and its stats",
    access: { permission: "dead_letters:read" },
    params: RuleIdParamsSchema,
    responses: { 200: { description: "The rule" }, ...notFound },
  },
  {
    method: "patch",
    path: "/api/rules/{id}",
    tag: "rules",
    summary: "Kill switch ({enabled: false}, at once), or a new version (a change, or {enabled: true}) awaiting approval",
    access: { permission: "rules:disable" },
    params: RuleIdParamsSchema,
    body: PatchRuleBodySchema,
    responses: { 200: { description: "The rule" }, ...notFound, ...conflict("Enabling a draft (it waits for approval already)") },
  },
  {
    method: "post",
    path: "/api/rules/{id}/approve",
    tag: "rules",
    summary: "Approve exactly the version reviewed (four eyes: not its drafter); the rule becomes active",
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: ApproveRuleBodySchema,
    responses: { 200: { description: "The rule, active" }, ...notFound, ...conflict("Another version is the latest, or nothing waits") },
  },
  {
    method: "post",
    path: "/api/rules/{id}/dry-run",
    tag: "rules",
    summary: "What the rule (or the editor's unsaved match and action) would do to the records stored now",
    description: "Counts decided and skipped (grouped by reason), samples of each, and the area change distribution of approvals.",
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: DryRunBodySchema,
    responses: { ...job, ...notFound },
  },
  {
    method: "post",
    path: "/api/rules/{id}/apply",
    tag: "rules",
    summary: "Apply the active version to the matching records stored now (a job; each decision audited with the rule as actor)",
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: ApplyRuleBodySchema,
    responses: { ...job, ...notFound, ...conflict("The rule is not active, or applies another version") },
  },
  {
    method: "get",
    path: "/api/rules/{id}/jobs/{jobId}",
    tag: "rules",
    summary: "A dry run's or an apply's progress and counts",
    access: { permission: "dead_letters:read" },
    params: RuleJobParamsSchema,
    responses: { 200: { description: "The job" }, 404: { description: "No such job" } },
  },
];
