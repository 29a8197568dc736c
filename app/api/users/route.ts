import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { CreateUserBody, type CreatedUser } from "@/lib/auth/account-schemas";
import { createUser, listUsers } from "@/lib/auth/users";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** GET /api/users — every account (admins). */
export const GET = defineRoute(
  {
    access: { permission: "users:manage" },
    openapi: { tag: "accounts", summary: "Every account", responses: { 200: { description: "{ users }" } } },
  },
  async () => ({ users: await listUsers(getDb().pool) }),
);

/** POST /api/users {email, name?, role, password?} — create an account; a generated password is returned once. */
export const POST = defineRoute(
  {
    access: { permission: "users:manage" },
    body: CreateUserBody,
    // A generated password is shown once, exactly as made: the masking pass must not touch it.
    clearAnswer: true,
    openapi: {
      tag: "accounts",
      summary: "Create an account",
      responses: {
        201: { description: "The account (and a generated password, once)" },
        409: { description: "An account with this e-mail exists" },
      },
    },
  },
  async ({ body, principal, now, requestId }) => {
    const created = await createUser(getDb().pool, body, { actor: actorOf(principal!), now, requestId });
    const out: CreatedUser = created.generated ? { user: created.user, password: created.password } : { user: created.user };
    return answer(out, { status: 201 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
