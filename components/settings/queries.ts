"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  CreatedToken,
  CreatedUser,
  CreateTokenBody,
  CreateUserBody,
  PatchUserBody,
  TokenView,
  UserView,
} from "@/lib/auth/account-schemas";
import { fetchJson } from "@/lib/api/client";
import type { TeamBody, TeamPatch, TeamView } from "@/lib/auth/teams/team-schemas";

// One hook per resource of the settings page; mutations invalidate by key.

export const accountKeys = {
  all: ["account"] as const,
  tokens: () => [...accountKeys.all, "tokens"] as const,
  users: () => [...accountKeys.all, "users"] as const,
};

export function useTokens(initialData?: TokenView[]) {
  return useQuery({
    queryKey: accountKeys.tokens(),
    queryFn: async () => (await fetchJson<{ tokens: TokenView[] }>("/api/tokens")).tokens,
    initialData,
  });
}

/** Every user's tokens (admins): under the tokens key, so a revoke or a new token refreshes both lists. */
export function useAllTokens(initialData?: TokenView[]) {
  return useQuery({
    queryKey: [...accountKeys.tokens(), "all"],
    queryFn: async () => (await fetchJson<{ tokens: TokenView[] }>("/api/tokens?all=1")).tokens,
    initialData,
  });
}

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateTokenBody) => fetchJson<CreatedToken>("/api/tokens", { method: "POST", body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}

export function useRevokeToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ token: TokenView }>(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}

export function useUsers(initialData?: UserView[]) {
  return useQuery({
    queryKey: accountKeys.users(),
    queryFn: async () => (await fetchJson<{ users: UserView[] }>("/api/users")).users,
    initialData,
  });
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateUserBody) => fetchJson<CreatedUser>("/api/users", { method: "POST", body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.users() }),
  });
}

export function usePatchUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: PatchUserBody }) =>
      fetchJson<{ user: UserView }>(`/api/users/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.users() }),
  });
}

export const teamKeys = { all: ["teams"] as const };

export function useTeams(initialData?: TeamView[]) {
  return useQuery({
    queryKey: teamKeys.all,
    queryFn: async () => (await fetchJson<{ items: TeamView[] }>("/api/teams")).items,
    initialData,
  });
}

export function useCreateTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: TeamBody) => fetchJson<TeamView>("/api/teams", { method: "POST", body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: teamKeys.all }),
  });
}

export function usePatchTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: TeamPatch }) =>
      fetchJson<TeamView>(`/api/teams/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: () => qc.invalidateQueries({ queryKey: teamKeys.all }),
  });
}

export function useDeleteTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ deleted: true }>(`/api/teams/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: teamKeys.all }),
  });
}
